/*
 * Least-squares fitting for topo-calibrate (MPI-free, unit-tested in
 * test/unit/check_fit.c).
 */
#ifndef TOPO_FIT_H
#define TOPO_FIT_H

#ifdef __cplusplus
extern "C" {
#endif

/* y = a + b x over the n points (x[i], y[i]) by least squares.  Returns 0,
 * or -1 when n < 2 or every x is the same (no slope can be fitted). */
int topo_fit_line(const double *x, const double *y, int n, double *a, double *b);

/* The median of v[0..n) (n >= 1; v is reordered). */
double topo_fit_median(double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
