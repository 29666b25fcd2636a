/*
 * Least squares and medians (fit.h).
 */
#include "fit.h"

#include <math.h>
#include <stdlib.h>

int topo_fit_line(const double *x, const double *y, int n, double *a, double *b)
{
    if (n < 2) {
        return -1;
    }
    /* centred sums: stable for x spanning many orders of magnitude */
    double mx = 0.0, my = 0.0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0.0, sxy = 0.0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0.0)) {
        return -1;
    }
    *b = sxy / sxx;
    *a = my - *b * mx;
    return 0;
}

static int cmp(const void *p, const void *q)
{
    double u = *(const double *)p, v = *(const double *)q;
    return (u > v) - (u < v);
}

double topo_fit_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
