/* fuzz_csv.c - fuzzes the DS-Analyzer importer: ss_dsa_load on a CSV trio, ss_csv_read/
 * ss_csv_number on each file, ss_time_parse/ss_time_format_iso on cells. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "ss_csv.h"
#include "ss_import_dsanalyzer.h"
#include "ss_timefmt.h"

/* Input: PREFIX.csv, SEP, PREFIX_simp_fetchdifftime.csv, SEP,
 * PREFIX_simp_fetchstartdifftime.csv[, SEP, a file name for ss_dsa_meta_from_name].
 * A file whose piece is missing is not written (the missing-file error). */
#define SEP "\n%%file%%\n"
#define PREFIX "fsNprepNloadNtrain_openimage_randaugment_resnet50_epoch2_b2048_worker12_thread0"

/* Known findings, skipped so that a run goes on to find other things (STALLSIM_FUZZ_ALL=1
 * turns the skips off):
 *  - ss_time_parse (io/ss_timefmt.c) overflows int64_t nanoseconds for years outside
 *    1678..2261 (UBSan signed-integer-overflow);
 *  - set_times (io/ss_dsa_import.c) overflows start_ns - origin when the timestamps span
 *    more than ~292 years (UBSan signed-integer-overflow);
 *  - cell_long (io/ss_dsa_import.c) casts a finite double of magnitude >= 2^63 to long
 *    (UBSan float-cast-overflow), e.g. Epoch = 1e30. */
static int huge_number(const uint8_t *d, size_t n)
{
    char tok[512];
    size_t k = 0;
    for (size_t i = 0; i <= n; i++) {
        int sep = i == n || d[i] == ',' || d[i] == '\n' || d[i] == '\r' || d[i] == '"' || d[i] == 0;
        if (!sep) {
            if (k < sizeof tok - 1) tok[k++] = (char)d[i];
            continue;
        }
        tok[k] = '\0';
        k = 0;
        char *end;
        double v = strtod(tok, &end);
        while (*end == ' ') end++;
        if (end != tok && *end == '\0' && (v >= 9.2e18 || v <= -9.2e18)) return 1;
    }
    return 0;
}

static int skip_known(const uint8_t *d, size_t n)
{
    static int all = -1;
    if (all < 0) all = getenv("STALLSIM_FUZZ_ALL") && getenv("STALLSIM_FUZZ_ALL")[0] == '1';
    if (all) return 0;
    int lo = 9999, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (i + 4 >= n || !isdigit(d[i]) || !isdigit(d[i + 1]) || !isdigit(d[i + 2]) || !isdigit(d[i + 3]) ||
            d[i + 4] != '-')
            continue;
        int y = (d[i] - '0') * 1000 + (d[i + 1] - '0') * 100 + (d[i + 2] - '0') * 10 + (d[i + 3] - '0');
        if (y < 1678 || y > 2261) return 1;
        lo = y < lo ? y : lo;
        hi = y > hi ? y : hi;
    }
    return hi - lo > 290 || huge_number(d, n);
}

static void poke_csv(const char *path)
{
    ss_csv c;
    ss_clear();
    if (ss_csv_read(path, &c) == SS_OK) {
        (void)ss_csv_col(&c, "Epoch");
        long cells = 0;
        for (long r = 0; r < c.nrows && cells < 4096; r++)
            for (int k = 0; k < c.ncols && cells < 4096; k++, cells++) {
                double v;
                int64_t ns;
                ss_clear();
                (void)ss_csv_number(&c, r, k, &v);
                if (ss_time_parse(ss_csv_cell(&c, r, k), &ns) == 0) {
                    char iso[40];
                    ss_time_format_iso(ns - ns % 1000, iso, sizeof iso);
                }
            }
    }
    ss_csv_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const suffix[3] = {".csv", "_simp_fetchdifftime.csv", "_simp_fetchstartdifftime.csv"};
    if (skip_known(data, size)) return 0;
    const uint8_t *p = data, *end = data + size, *piece;
    size_t len;
    char path[3][1024], name[256];
    int have[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s%s", fuzz_tmpdir(), PREFIX, suffix[i]);
        unlink(path[i]);
        if ((piece = fuzz_piece(&p, end, SEP, &len)) == NULL) continue;
        snprintf(name, sizeof name, "%s%s", PREFIX, suffix[i]);
        fuzz_write(name, piece, len, path[i], sizeof path[i]);
        have[i] = 1;
    }

    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s/%s", fuzz_tmpdir(), PREFIX);
    ss_trace_meta meta;
    ss_slab rows;
    ss_clear();
    if (ss_dsa_load(prefix, &meta, &rows) == SS_OK) {
        if (rows.n != meta.iterations || rows.gpus != meta.gpus) abort();
        ss_slab_free(&rows);
    }

    for (int i = 0; i < 3; i++)
        if (have[i]) poke_csv(path[i]);

    if ((piece = fuzz_piece(&p, end, SEP, &len)) != NULL) {
        char *s = fuzz_strndup(piece, len);
        ss_trace_meta m;
        ss_trace_meta_init(&m);
        ss_dsa_meta_from_name(s, &m);
        int64_t ns;
        if (ss_time_parse(s, &ns) == 0) {
            char iso[40];
            ss_time_format_iso(ns - ns % 1000, iso, sizeof iso);
        }
        free(s);
    }
    return 0;
}
