/* ss_columns.h - the one description of the summary columns: name, type, unit, which
 * models fill them and where they appear. summary.csv, the JSON, the results.h5 /summary
 * table and its read-back, and the compare table are all generated from it. */
#ifndef SS_COLUMNS_H
#define SS_COLUMNS_H

#include <stddef.h>

#include "ss_limits.h"
#include "ss_summary.h"

typedef enum { SS_COL_STR, SS_COL_LONG, SS_COL_INT, SS_COL_F64 } ss_col_type;

/* What a column holds (the evaluator's switch). */
typedef enum {
    SS_CV_SCENARIO, SS_CV_MODEL, SS_CV_LABEL, SS_CV_FETCH_ALIGN, SS_CV_START_ALIGN, SS_CV_ITERATIONS,
    SS_CV_MEAN, SS_CV_STD, SS_CV_EFFECTIVE_DELAY, SS_CV_CHANGE, SS_CV_WORKERS, SS_CV_PERSISTENT, SS_CV_PREFETCH,
    SS_CV_FETCH_SCALE, SS_CV_COMPUTE_SCALE, SS_CV_HEAL_GPU, SS_CV_HEAL_GPUS, SS_CV_FIDELITY_ERR, SS_CV_FIDELITY_MAPE, SS_CV_CPU_LOAD, SS_CV_CPU_STRETCH, SS_CV_READ_STRETCH, SS_CV_STRAGGLER,
    SS_CV_RUN_TIME, SS_CV_RUN_CHANGE, SS_CV_EPOCH_START,
    SS_CV_ERROR_CLASS, SS_CV_ITER_LO, SS_CV_ITER_HI, SS_CV_RUN_LO, SS_CV_RUN_HI
} ss_col_value;

/* Where a column appears beyond summary.csv and the JSON (bits of ss_column.flags). */
enum {
    SS_COLF_H5 = 1 << 0,           /* a field of the results.h5 /summary table */
    SS_COLF_PER_GPU = 1 << 1,      /* one value per GPU: <name>_gpu<g> in the CSV, an array in JSON
                                    * and in the results.h5 /summary table */
    SS_COLF_JSON_OMIT = 1 << 2,    /* left out of a JSON row where it does not apply (else null) */
    SS_COLF_COMPARE = 1 << 3,      /* read back and shown by compare, with its difference */
    SS_COLF_COMPARE_PCT = 1 << 4,  /* ... and its difference in % */
};

typedef struct {
    const char *name;
    ss_col_type type;
    const char *unit;        /* "s", "%", "1" (a count or ratio), "" (text) */
    const char *filled_by;   /* which rows fill it (the others leave it empty) */
    const char *help;        /* one line */
    ss_col_value value;
    int metric;              /* SS_M_* for SS_CV_MEAN / SS_CV_STD */
    unsigned flags;
    size_t h5_size;          /* bytes of a string field in the HDF5 table */
} ss_column;

/* The columns in summary.csv order; *n receives their count. */
const ss_column *ss_columns(int *n);
/* The column called name, or NULL. */
const ss_column *ss_column_find(const char *name);

/* A value: the text, the integer or the number, by the column's type. */
typedef struct {
    const char *str; /* (may point into buf) */
    long l;
    double d;
    char buf[SS_LABEL_MAX]; /* a text made for the value (the label) */
} ss_colval;

/* Row j's value of column c (GPU g for per-GPU columns). Returns 0 when the column does
 * not apply to the row (an empty CSV cell, null in JSON), 1 otherwise. */
int ss_column_get(const ss_column *c, const ss_summary *s, int j, int g, ss_colval *v);

#endif
