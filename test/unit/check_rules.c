/* Unit tests: size-range rules (core/rules.c). */
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
    ck_assert_str_eq(topo_rules_lookup(&r, 0)->name, "recursive_doubling");
    ck_assert_str_eq(topo_rules_lookup(&r, 4095)->name, "recursive_doubling");
    ck_assert_str_eq(topo_rules_lookup(&r, 4096)->name, "rabenseifner");
    ck_assert_str_eq(topo_rules_lookup(&r, (8u << 20) - 1)->name, "rabenseifner");
    ck_assert_str_eq(topo_rules_lookup(&r, 8u << 20)->name, "ring");
    ck_assert_str_eq(topo_rules_lookup(&r, SIZE_MAX)->name, "ring");
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
    const topo_rule_t *a = topo_rules_find(&r, 0), *b = topo_rules_find(&r, 1024),
                      *c = topo_rules_find(&r, SIZE_MAX);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(a->previous, 1);
    ck_assert_ptr_null(a->algo);
    ck_assert_int_eq(b->previous, 0);
    ck_assert_str_eq(b->algo->name, "ring");
    ck_assert_int_eq(c->previous, 1);
    /* the lookup of an algorithm gives none for it */
    ck_assert_ptr_null(topo_rules_lookup(&r, 1023));
    /* any primitive, barrier included */
    ck_assert_int_eq(topo_rules_parse("0-inf:previous", TOPO_PRIM_BARRIER, &r, err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(topo_rules_find(&r, 0)->previous, 1);
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
    ck_assert_ptr_null(topo_rules_lookup(&r, 0));
    ck_assert_ptr_null(topo_rules_lookup(&r, 1023));
    ck_assert_ptr_nonnull(topo_rules_lookup(&r, 1024));
    ck_assert_ptr_null(topo_rules_lookup(&r, 2048));
    ck_assert_ptr_null(topo_rules_lookup(&r, (size_t)1 << 29));
    ck_assert_str_eq(topo_rules_lookup(&r, (size_t)1 << 30)->name, "rabenseifner");
    ck_assert_ptr_null(topo_rules_lookup(&r, (size_t)2 << 30));
    /* empty: no rules, everything automatic */
    ck_assert_int_eq(topo_rules_parse("", TOPO_PRIM_ALLREDUCE, &r, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(r.n, 0);
    ck_assert_ptr_null(topo_rules_lookup(&r, 100));
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
        {"0-4k:ring;4k-inf:ring", "no algorithm"},
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

int main(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_and_lookup);
    tcase_add_test(tc, test_previous);
    tcase_add_test(tc, test_gaps_are_automatic);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_format_size);
    suite_add_tcase(s, tc);
    return ut_run_suite(s);
}
