/* ss_dsa_import.h - DS-Analyzer parsed CSV trio to a stalltrace file (io/import/IMPORTERS.md). */
#ifndef SS_DSA_IMPORT_H
#define SS_DSA_IMPORT_H

#include "ss_status.h"
#include "ss_trace.h"

/* Reads PREFIX.csv, PREFIX_simp_fetchdifftime.csv and PREFIX_simp_fetchstartdifftime.csv,
 * pairs them as the reference notebook does and fills meta and a slab with every row
 * (caller frees with ss_slab_free). */
ss_status ss_dsa_load(const char *prefix, ss_trace_meta *meta, ss_slab *rows);

/* ss_dsa_load, then writes the trace to out_path (whole or not at all). */
ss_status ss_dsa_import(const char *prefix, const char *out_path, long *rows_out, int *gpus_out);

/* Fills the optional attributes from a name like
 * <logtype>_<dataset>_<augmentation>_<model>_epoch<E>_b<B>_worker<W>_thread<T>. */
void ss_dsa_meta_from_name(const char *prefix, ss_trace_meta *m);

#endif
