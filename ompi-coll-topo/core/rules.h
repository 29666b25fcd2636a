/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Size-range rules: a user's override of the decision per message size, the
 * value of coll_topo_<primitive>_rules, e.g.
 *     0-4k:swing_lat,4k-8M:trivance_bw,8M-inf:bucket
 * Each item is LO-HI:ALGORITHM, bytes in [LO, HI); sizes are integers with
 * an optional binary suffix k, m or g (1k = 1024, either case); HI may be
 * "inf".  Items must be in increasing order without overlap; sizes that no
 * item covers are left to the automatic decision.  ALGORITHM may also be
 * "previous": the calls of that range go to the previous module (the
 * coll component selected before coll/topo, e.g. tuned).
 *
 * Groups by communicator size: the items may be split into groups by ';',
 * and a group may start with NP@, the communicator sizes it is for: N
 * (exactly N ranks), N-M (N to M, both included) or N-inf, e.g.
 *     16-inf@64k-1m:pipelined_chain,1m-inf:previous;0-4k:binomial
 * A communicator takes the first group whose sizes hold its own (a group
 * without NP@ holds every size); the other groups do not apply to it, and
 * with none, every payload is automatic.  Measurements on N ranks
 * (scripts/bench-algorithms.sh) thus stay with communicators of N ranks.
 */
#ifndef TOPO_RULES_H
#define TOPO_RULES_H

#include "catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most ranges a value may give (all its groups together), and the most
 * groups.  A longer value is reported and ignored. */
#define TOPO_MAX_RULES 64
#define TOPO_MAX_RULE_GROUPS 16
/* The characters of an item an error's reason quotes before "...". */
#define TOPO_RULES_QUOTE 40
/* The name of a rule that hands its range to the previous module. */
#define TOPO_RULES_PREVIOUS "previous"

typedef struct {
    size_t lo, hi; /* [lo, hi); hi = SIZE_MAX for "inf" */
    const topo_algo_t *algo; /* NULL where previous */
    int previous;            /* TOPO_RULES_PREVIOUS: the previous module */
    int np_lo, np_hi;        /* its group's communicator sizes (INT_MAX: no bound) */
} topo_rule_t;

typedef struct {
    int np_lo, np_hi; /* communicator sizes [np_lo, np_hi]; 1, INT_MAX without NP@ */
    int first, n;     /* its rules: rule[first, first + n) */
} topo_rules_group_t;

typedef struct {
    int n;
    topo_rule_t rule[TOPO_MAX_RULES];
    int ngroups;
    topo_rules_group_t group[TOPO_MAX_RULE_GROUPS];
} topo_rules_t;

/* Parse `str` for primitive `prim`.  An empty string gives no rules.  On error
 * returns TOPO_EINVAL with a one-line reason, then the offending item (its
 * first TOPO_RULES_QUOTE characters) and where it starts, e.g.
 * "too many ranges (at most 64) (item '64-65:ring' at character 601)": at
 * most 200 characters, whatever the value's length. */
int topo_rules_parse(const char *str, topo_prim_t prim, topo_rules_t *rules, char *err,
                     size_t errlen);
/* A rule's bound as the rules spell it: "inf" for SIZE_MAX, else bytes
 * with the largest binary suffix (g, m, k) that divides them, e.g. 4k. */
void topo_rules_format_size(size_t v, char *buf, size_t len);
/* A rule as the verbose output names it: its range, after NP@ when its
 * group is not for every size (e.g. "16@64k-1m", "0-4k"). */
void topo_rules_format_rule(const topo_rule_t *r, char *buf, size_t len);
/* The group of rules for a communicator of `size` ranks, or NULL (none:
 * every payload automatic). */
const topo_rules_group_t *topo_rules_group(const topo_rules_t *rules, int size);
/* The rule covering `bytes` on a communicator of `size` ranks, or NULL
 * (automatic).  O(groups + log k). */
const topo_rule_t *topo_rules_find(const topo_rules_t *rules, int size, size_t bytes);
/* The algorithm the rules give for `bytes` on `size` ranks, or NULL
 * (automatic, or a `previous` rule: see topo_rules_find). */
const topo_algo_t *topo_rules_lookup(const topo_rules_t *rules, int size, size_t bytes);

/* A byte limit per primitive, the value of coll_topo_host_handoff, e.g.
 *     bcast:4k,reduce:64k
 * Items PRIMITIVE:BYTES (a size as in the rules, not "inf"), each primitive
 * at most once; "none" or an empty string: no limits.  lim[prim] gets the
 * primitive's bytes, 0 where none is given.  On error returns TOPO_EINVAL
 * with a one-line reason naming the offending item (lim unchanged). */
int topo_prim_limits_parse(const char *str, size_t lim[TOPO_PRIM_COUNT], char *err, size_t errlen);

/* A payload as the tools take it (topo-plan's and topo-sim's --sizes): a
 * non-negative number with an optional k, M or G (binary multiples, "KiB"
 * and "MB" alike), e.g. "8", "64k", "1.5M", "16MiB".  TOPO_OK with *bytes
 * (rounded down to a whole byte), or TOPO_EINVAL. */
int topo_bytes_parse(const char *s, double *bytes);

#ifdef __cplusplus
}
#endif
#endif
