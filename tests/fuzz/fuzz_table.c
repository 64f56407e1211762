/* fuzz_table.c - fuzzes `import table`: the input is the CSV file. */
#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[1024], *argv[1] = {path};
    fuzz_write("table.csv", data, size, path, sizeof path);
    fuzz_import("table", 1, argv);
    unlink(path);
    return 0;
}
