/* ss_h5util.c - HDF5 attribute and row-range helpers. */
#include "ss_h5util.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int ss_h5_attr_write_string(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = (a >= 0 && H5Awrite(a, t, &value) >= 0) ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
    return rc;
}

int ss_h5_attr_write_num(hid_t obj, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t n)
{
    hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(obj, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int rc = (a >= 0 && H5Awrite(a, mem_type, v) >= 0) ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

int ss_h5_write_matrix(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t rows,
                       hsize_t cols, const char *units)
{
    const hsize_t dims[2] = {rows, cols};
    hid_t sp = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = (d >= 0 && (rows * cols == 0 || H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)) ? 0 : -1;
    if (rc == 0 && units) rc = ss_h5_attr_write_string(d, "units", units);
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    return rc;
}

int ss_h5_write_array(hid_t loc, const char *name, hid_t file_type, hid_t mem_type, const void *v, hsize_t n,
                      const char *units)
{
    hid_t sp = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(loc, name, file_type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int rc = (d >= 0 && (n == 0 || H5Dwrite(d, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)) ? 0 : -1;
    if (rc == 0 && units) rc = ss_h5_attr_write_string(d, "units", units);
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    return rc;
}

int ss_h5_attr_read_string(hid_t obj, const char *name, char *out, size_t outsz)
{
    int rc = -1;
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a);
    if (ft >= 0 && H5Tget_class(ft) == H5T_STRING) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_cset(mt, H5Tget_cset(ft)); /* no conversion between character sets */
        if (H5Tis_variable_str(ft) > 0) {
            H5Tset_size(mt, H5T_VARIABLE);
            char *v = NULL;
            if (H5Aread(a, mt, &v) >= 0 && v) {
                snprintf(out, outsz, "%s", v);
                H5free_memory(v);
                rc = 0;
            }
        } else {
            size_t n = H5Tget_size(ft);
            char *v = calloc(n + 1, 1);
            H5Tset_size(mt, n + 1);
            if (v && H5Aread(a, mt, v) >= 0) {
                snprintf(out, outsz, "%s", v);
                rc = 0;
            }
            free(v);
        }
        H5Tclose(mt);
    }
    if (ft >= 0) H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

int ss_h5_attr_read_long(hid_t obj, const char *name, long *out)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
    int rc = -2;
    if (H5Tget_class(ft) == H5T_INTEGER && H5Sget_simple_extent_npoints(sp) == 1 &&
        H5Aread(a, H5T_NATIVE_LONG, out) >= 0)
        rc = 0;
    H5Sclose(sp);
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

int ss_h5_attr_read_ints(hid_t obj, const char *name, int *out, long n)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t ft = H5Aget_type(a), sp = H5Aget_space(a);
    int rc = -2;
    if (H5Tget_class(ft) == H5T_INTEGER && H5Sget_simple_extent_ndims(sp) <= 1 &&
        H5Sget_simple_extent_npoints(sp) == n && H5Aread(a, H5T_NATIVE_INT, out) >= 0)
        rc = 0;
    H5Sclose(sp);
    H5Tclose(ft);
    H5Aclose(a);
    return rc;
}

/* The most chunks one H5Dread or H5Dwrite touches: libhdf5 keeps a record of every chunk
 * an I/O call touches, so a file of tiny chunks (one row each, as an append-by-row writer
 * may leave) would otherwise take memory in proportion to the rows of one call. */
#define ROWS_IO_MAX_CHUNKS 1024L

/* The rows per chunk of dataset d (0: not chunked), and into *across the chunks a row of
 * cols columns from col0 spans (1 for a dataset of one column per row). */
static long chunk_rows_of(hid_t d, int col0, int cols, long *across)
{
    hid_t dcpl = H5Dget_create_plist(d);
    hsize_t cd[2] = {0, 0};
    long r = 0;
    const int rank = dcpl >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED ? H5Pget_chunk(dcpl, 2, cd) : 0;
    if (rank >= 1) r = (long)cd[0];
    *across = 1;
    if (rank == 2 && cols > 0 && cd[1] > 0)
        *across = (long)((hsize_t)(col0 + cols - 1) / cd[1] - (hsize_t)col0 / cd[1] + 1);
    if (dcpl >= 0) H5Pclose(dcpl);
    return r;
}

static int rows_io(hid_t d, hid_t mem_type, long row0, long n, int col0, int cols, void *buf, int write)
{
    long across;
    const long chunk = chunk_rows_of(d, col0, cols, &across);
    const long per = ROWS_IO_MAX_CHUNKS / across > 0 ? ROWS_IO_MAX_CHUNKS / across : 1; /* chunk rows per piece */
    const long piece = chunk > 0 && chunk <= LONG_MAX / per ? chunk * per : n;
    const size_t row_bytes = H5Tget_size(mem_type) * (size_t)(cols > 0 ? cols : 1);
    hid_t fs = H5Dget_space(d);
    if (fs < 0 || row_bytes == 0) {
        if (fs >= 0) H5Sclose(fs);
        return -1;
    }
    herr_t rc = 0;
    for (long done = 0; rc >= 0 && done < n;) {
        /* each piece ends on a chunk's boundary, so that no chunk is read twice */
        long m = piece - (chunk > 0 ? (row0 + done) % chunk : 0);
        if (m > n - done) m = n - done;
        hsize_t start[2] = {(hsize_t)(row0 + done), (hsize_t)col0}, count[2] = {(hsize_t)m, (hsize_t)cols};
        rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t ms = H5Screate_simple(cols > 0 ? 2 : 1, count, NULL);
        char *at = (char *)buf + (size_t)done * row_bytes;
        if (rc >= 0 && ms >= 0)
            rc = write ? H5Dwrite(d, mem_type, ms, fs, H5P_DEFAULT, at) : H5Dread(d, mem_type, ms, fs, H5P_DEFAULT, at);
        else rc = -1;
        if (ms >= 0) H5Sclose(ms);
        done += m;
    }
    H5Sclose(fs);
    return rc < 0 ? -1 : 0;
}

int ss_h5_rows(hid_t d, hid_t mem_type, long row0, long n, int cols, void *buf, int write)
{
    return rows_io(d, mem_type, row0, n, 0, cols, buf, write);
}

int ss_h5_read_block(hid_t d, hid_t mem_type, long row0, long n, int col0, int ncols, void *buf)
{
    return rows_io(d, mem_type, row0, n, col0, ncols, buf, 0);
}

void ss_h5_release(const char *path)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) return;
    int rc = ftruncate(fd, 0); /* if this fails too, the close may still fail: see below */
    (void)rc;
    close(fd);
}

int ss_h5_close_file(hid_t f)
{
    if (f < 0) return 0;
    return H5Fclose(f) >= 0 ? 0 : -1;
}
