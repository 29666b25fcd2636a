/*
 * Size-range rules (see rules.h).
 */
#include "rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int topo_rules_parse(const char *str, topo_prim_t prim, topo_rules_t *rules, char *err,
                     size_t errlen)
{
    memset(rules, 0, sizeof(*rules));
    if (NULL == str || '\0' == *str) {
        return TOPO_OK;
    }
    const char *p = str;
    for (;;) {
        const char *item = p;
        size_t itemlen = strcspn(item, ",");
        char name[64];
        size_t lo, hi;
        const char *why = NULL;
        if (!parse_size(&p, 0, &lo)) {
            why = "expected a size (e.g. 0, 4k, 8M)";
        } else if ('-' != *p++) {
            why = "expected '-' after the lower bound";
        } else if (!parse_size(&p, 1, &hi)) {
            why = "expected a size or 'inf' as the upper bound";
        } else if (':' != *p++) {
            why = "expected ':' before the algorithm";
        } else if (lo >= hi) {
            why = "the range is empty (LO must be below HI)";
        } else if (rules->n > 0 && lo < rules->rule[rules->n - 1].hi) {
            why = "ranges must be in increasing order and must not overlap";
        } else if (rules->n == TOPO_MAX_RULES) {
            why = "too many ranges (at most 64)";
        } else {
            size_t n = strcspn(p, ",");
            if (0 == n || n >= sizeof(name)) {
                why = "expected an algorithm name";
            } else {
                memcpy(name, p, n);
                name[n] = '\0';
                p += n;
                const int previous = 0 == strcmp(name, TOPO_RULES_PREVIOUS);
                const topo_algo_t *algo = previous ? NULL : topo_catalog_find(prim, name);
                if (NULL == algo && !previous) {
                    snprintf(err, errlen, "'%.*s': %s has no algorithm '%s'", (int)itemlen, item,
                             topo_prim_name(prim), name);
                    memset(rules, 0, sizeof(*rules));
                    return TOPO_EINVAL;
                }
                rules->rule[rules->n].lo = lo;
                rules->rule[rules->n].hi = hi;
                rules->rule[rules->n].algo = algo;
                rules->rule[rules->n].previous = previous;
                rules->n++;
            }
        }
        if (NULL == why && '\0' != *p && ',' != *p) {
            why = "unexpected text after the item";
        }
        if (NULL != why) {
            snprintf(err, errlen, "'%.*s' in '%s': %s", (int)itemlen, item, str, why);
            memset(rules, 0, sizeof(*rules));
            return TOPO_EINVAL;
        }
        if ('\0' == *p) {
            return TOPO_OK;
        }
        p++; /* ',' */
    }
}

const topo_rule_t *topo_rules_find(const topo_rules_t *rules, size_t bytes)
{
    int lo = 0, hi = rules->n; /* binary search for the last rule with lo <= bytes */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (rules->rule[mid].lo <= bytes) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (0 == lo) {
        return NULL;
    }
    const topo_rule_t *r = &rules->rule[lo - 1];
    return bytes < r->hi || r->hi == SIZE_MAX ? r : NULL;
}

const topo_algo_t *topo_rules_lookup(const topo_rules_t *rules, size_t bytes)
{
    const topo_rule_t *r = topo_rules_find(rules, bytes);
    return NULL != r ? r->algo : NULL;
}
