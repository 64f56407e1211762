/* ss_h5util.c - HDF5 attribute and row-range helpers. */
#include "ss_h5util.h"

#include <fcntl.h>
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

static int rows_io(hid_t d, hid_t mem_type, long row0, long n, int col0, int cols, void *buf, int write)
{
    hid_t fs = H5Dget_space(d);
    if (fs < 0) return -1;
    hsize_t start[2] = {(hsize_t)row0, (hsize_t)col0}, count[2] = {(hsize_t)n, (hsize_t)cols};
    herr_t rc = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(cols > 0 ? 2 : 1, count, NULL);
    if (rc >= 0) rc = write ? H5Dwrite(d, mem_type, ms, fs, H5P_DEFAULT, buf) : H5Dread(d, mem_type, ms, fs, H5P_DEFAULT, buf);
    H5Sclose(ms);
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
