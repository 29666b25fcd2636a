/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Size-range rules (see rules.h).
 */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOPO_STR_RULES_(x) #x
#define TOPO_STR_RULES(x) TOPO_STR_RULES_(x)

void topo_rules_format_size(size_t v, char *buf, size_t len)
{
    static const struct {
        unsigned shift;
        char suffix;
    } units[] = {{30, 'g'}, {20, 'm'}, {10, 'k'}};
    if (SIZE_MAX == v) {
        snprintf(buf, len, "inf");
        return;
    }
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        const size_t u = (size_t)1 << units[i].shift;
        if (0 != v && 0 == v % u) {
            snprintf(buf, len, "%zu%c", v / u, units[i].suffix);
            return;
        }
    }
    snprintf(buf, len, "%zu", v);
}

/* Parse a size at *p ("inf" only when allow_inf); advances *p. */
static int parse_size(const char **p, int allow_inf, size_t *out)
{
    if (allow_inf && 0 == strncmp(*p, "inf", 3)) {
        *p += 3;
        *out = SIZE_MAX;
        return 1;
    }
    if (!isdigit((unsigned char)**p)) {
        return 0;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    if (errno) {
        return 0;
    }
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'k':
        shift = 10;
        break;
    case 'm':
        shift = 20;
        break;
    case 'g':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift) {
        end++;
    }
    if (v > (SIZE_MAX >> shift) || (v << shift) == SIZE_MAX) {
        return 0;
    }
    *out = (size_t)(v << shift);
    *p = end;
    return 1;
}

/* The communicator sizes of a group that starts with NP@ (N, N-M or
 * N-inf), [*lo, *hi]; *p advanced past the '@'.  A group without '@' is for
 * every size.  NULL, or what is wrong. */
static const char *parse_np(const char **p, int *lo, int *hi)
{
    const size_t len = strcspn(*p, ";");
    const char *at = memchr(*p, '@', len);
    *lo = 1;
    *hi = INT_MAX;
    if (NULL == at) {
        return NULL;
    }
    const char *q = *p;
    char *end;
    if (!isdigit((unsigned char)*q)) {
        return "expected the communicator sizes before '@' (N, N-M or N-inf)";
    }
    errno = 0;
    long a = strtol(q, &end, 10), b = a;
    q = end;
    if ('-' == *q && 0 == strncmp(q + 1, "inf", 3)) {
        b = INT_MAX;
        q += 4;
    } else if ('-' == *q && isdigit((unsigned char)q[1])) {
        b = strtol(q + 1, &end, 10);
        q = end;
    }
    if (q != at) {
        return "expected '@' after the communicator sizes (N, N-M or N-inf)";
    }
    if (0 != errno || a < 1 || a > INT_MAX || b < a || b > INT_MAX) {
        return "bad communicator sizes: N must be 1 or more, and at most M";
    }
    *lo = (int)a;
    *hi = (int)b;
    *p = at + 1;
    return NULL;
}

/* The item a reason names, quoted: at most TOPO_RULES_QUOTE characters of
 * it, then "..." (the whole value is the caller's to show). */
static void quote_item(const char *item, size_t itemlen, char *buf, size_t len)
{
    if (itemlen > TOPO_RULES_QUOTE) {
        snprintf(buf, len, "'%.*s...'", (int)TOPO_RULES_QUOTE, item);
    } else {
        snprintf(buf, len, "'%.*s'", (int)itemlen, item);
    }
}

int topo_rules_parse(const char *str, topo_prim_t prim, topo_rules_t *rules, char *err,
                     size_t errlen)
{
    memset(rules, 0, sizeof(*rules));
    if (NULL == str || '\0' == *str) {
        return TOPO_OK;
    }
    const char *p = str;
    topo_rules_group_t *g = NULL;
    for (;;) {
        const char *item = p;
        size_t itemlen = strcspn(item, ",;");
        char name[64];
        size_t lo, hi;
        const char *why = NULL;
        if (NULL == g || ';' == p[-1]) { /* a group starts */
            int np_lo, np_hi;
            itemlen = strcspn(item, ";");
            if (rules->ngroups == TOPO_MAX_RULE_GROUPS) {
                why = "too many groups (at most " TOPO_STR_RULES(TOPO_MAX_RULE_GROUPS) ")";
            } else if (NULL == (why = parse_np(&p, &np_lo, &np_hi))) {
                g = &rules->group[rules->ngroups++];
                *g = (topo_rules_group_t){np_lo, np_hi, rules->n, 0};
            }
        }
        if (NULL != why) {
            /* reported below */
        } else if (!parse_size(&p, 0, &lo)) {
            why = "expected a size (e.g. 0, 4k, 8M)";
        } else if ('-' != *p++) {
            why = "expected '-' after the lower bound";
        } else if (!parse_size(&p, 1, &hi)) {
            why = "expected a size or 'inf' as the upper bound";
        } else if (':' != *p++) {
            why = "expected ':' before the algorithm";
        } else if (lo >= hi) {
            why = "the range is empty (LO must be below HI)";
        } else if (g->n > 0 && lo < rules->rule[rules->n - 1].hi) {
            why = "ranges must be in increasing order and must not overlap";
        } else if (rules->n == TOPO_MAX_RULES) {
            why = "too many ranges (at most " TOPO_STR_RULES(TOPO_MAX_RULES) ")";
        } else {
            size_t n = strcspn(p, ",;");
            if (0 == n || n >= sizeof(name)) {
                why = "expected an algorithm name";
            } else {
                memcpy(name, p, n);
                name[n] = '\0';
                p += n;
                const int previous = 0 == strcmp(name, TOPO_RULES_PREVIOUS);
                const topo_algo_t *algo = previous ? NULL : topo_catalog_find(prim, name);
                if (NULL == algo && !previous) {
                    char quoted[TOPO_RULES_QUOTE + 8];
                    quote_item(item, itemlen, quoted, sizeof(quoted));
                    snprintf(err, errlen, "%s has no algorithm '%s' (item %s at character %zu)",
                             topo_prim_name(prim), name, quoted, (size_t)(item - str) + 1);
                    memset(rules, 0, sizeof(*rules));
                    return TOPO_EINVAL;
                }
                rules->rule[rules->n] = (topo_rule_t){.lo = lo,
                                                      .hi = hi,
                                                      .algo = algo,
                                                      .previous = previous,
                                                      .np_lo = g->np_lo,
                                                      .np_hi = g->np_hi};
                rules->n++;
                g->n++;
            }
        }
        if (NULL == why && '\0' != *p && ',' != *p && ';' != *p) {
            why = "unexpected text after the item";
        }
        if (NULL != why) {
            /* the reason first, so that a short buffer cuts the quote */
            char quoted[TOPO_RULES_QUOTE + 8];
            quote_item(item, itemlen, quoted, sizeof(quoted));
            snprintf(err, errlen, "%s (item %s at character %zu)", why, quoted,
                     (size_t)(item - str) + 1);
            memset(rules, 0, sizeof(*rules));
            return TOPO_EINVAL;
        }
        if ('\0' == *p) {
            return TOPO_OK;
        }
        p++; /* ',' or ';' */
    }
}

void topo_rules_format_rule(const topo_rule_t *r, char *buf, size_t len)
{
    char np[48] = "", lo[32], hi[32];
    if (r->np_lo == r->np_hi) {
        snprintf(np, sizeof(np), "%d@", r->np_lo);
    } else if (INT_MAX == r->np_hi && r->np_lo > 1) {
        snprintf(np, sizeof(np), "%d-inf@", r->np_lo);
    } else if (INT_MAX != r->np_hi) {
        snprintf(np, sizeof(np), "%d-%d@", r->np_lo, r->np_hi);
    }
    topo_rules_format_size(r->lo, lo, sizeof(lo));
    topo_rules_format_size(r->hi, hi, sizeof(hi));
    snprintf(buf, len, "%s%s-%s", np, lo, hi);
}

const topo_rules_group_t *topo_rules_group(const topo_rules_t *rules, int size)
{
    for (int i = 0; i < rules->ngroups; i++) {
        const topo_rules_group_t *g = &rules->group[i];
        if (size >= g->np_lo && size <= g->np_hi) {
            return g;
        }
    }
    return NULL;
}

const topo_rule_t *topo_rules_find(const topo_rules_t *rules, int size, size_t bytes)
{
    const topo_rules_group_t *g = topo_rules_group(rules, size);
    if (NULL == g) {
        return NULL;
    }
    /* binary search for the group's last rule with lo <= bytes */
    int lo = g->first, hi = g->first + g->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rules->rule[mid].lo <= bytes) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (g->first == lo) {
        return NULL;
    }
    const topo_rule_t *r = &rules->rule[lo - 1];
    return bytes < r->hi || r->hi == SIZE_MAX ? r : NULL;
}

const topo_algo_t *topo_rules_lookup(const topo_rules_t *rules, int size, size_t bytes)
{
    const topo_rule_t *r = topo_rules_find(rules, size, bytes);
    return NULL != r ? r->algo : NULL;
}

int topo_prim_limits_parse(const char *str, size_t lim[TOPO_PRIM_COUNT], char *err, size_t errlen)
{
    size_t out[TOPO_PRIM_COUNT] = {0};
    int given[TOPO_PRIM_COUNT] = {0};
    const char *p = NULL != str ? str : "";
    while (isspace((unsigned char)*p)) {
        p++;
    }
    const int none = 0 == strncmp(p, "none", 4) && ('\0' == p[4] || isspace((unsigned char)p[4]));
    if ('\0' != *p && !none) {
        for (;;) {
            while (isspace((unsigned char)*p)) {
                p++;
            }
            const char *item = p, *colon = strchr(p, ':'), *comma = strchr(p, ',');
            const int n = (int)(NULL != comma ? (size_t)(comma - item) : strlen(item));
            const int prim = NULL != colon && (NULL == comma || colon < comma)
                                 ? topo_prim_find(item, (size_t)(colon - item))
                                 : -1;
            if (prim < 0) {
                snprintf(err, errlen,
                         "'%.*s' is not PRIMITIVE:BYTES (allreduce, reduce_scatter, allgather, "
                         "bcast, reduce, alltoall or barrier, then a size such as 4k; or none "
                         "alone)",
                         n > 64 ? 64 : n, item);
                return TOPO_EINVAL;
            }
            if (given[prim]) {
                snprintf(err, errlen, "%s is given twice", topo_prim_name((topo_prim_t)prim));
                return TOPO_EINVAL;
            }
            p = colon + 1;
            size_t v;
            if (!parse_size(&p, 0, &v)) {
                snprintf(err, errlen, "'%.*s': the bytes are not a size (such as 4096 or 4k)",
                         n > 64 ? 64 : n, item);
                return TOPO_EINVAL;
            }
            while (isspace((unsigned char)*p)) {
                p++;
            }
            if ('\0' != *p && ',' != *p) {
                snprintf(err, errlen, "'%.*s': something follows the size", n > 64 ? 64 : n, item);
                return TOPO_EINVAL;
            }
            given[prim] = 1;
            out[prim] = v;
            if ('\0' == *p) {
                break;
            }
            p++;
        }
    } else {
        p += '\0' != *p ? 4 : 0;
        while (isspace((unsigned char)*p)) {
            p++;
        }
        if ('\0' != *p) {
            snprintf(err, errlen, "'none' must stand alone");
            return TOPO_EINVAL;
        }
    }
    memcpy(lim, out, sizeof(out));
    return TOPO_OK;
}

int topo_bytes_parse(const char *s, double *bytes)
{
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || errno || !(v >= 0)) {
        return TOPO_EINVAL;
    }
    double mul = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mul = 1024.0;
        break;
    case 'm':
    case 'M':
        mul = 1024.0 * 1024;
        break;
    case 'g':
    case 'G':
        mul = 1024.0 * 1024 * 1024;
        break;
    default:
        break;
    }
    end += mul > 1;
    end += mul > 1 && 'i' == *end;
    end += 'B' == *end || 'b' == *end;
    const double b = v * mul;
    if ('\0' != *end || b > 9.2e18) {
        return TOPO_EINVAL;
    }
    *bytes = (double)(uint64_t)b;
    return TOPO_OK;
}
