/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: size-range rules (core/rules.c). */
#include "route.h"
#include "rules.h"
#include "unit_common.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_parse_and_lookup)
{
    topo_rules_t r;
    char err[256];
    ck_assert_int_eq(topo_rules_parse("0-4k:recursive_doubling,4k-8M:rabenseifner,8M-inf:ring",
                                      TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(r.n, 3);
    ck_assert_uint_eq(r.rule[0].hi, 4096);
    ck_assert_uint_eq(r.rule[1].hi, 8u << 20);
    ck_assert_uint_eq(r.rule[2].hi, SIZE_MAX);
    ck_assert_str_eq(topo_rules_lookup(&r, 4, 0)->name, "recursive_doubling");
    ck_assert_str_eq(topo_rules_lookup(&r, 4, 4095)->name, "recursive_doubling");
    ck_assert_str_eq(topo_rules_lookup(&r, 4, 4096)->name, "rabenseifner");
    ck_assert_str_eq(topo_rules_lookup(&r, 4, (8u << 20) - 1)->name, "rabenseifner");
    ck_assert_str_eq(topo_rules_lookup(&r, 4, 8u << 20)->name, "ring");
    ck_assert_str_eq(topo_rules_lookup(&r, 4, SIZE_MAX)->name, "ring");
}
END_TEST

/* "previous": the range's calls go to the previous module (no algorithm) */
START_TEST(test_previous)
{
    topo_rules_t r;
    char err[256];
    ck_assert_int_eq(topo_rules_parse("0-1k:previous,1k-64k:ring,64k-inf:previous",
                                      TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(r.n, 3);
    const topo_rule_t *a = topo_rules_find(&r, 4, 0), *b = topo_rules_find(&r, 4, 1024),
                      *c = topo_rules_find(&r, 4, SIZE_MAX);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(a->previous, 1);
    ck_assert_ptr_null(a->algo);
    ck_assert_int_eq(b->previous, 0);
    ck_assert_str_eq(b->algo->name, "ring");
    ck_assert_int_eq(c->previous, 1);
    /* the lookup of an algorithm gives none for it */
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, 1023));
    /* any primitive, barrier included */
    ck_assert_int_eq(topo_rules_parse("0-inf:previous", TOPO_PRIM_BARRIER, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(topo_rules_find(&r, 4, 0)->previous, 1);
    /* a name that only starts like it is no algorithm */
    ck_assert_int_eq(
        topo_rules_parse("0-inf:previously", TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
        TOPO_EINVAL);
    ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(test_gaps_are_automatic)
{
    topo_rules_t r;
    char err[256];
    ck_assert_int_eq(topo_rules_parse("1K-2K:ring,1g-2G:rabenseifner", TOPO_PRIM_ALLREDUCE, &r,
                                      err, sizeof(err)),
                     TOPO_OK);
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, 0));
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, 1023));
    ck_assert_ptr_nonnull(topo_rules_lookup(&r, 4, 1024));
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, 2048));
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, (size_t)1 << 29));
    ck_assert_str_eq(topo_rules_lookup(&r, 4, (size_t)1 << 30)->name, "rabenseifner");
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, (size_t)2 << 30));
    /* empty: no rules, everything automatic */
    ck_assert_int_eq(topo_rules_parse("", TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(r.n, 0);
    ck_assert_ptr_null(topo_rules_lookup(&r, 4, 100));
}
END_TEST

START_TEST(test_malformed)
{
    static const struct {
        const char *in, *needle;
    } bad[] = {
        {"0-4k", "':'"},
        {"0-4k:", "algorithm name"},
        {"0-4k:nonesuch", "no algorithm 'nonesuch'"},
        {"4k-0:ring", "empty"},
        {"4k-4k:ring", "empty"},
        {"0-8k:ring,4k-16k:ring", "overlap"},
        {"8k-16k:ring,0-4k:ring", "increasing"},
        {"x-4k:ring", "size"},
        {"0:ring", "'-'"},
        {"0-4q:ring", "':'"},
        {"inf-4k:ring", "size"},
        {"0-inf:ring,", "size"},
        {",0-4k:ring", "size"},
        {"0-99999999999999999999:ring", "upper bound"},
        {"0-4k:ring;4k-inf:rong", "no algorithm 'rong'"},
        /* groups by communicator size */
        {"16@", "size"},
        {"@0-inf:ring", "communicator sizes"},
        {"0@0-inf:ring", "1 or more"},
        {"8-4@0-inf:ring", "1 or more"},
        {"4-x@0-inf:ring", "'@' after"},
        {"4inf@0-inf:ring", "'@' after"},
        {"99999999999@0-inf:ring", "1 or more"},
        {"4@0-inf:ring;", "size"},
        {"4@0-inf:ring;;0-inf:ring", "size"},
        {"0-inf:ring@4", "'@' after"},
        {"4@0-8k:ring,4k-16k:ring", "overlap"},
        {"1@0-1:ring;2@0-1:ring;3@0-1:ring;4@0-1:ring;5@0-1:ring;6@0-1:ring;7@0-1:ring;"
         "8@0-1:ring;9@0-1:ring;10@0-1:ring;11@0-1:ring;12@0-1:ring;13@0-1:ring;14@0-1:ring;"
         "15@0-1:ring;16@0-1:ring;17@0-1:ring",
         "too many groups"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        topo_rules_t r;
        char err[256] = "";
        ck_assert_msg(topo_rules_parse(bad[i].in, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)) ==
                          TOPO_EINVAL,
                      "'%s' accepted", bad[i].in);
        ck_assert_msg(strstr(err, bad[i].needle), "'%s': reason '%s' lacks '%s'", bad[i].in, err,
                      bad[i].needle);
        ck_assert_int_eq(r.n, 0); /* nothing half-parsed is kept */
    }
    /* an algorithm of another primitive */
    topo_rules_t r;
    char err[256];
    ck_assert_int_eq(topo_rules_parse("0-inf:dissemination", TOPO_PRIM_ALLREDUCE, &r, err,
                                      sizeof(err)),
                     TOPO_EINVAL);
    ck_assert_int_eq(topo_rules_parse("0-inf:dissemination", TOPO_PRIM_BARRIER, &r, err,
                                      sizeof(err)),
                     TOPO_OK);
}
END_TEST

/* A bound as topo_rules_format_size spells it parses back to itself. */
START_TEST(test_format_size)
{
    static const struct {
        size_t v;
        const char *text;
    } cases[] = {{0, "0"},           {1, "1"},           {1023, "1023"},
                 {1024, "1k"},       {1536, "1536"},     {3072, "3k"},
                 {1u << 20, "1m"},   {(size_t)5 << 30, "5g"},   {(1u << 30) + 1024, "1048577k"},
                 {SIZE_MAX, "inf"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[32], rule[64], err[256];
        topo_rules_t r;
        topo_rules_format_size(cases[i].v, text, sizeof(text));
        ck_assert_str_eq(text, cases[i].text);
        if (SIZE_MAX == cases[i].v) {
            continue;
        }
        /* as the upper bound of a rule from 0 (an empty range for 0) */
        snprintf(rule, sizeof(rule), "0-%s:ring", text);
        if (0 == cases[i].v) {
            continue;
        }
        ck_assert_int_eq(topo_rules_parse(rule, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                         TOPO_OK);
        ck_assert_uint_eq(r.rule[0].hi, cases[i].v);
    }
}
END_TEST

/* Groups by communicator size: the first group whose sizes hold the
 * communicator's applies, alone; the ranges of different groups are
 * independent; a size no group holds is automatic at every payload. */
START_TEST(test_groups)
{
    topo_rules_t r;
    char err[256];
    ck_assert_int_eq(topo_rules_parse("16-inf@0-4k:recursive_doubling,64k-inf:previous;"
                                      "2@0-inf:ring;4-8@1k-2k:rabenseifner;0-1k:ring",
                                      TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(r.n, 5);
    ck_assert_int_eq(r.ngroups, 4);
    /* 16 and more ranks: the first group; its gap is automatic, not the
     * last group's 0-1k */
    ck_assert_str_eq(topo_rules_lookup(&r, 16, 100)->name, "recursive_doubling");
    ck_assert_str_eq(topo_rules_lookup(&r, 1 << 20, 100)->name, "recursive_doubling");
    ck_assert_ptr_null(topo_rules_find(&r, 16, 8192));
    ck_assert_int_eq(topo_rules_find(&r, 64, 1 << 20)->previous, 1);
    /* exactly 2 */
    ck_assert_str_eq(topo_rules_lookup(&r, 2, SIZE_MAX)->name, "ring");
    /* 4 to 8: only 1k-2k */
    ck_assert_ptr_null(topo_rules_find(&r, 4, 100));
    ck_assert_str_eq(topo_rules_lookup(&r, 8, 1500)->name, "rabenseifner");
    ck_assert_ptr_null(topo_rules_find(&r, 8, 2048));
    /* every other size: the group without NP@ */
    for (int np = 1; np < 16; np++) {
        if (2 == np || (np >= 4 && np <= 8)) {
            continue;
        }
        ck_assert_str_eq(topo_rules_lookup(&r, np, 1023)->name, "ring");
        ck_assert_ptr_null(topo_rules_find(&r, np, 1024));
    }
    ck_assert_ptr_null(topo_rules_group(&r, 0));
    /* the rules as the verbose lines name them */
    static const char *const names[] = {"16-inf@0-4k", "16-inf@64k-inf", "2@0-inf", "4-8@1k-2k",
                                        "0-1k"};
    for (int i = 0; i < r.n; i++) {
        char text[96];
        topo_rules_format_rule(&r.rule[i], text, sizeof(text));
        ck_assert_str_eq(text, names[i]);
    }
    /* without a group for a size: nothing applies to it */
    ck_assert_int_eq(topo_rules_parse("2@0-inf:ring", TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_ptr_nonnull(topo_rules_group(&r, 2));
    ck_assert_ptr_null(topo_rules_group(&r, 3));
    ck_assert_ptr_null(topo_rules_find(&r, 3, 0));
    /* overlapping sizes: the first group wins */
    ck_assert_int_eq(topo_rules_parse("2-4@0-inf:ring;2@0-inf:recursive_doubling",
                                      TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_str_eq(topo_rules_lookup(&r, 2, 0)->name, "ring");
}
END_TEST

/* coll_topo_host_handoff's values: a byte limit per primitive */
START_TEST(test_prim_limits)
{
    char err[256];
    size_t lim[TOPO_PRIM_COUNT];
    ck_assert_int_eq(topo_prim_limits_parse("bcast:4k, reduce:64K", lim, err, sizeof(err)),
                     TOPO_OK);
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        const size_t want = TOPO_PRIM_BCAST == i ? 4096 : TOPO_PRIM_REDUCE == i ? 65536 : 0;
        ck_assert_uint_eq(lim[i], want);
    }
    ck_assert_int_eq(topo_prim_limits_parse("allreduce:100", lim, err, sizeof(err)), TOPO_OK);
    ck_assert_uint_eq(lim[TOPO_PRIM_ALLREDUCE], 100);
    ck_assert_uint_eq(lim[TOPO_PRIM_REDUCE], 0);
    static const char *const empty[] = {"", "none", " none ", NULL};
    for (int i = 0; i < 4; i++) {
        lim[TOPO_PRIM_BCAST] = 7;
        ck_assert_int_eq(topo_prim_limits_parse(empty[i], lim, err, sizeof(err)), TOPO_OK);
        ck_assert_uint_eq(lim[TOPO_PRIM_BCAST], 0);
    }
    static const struct {
        const char *str, *says;
    } bad[] = {
        {"bcast", "'bcast' is not PRIMITIVE:BYTES"},
        {"gather:4k", "'gather:4k' is not PRIMITIVE:BYTES"},
        {"bcast:4k,bcast:8k", "bcast is given twice"},
        {"bcast:inf", "the bytes are not a size"},
        {"bcast:x", "the bytes are not a size"},
        {"bcast:4kb", "something follows the size"},
        {"bcast:4k,", "'' is not PRIMITIVE:BYTES"},
        {"none,bcast:4k", "'none' is not PRIMITIVE:BYTES"},
        {"none bcast:4k", "'none' must stand alone"},
        {"nonesuch:4k", "'nonesuch:4k' is not PRIMITIVE:BYTES"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        lim[TOPO_PRIM_BCAST] = 7;
        err[0] = '\0';
        ck_assert_msg(TOPO_EINVAL == topo_prim_limits_parse(bad[i].str, lim, err, sizeof(err)),
                      "'%s' accepted", bad[i].str);
        ck_assert_msg(NULL != strstr(err, bad[i].says), "'%s': '%s'", bad[i].str, err);
        ck_assert_uint_eq(lim[TOPO_PRIM_BCAST], 7);
    }
}
END_TEST

/* A value of more ranges or groups than the limits (rules.h): the reason is
 * given in full however long the value, and quotes at most
 * TOPO_RULES_QUOTE characters of the item. */
/* The tools' payload sizes (topo-plan and topo-sim --sizes). */
START_TEST(test_bytes_parse)
{
    static const struct {
        const char *s;
        double want; /* < 0: refused */
    } c[] = {{"8", 8},           {"0", 0},          {"64k", 65536},      {"64K", 65536},
             {"1M", 1048576},    {"16MiB", 16777216}, {"1.5M", 1572864}, {"2G", 2147483648.0},
             {"1kB", 1024},      {"100B", 100},     {"2.7", 2},          {"", -1},
             {"k", -1},          {"-1", -1},        {"1x", -1},          {"1MiBs", -1},
             {"nan", -1},        {"inf", -1},       {"1e30G", -1}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        double v = -7;
        const int rc = topo_bytes_parse(c[i].s, &v);
        if (c[i].want < 0) {
            ck_assert_msg(TOPO_EINVAL == rc, "'%s' accepted as %g", c[i].s, v);
            ck_assert(-7 == v);
        } else {
            ck_assert_msg(TOPO_OK == rc && v == c[i].want, "'%s': %d, %g", c[i].s, rc, v);
        }
    }
}
END_TEST

START_TEST(test_limits_reason_in_full)
{
    /* 64 ranges are fine, 65 are not */
    char value[4096] = "";
    size_t len = 0;
    for (int i = 0; i < TOPO_MAX_RULES + 1; i++) {
        len += (size_t)snprintf(value + len, sizeof(value) - len, "%s%d-%d:ring", i ? "," : "",
                                i * 1000, i * 1000 + 1000);
    }
    ck_assert_uint_gt(len, 600); /* longer than the message buffer */
    topo_rules_t r;
    char err[256] = "";
    ck_assert_int_eq(topo_rules_parse(value, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_EINVAL);
    ck_assert_int_eq(r.n, 0);
    char want[160];
    const size_t at = (size_t)(strstr(value, ",64000-") - value) + 2; /* 1-based */
    snprintf(want, sizeof(want),
             "too many ranges (at most 64) (item '64000-65000:ring' at character %zu)", at);
    ck_assert_str_eq(err, want);
    ck_assert_str_eq(value + at - 1, "64000-65000:ring");
    /* one range less parses */
    *strrchr(value, ',') = '\0';
    ck_assert_int_eq(topo_rules_parse(value, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(r.n, TOPO_MAX_RULES);

    /* 17 groups, each long: the group's item is quoted up to 40 characters */
    len = 0;
    for (int g = 1; g <= TOPO_MAX_RULE_GROUPS + 1; g++) {
        len += (size_t)snprintf(value + len, sizeof(value) - len, "%s%d@0-1:ring,1-2:ring,2-3:ring",
                                g > 1 ? ";" : "", g);
    }
    ck_assert_int_eq(topo_rules_parse(value, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_EINVAL);
    snprintf(want, sizeof(want),
             "too many groups (at most 16) (item '17@0-1:ring,1-2:ring,2-3:ring' at "
             "character %zu)",
             (size_t)(strstr(value, ";17@") - value) + 2);
    ck_assert_str_eq(err, want);
    /* an item longer than the quote, and an unknown algorithm */
    snprintf(value, sizeof(value), "0-1:ring,1-2:%s", "abcdefghijklmnopqrstuvwxyzabcdefghijklmn");
    ck_assert_int_eq(topo_rules_parse(value, TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)),
                     TOPO_EINVAL);
    ck_assert_str_eq(err, "allreduce has no algorithm 'abcdefghijklmnopqrstuvwxyzabcdefghijklmn' "
                          "(item '1-2:abcdefghijklmnopqrstuvwxyzabcdefghij...' at character 10)");
    ck_assert_uint_lt(strlen(err), 200);
    /* a short buffer keeps the reason, cutting the quote */
    char small[40];
    snprintf(value, sizeof(value), "0-1:ring,1-2:ring,2-1:ring");
    ck_assert_int_eq(topo_rules_parse(value, TOPO_PRIM_ALLREDUCE, &r, small, sizeof(small)),
                     TOPO_EINVAL);
    ck_assert_str_eq(small, "the range is empty (LO must be below HI");
}
END_TEST

START_TEST(test_route_order)
{
    /* route.h: forced first (even when it does not fit: the previous
     * module, never another algorithm), then the rule covering the size and
     * payload, then nothing (host, auto); the one-host limit only without a
     * forced algorithm or rules for the size; the two-rank test */
    topo_topology_t t = ut_topo("star");
    const topo_gen_args_t a = {.prim = TOPO_PRIM_ALLREDUCE, .size = 2, .rank = 0, .topo = &t};
    topo_rules_t rules;
    char err[256], why[256];
    ck_assert_int_eq(topo_rules_parse("2@0-1k:previous,1k-64k:ring", TOPO_PRIM_ALLREDUCE, &rules,
                                      err, sizeof(err)),
                     TOPO_OK);
    const topo_algo_t *ring = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "ring");
    const topo_algo_t *bfb = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "bfb");
    ck_assert(NULL != ring && NULL != bfb);
    topo_route_params_t p = {.rules = &rules, .host_limit = 4096};
    const topo_algo_t *algo;
    const topo_rule_t *rule;
    int by;
    ck_assert(topo_route_named(&p, &a, TOPO_OP_COMMUTATIVE, 8, &algo, &by, &rule, why,
                               sizeof(why)));
    ck_assert_int_eq(by, TOPO_BY_RULE);
    ck_assert_ptr_null(algo);
    ck_assert(rule->previous);
    ck_assert(topo_route_named(&p, &a, TOPO_OP_COMMUTATIVE, 2048, &algo, &by, &rule, why,
                               sizeof(why)));
    ck_assert_ptr_eq(algo, ring);
    ck_assert(!topo_route_named(&p, &a, TOPO_OP_COMMUTATIVE, 1 << 20, &algo, &by, &rule, why,
                                sizeof(why)));
    ck_assert_uint_eq(topo_route_host_limit(&p, 2), 0); /* rules for 2 ranks */
    ck_assert_uint_eq(topo_route_host_limit(&p, 4), 4096);
    p.forced = bfb;
    ck_assert_uint_eq(topo_route_host_limit(&p, 4), 0);
    ck_assert(topo_route_named(&p, &a, TOPO_OP_ORDERED, 2048, &algo, &by, &rule, why,
                               sizeof(why)));
    ck_assert_int_eq(by, TOPO_BY_FORCED);
    ck_assert_ptr_null(algo); /* bfb does not fit: the previous module, not the rule's ring */
    ck_assert(strlen(why) > 0);
    p.forced = ring;
    ck_assert(topo_route_named(&p, &a, TOPO_OP_COMMUTATIVE, 8, &algo, &by, &rule, why,
                               sizeof(why)));
    ck_assert_int_eq(by, TOPO_BY_FORCED);
    ck_assert_ptr_eq(algo, ring); /* over the rule's previous */
    /* the two-rank test: one step of one or two messages per rank, 2 ranks,
     * in the set, at most the eager limit; an exchange only to tuned */
    unsigned set;
    ck_assert_int_eq(topo_prim_set_parse(TOPO_ROUTE_TWO_RANKS_DEFAULT, &set, err, sizeof(err)),
                     TOPO_OK);
    topo_route_params_t q = {.two_ranks = set, .eager = 4032, .previous_tuned = 1};
    ck_assert(topo_route_two_ranks(&q, TOPO_PRIM_BCAST, 2, 8, 1, 1));
    ck_assert(topo_route_two_ranks(&q, TOPO_PRIM_BCAST, 2, 4032, 1, 1));
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_BCAST, 2, 4033, 1, 1));
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_BCAST, 3, 8, 1, 1));
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_BCAST, 2, 8, 2, 2));
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_ALLREDUCE, 2, 8, 2, 1)); /* not in the set */
    ck_assert(topo_route_two_ranks(&q, TOPO_PRIM_ALLGATHER, 2, 8, 2, 1));
    q.previous_tuned = 0;
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_ALLGATHER, 2, 8, 2, 1));
    ck_assert(topo_route_two_ranks(&q, TOPO_PRIM_REDUCE, 2, 8, 1, 1));
    q.eager = 0;
    ck_assert(!topo_route_two_ranks(&q, TOPO_PRIM_REDUCE, 2, 8, 1, 1));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = ut_tcase(s, "parse", 120);
    tcase_add_test(tc, test_parse_and_lookup);
    tcase_add_test(tc, test_previous);
    tcase_add_test(tc, test_gaps_are_automatic);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_format_size);
    tcase_add_test(tc, test_groups);
    tcase_add_test(tc, test_prim_limits);
    tcase_add_test(tc, test_bytes_parse);
    tcase_add_test(tc, test_limits_reason_in_full);
    tcase_add_test(tc, test_route_order);
    return ut_run_suite(s);
}
