/* ss_h5util.h - small HDF5 helpers shared by the trace and results files: string and
 * numeric attributes, and row ranges of [N] or [N][cols] datasets. Internal to io/. */
#ifndef SS_H5UTIL_H
#define SS_H5UTIL_H

#include <hdf5.h>
#include <stddef.h>

/* Scalar UTF-8 variable-length string attribute. 0 on success. */
int ss_h5_attr_write_string(hid_t obj, const char *name, const char *value);
/* Numeric attribute: scalar when n == 0, else a 1-D array of n values. 0 on success. */
int ss_h5_attr_write_num(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t n);
/* A 1-D dataset of n values (any size: per-GPU arrays of a million GPUs do not fit the
 * 64 KB of an attribute), with a "units" attribute unless units is NULL. 0 on success. */
int ss_h5_write_array(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t n,
                      const char *units);
/* Writes a new [rows][cols] dataset name under loc from v (row-major), with a "units"
 * attribute when units is not NULL. 0 on success. */
int ss_h5_write_matrix(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t rows,
                       hsize_t cols, const char *units);
/* Reads a string attribute (variable or fixed length, any character set) into out.
 * 0 on success, -1 when missing or not a string. */
int ss_h5_attr_read_string(hid_t obj, const char *name, char *out, size_t outsz);
/* Reads an integer scalar attribute. 0 ok, -1 missing, -2 not one integer. */
int ss_h5_attr_read_long(hid_t obj, const char *name, long *out);
/* Reads (write = 0) or writes rows [row0, row0+n) of a dataset of rank 1 (cols == 0) or
 * rank 2 ([N][cols]). 0 on success. Independent I/O. */
int ss_h5_rows(hid_t d, hid_t mem_type, long row0, long n, int cols, void *buf, int write);
/* Reads a 1-D integer attribute of exactly n values into out. 0 ok, -1 missing, -2 wrong shape. */
int ss_h5_attr_read_ints(hid_t obj, const char *name, int *out, long n);
/* Reads rows [row0, row0+n) x columns [col0, col0+ncols) of a rank-2 dataset into a
 * row-major [n][ncols] buffer. 0 on success. */
int ss_h5_read_block(hid_t d, hid_t mem_type, long row0, long n, int col0, int ncols, void *buf);

/* Releases the bytes of the HDF5 file at path (truncates it to length 0) before a file
 * that is to be discarded is closed: on a full disk the close must still find room for
 * its metadata, because libhdf5 1.10 cannot close a file after a failed flush (the id
 * dangles and the library crashes at exit). */
void ss_h5_release(const char *path);
/* Closes file f: 0 on success, -1 on failure. A failed close leaves libhdf5 unable to
 * shut down cleanly: the caller records it with ss_atomic_note_unclosable() (sim/base),
 * so that the process exits without running libhdf5's exit handlers. */
int ss_h5_close_file(hid_t f);

#endif
