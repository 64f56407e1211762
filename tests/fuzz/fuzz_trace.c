/* fuzz_trace.c - fuzzes the stalltrace reader: ss_trace_open (self communicator) on the
 * input as an .h5 file, ss_trace_read/ss_trace_read_cols without train_start (alternating) of every row in small slabs,
 * and ss_calibrate. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "ss_calibrate.h"
#include "ss_comm.h"
#include "ss_trace.h"

/* libhdf5 1.10.8 itself leaks blocks of its free-list allocator (H5FL_*_malloc) on
 * error paths of damaged files: an object header that fails to load (H5Lexists ->
 * H5G_traverse -> H5O_protect -> H5C_protect), a dataset layout message that fails
 * (H5Dopen2 -> H5D__layout_oh_read). Those leaks are HDF5's, not stallsim's (stallsim
 * never allocates through H5FL), so they are suppressed by the frames H5C_protect,
 * H5FL_blk_malloc and H5FL_reg_malloc; full (slow) unwinding on malloc is needed for the suppressions to see
 * frames inside libhdf5, which has no frame pointers. Leaks of memory that stallsim
 * allocates itself, including what HDF5 hands it (vlen strings), and crashes are still
 * reported. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:H5C_protect\nleak:H5FL_blk_malloc\nleak:H5FL_reg_malloc\n"; }

/* libhdf5 1.10.8 trusts the object sizes in a global heap collection ("GCOL", where
 * variable-length strings such as the trace's string attributes live): H5HG_read copies
 * an object whose size runs past its collection (ASan memcpy-param-overlap / overflow
 * inside libhdf5, reached from H5Aread in ss_h5_attr_read_string), and loops for ever
 * on a free-space object of size 0 (H5HG cache deserialize); H5HG_read also trusts the
 * object index of a variable-length value's heap ID (its collection's address, then a
 * 4-byte index) and reads past the collection's table for an index it does not hold (SEGV,
 * from H5Aread too). Those are HDF5 bugs; inputs with such a collection, or with a heap ID
 * naming a collection of the file at an index it does not hold, are skipped
 * (STALLSIM_FUZZ_ALL=1 turns the skip off). */
static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#define MAX_GCOLS 64

static int bad_global_heap(const uint8_t *d, size_t n)
{
    static int all = -1;
    if (all < 0) all = getenv("STALLSIM_FUZZ_ALL") && getenv("STALLSIM_FUZZ_ALL")[0] == '1';
    if (all) return 0;
    uint64_t at[MAX_GCOLS];      /* the collections' file offsets (the base address is 0) */
    unsigned top[MAX_GCOLS];     /* and the largest object index each holds */
    int ncol = 0;
    for (size_t i = 0; i + 16 <= n; i++) {
        if (memcmp(d + i, "GCOL", 4) != 0) continue;
        uint64_t size = le64(d + i + 8);
        if (size < 16) return 1;
        if (size > n - i) continue; /* truncated: HDF5 cannot read the collection at all */
        size_t end = i + (size_t)size, p = i + 16;
        unsigned most = 0;
        while (p + 16 <= end) {
            unsigned idx = d[p] | (unsigned)d[p + 1] << 8;
            uint64_t osz = le64(d + p + 8);
            if (idx == 0) { /* free space: HDF5 steps by its size alone, 0 never advances */
                if (osz == 0 || osz > end - p) return 1;
                p += (size_t)osz;
                continue;
            }
            if (osz > end - (p + 16)) return 1;
            if (idx > most) most = idx;
            p += 16 + (size_t)((osz + 7) / 8 * 8);
        }
        if (ncol == MAX_GCOLS) return 1;
        at[ncol] = i;
        top[ncol++] = most;
    }
    for (size_t j = 0; ncol > 0 && j + 12 <= n; j++) {
        uint64_t a = le64(d + j);
        for (int c = 0; c < ncol; c++) {
            if (a != at[c]) continue;
            uint32_t idx = d[j + 8] | (uint32_t)d[j + 9] << 8 | (uint32_t)d[j + 10] << 16 | (uint32_t)d[j + 11] << 24;
            if (idx == 0 || idx > top[c]) return 1;
        }
    }
    return 0;
}

/* Bound on the values read per input (a valid trace may declare 10^12 rows). */
#define MAX_VALUES (1L << 20)

/* stallsim's guard around a trace's metadata (a crash or an endless loop in libhdf5 made a
 * message) is off here: libFuzzer sees such a crash and keeps its input, and its -timeout
 * timer is its own */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("STALLSIM_NO_OPEN_GUARD", "1", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (bad_global_heap(data, size)) return 0;
    char path[1024];
    fuzz_write("trace.h5", data, size, path, sizeof path);
    ss_comm self;
    ss_comm_self(&self);
    ss_trace_file *t = NULL;
    ss_clear();
    (void)ss_trace_is_trace(path);
    ss_clear();
    if (ss_trace_open(path, &self, &t) != SS_OK) return 0;
    const ss_trace_meta *m = ss_trace_meta_of(t);
    (void)ss_trace_path(t);
    (void)ss_trace_chunk_rows(t);
    long slab = 7;
    if (slab * m->gpus > MAX_VALUES) slab = 1;
    ss_slab s;
    ss_clear();
    if (ss_slab_alloc(&s, slab, m->gpus) == SS_OK) {
        long budget = MAX_VALUES / m->gpus;
        for (long r = 0; r < m->iterations && r < budget; r += slab) {
            long n = m->iterations - r < slab ? m->iterations - r : slab;
            ss_clear();
            ss_status st = (r / slab) % 2 ? ss_trace_read_cols(t, r, n, 0, &s) : ss_trace_read(t, r, n, &s);
            if (st != SS_OK) break;
        }
        ss_slab_free(&s);
    }
    ss_calib cal;
    ss_clear();
    if (ss_calibrate(t, SS_CALIB_ROWS, &cal) == SS_OK) ss_calib_free(&cal);
    ss_trace_close(t);
    return 0;
}
