/* ss_importers.c - the table of trace formats: one row per importer (see ss_import.h). */
#include <string.h>

#include "ss_import.h"

/* X(name): the importer is the const ss_importer ss_importer_<name>, defined in
 * ss_import_<name>.c. A new format is that file plus one row here. */
#define SS_IMPORTER_LIST(X) \
    X(dsanalyzer) \
    X(dftracer) \
    X(profiler) \
    X(table)

#define DECLARE(name) extern const ss_importer ss_importer_##name;
SS_IMPORTER_LIST(DECLARE)
#undef DECLARE

#define ENTRY(name) &ss_importer_##name,
static const ss_importer *const table[] = {SS_IMPORTER_LIST(ENTRY)};
#undef ENTRY

const ss_importer *const *ss_importers(int *n)
{
    *n = (int)(sizeof table / sizeof table[0]);
    return table;
}

const ss_importer *ss_importer_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i]->name, name)) return table[i];
    return NULL;
}
