/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranges of the numeric MCA parameters (see params.h).
 */
#include "params.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool topo_param_parse_double(const char *s, double *out)
{
    if (NULL == s) {
        return false;
    }
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if ('\0' == *s) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || (ERANGE == errno && isinf(v))) {
        return false; /* no number, or one too large for a double */
    }
    while (isspace((unsigned char)*end)) {
        end++;
    }
    if ('\0' != *end) {
        return false;
    }
    *out = v; /* an underflow gives 0 or a subnormal: the range decides */
    return true;
}

void topo_param_format_double(double v, char *buf, size_t len)
{
    if (0 == len) {
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        char tmp[TOPO_PARAM_TEXT_LEN];
        double back;
        (void)snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (!isfinite(v) || (topo_param_parse_double(tmp, &back) && back == v)) {
            (void)snprintf(buf, len, "%s", tmp);
            return;
        }
    }
    (void)snprintf(buf, len, "%.17g", v);
}

/* A bound as text: an integer type's as an integer, a double's as %g. */
static void format_bound(const topo_param_t *p, double v, char *buf, size_t len)
{
    if (TOPO_PARAM_DOUBLE == p->type) {
        topo_param_format_double(v, buf, len);
    } else {
        (void)snprintf(buf, len, "%.0f", v);
    }
}

void topo_param_range(const topo_param_t *p, char *buf, size_t len)
{
    char lo[TOPO_PARAM_TEXT_LEN / 2 - 8], hi[TOPO_PARAM_TEXT_LEN / 2 - 8];
    format_bound(p, p->lo, lo, sizeof(lo));
    format_bound(p, p->hi, hi, sizeof(hi));
    (void)snprintf(buf, len, "%s%s %s %s", p->lo_open ? "above " : "", lo,
                   p->lo_open ? "up to" : "to", hi);
}

void topo_param_format_default(const topo_param_t *p, char *buf, size_t len)
{
    format_bound(p, p->def, buf, len);
}

static bool in_range(const topo_param_t *p, double v)
{
    /* false for NaN: every comparison with it is false */
    return (p->lo_open ? v > p->lo : v >= p->lo) && v <= p->hi;
}

int topo_params_check(const topo_param_t *table, int n, topo_param_bad_fn bad, void *arg)
{
    int replaced = 0;
    for (int i = 0; i < n; i++) {
        const topo_param_t *p = &table[i];
        char value[TOPO_PARAM_TEXT_LEN];
        bool ok = true;
        double v = 0.0;
        switch (p->type) {
        case TOPO_PARAM_INT:
            v = (double)*(const int *)p->var;
            (void)snprintf(value, sizeof(value), "%d", *(const int *)p->var);
            break;
        case TOPO_PARAM_LONG:
            v = (double)*(const long *)p->var;
            (void)snprintf(value, sizeof(value), "%ld", *(const long *)p->var);
            break;
        case TOPO_PARAM_SIZE:
            v = (double)*(const size_t *)p->var;
            (void)snprintf(value, sizeof(value), "%zu", *(const size_t *)p->var);
            break;
        case TOPO_PARAM_DOUBLE:
            if (NULL == p->text) {
                v = *(const double *)p->var;
                topo_param_format_double(v, value, sizeof(value));
            } else if (NULL == *p->text || '\0' == (*p->text)[0]) {
                v = p->def; /* unset: the default */
                value[0] = '\0';
            } else {
                ok = topo_param_parse_double(*p->text, &v);
                value[0] = '\0'; /* reported from the text itself */
            }
            break;
        }
        ok = ok && in_range(p, v);
        if (!ok) {
            v = p->def;
            replaced++;
            if (NULL != bad) {
                bad(p, NULL != p->text && NULL != *p->text ? *p->text : value, arg);
            }
        }
        if (NULL != p->text && TOPO_PARAM_DOUBLE == p->type) {
            *(double *)p->var = v; /* parsed, or the default */
            continue;
        }
        if (ok) {
            continue; /* as it was: a double may not hold a long or size_t exactly */
        }
        switch (p->type) {
        case TOPO_PARAM_INT:
            *(int *)p->var = (int)v;
            break;
        case TOPO_PARAM_LONG:
            *(long *)p->var = (long)v;
            break;
        case TOPO_PARAM_SIZE:
            *(size_t *)p->var = (size_t)v;
            break;
        case TOPO_PARAM_DOUBLE:
            *(double *)p->var = v;
            break;
        }
    }
    return replaced;
}

bool topo_btl_costs(const topo_btl_info_t *btl, int n, double headers, topo_btl_costs_t *out)
{
    *out = (topo_btl_costs_t){-1.0, -1.0, -1.0, -1, -1, -1};
    for (int i = 0; i < n; i++) {
        const topo_btl_info_t *b = &btl[i];
        if (isfinite(b->bandwidth) && b->bandwidth > 0.0 &&
            (out->beta_from < 0 || b->bandwidth < btl[out->beta_from].bandwidth)) {
            out->beta_from = i;
        }
        if (isfinite(b->latency) && b->latency > 0.0 &&
            (out->alpha_from < 0 || b->latency > btl[out->alpha_from].latency)) {
            out->alpha_from = i;
        }
        if (isfinite(b->eager_limit) && b->eager_limit > headers &&
            (out->eager_from < 0 || b->eager_limit < btl[out->eager_from].eager_limit)) {
            out->eager_from = i;
        }
    }
    if (out->beta_from >= 0) {
        out->beta = 8.0 / (btl[out->beta_from].bandwidth * 1e6);
    }
    if (out->alpha_from >= 0) {
        out->alpha = btl[out->alpha_from].latency * 1e-6;
    }
    if (out->eager_from >= 0) {
        out->eager = btl[out->eager_from].eager_limit - headers;
    }
    return out->beta_from >= 0 || out->alpha_from >= 0 || out->eager_from >= 0;
}
