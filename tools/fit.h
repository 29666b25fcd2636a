/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Least-squares fitting for topo-calibrate (MPI-free, unit-tested in
 * test/unit/check_fit.c).
 */
#ifndef TOPO_FIT_H
#define TOPO_FIT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y = a + b x over the n points (x[i], y[i]) by least squares.  Returns 0,
 * or -1 when n < 2 or every x is the same (no slope can be fitted). */
int topo_fit_line(const double *x, const double *y, int n, double *a, double *b);

/* topo_fit_line over the points with lo <= x[i] <= hi only. */
int topo_fit_range(const double *x, const double *y, int n, double lo, double hi, double *a,
                   double *b);

/* The protocol jump in one-way times y (> 0) over ascending sizes x: for
 * every split k with x[k] >= min_x and two sizes or more on either side,
 * the least-squares fit of y = a + b x + c [x > x[k]] in relative terms
 * (weights 1/y^2, so that every size of a geometric range counts alike),
 * and of the line without the step.  The split whose fit leaves the
 * smallest residual wins if its step is real: c is at least a quarter of
 * the line's time just above the split, a + b x[k+1], and the residual at
 * most half the line's.  (An absolute jump between consecutive
 * sizes is no test: it grows with the size.)  Returns k and the fit in
 * *a, *b, *c, or -1 when no split qualifies. */
int topo_fit_step(const double *x, const double *y, int n, double min_x, double *a, double *b,
                  double *c);

/* The largest size in [lo, hi) that still goes eagerly, lo eager and hi
 * not: bisects with time(bytes, ctx) until the interval is at most tol
 * bytes wide.  A size is taken as rendezvous when its time exceeds the
 * eager line a + b bytes by more than half the step c (topo_fit_step's). */
size_t topo_fit_bisect_limit(double (*time)(size_t bytes, void *ctx), void *ctx, size_t lo,
                             size_t hi, size_t tol, double a, double b, double c);

/* The median of v[0..n) (n >= 1; v is reordered). */
double topo_fit_median(double *v, int n);

#ifdef __cplusplus
}
#endif
#endif
