/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: topology strings and grid geometry (core/topology.c). */
#include "coords.h"
#include "schedule.h"
#include "topology.h"
#include "unit_common.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_valid_strings)
{
    static const struct {
        const char *in, *canon;
        int kind, size;
    } cases[] = {
        {"auto", "auto", TOPO_NET_AUTO, 0},
        {"star", "star", TOPO_NET_STAR, 0},
        {"fullmesh", "fullmesh", TOPO_NET_FULLMESH, 0},
        {"torus:4x4x2", "torus:4x4x2", TOPO_NET_TORUS, 32},
        {"torus:16", "torus:16", TOPO_NET_TORUS, 16},
        {"mesh:8x8", "mesh:8x8", TOPO_NET_MESH, 64},
        {"torus:1x1", "torus:1x1", TOPO_NET_TORUS, 1},
        {"torus:2x2x2x2x2x2x2x2", "torus:2x2x2x2x2x2x2x2", TOPO_NET_TORUS, 256},
        {"torus:4x4,ports=2", "torus:4x4,ports=2", TOPO_NET_TORUS, 16},
        {"star,ports=4", "star,ports=4", TOPO_NET_STAR, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        topo_topology_t t = ut_topo(cases[i].in);
        char buf[128];
        ck_assert_int_eq(t.kind, cases[i].kind);
        ck_assert_int_eq(topo_topology_size(&t), cases[i].size);
        topo_topology_format(&t, buf, sizeof(buf));
        ck_assert_str_eq(buf, cases[i].canon);
    }
    topo_topology_t t = ut_topo("torus:4x3");
    ck_assert_int_eq(t.ndims, 2);
    ck_assert(t.periodic[0] && t.periodic[1]);
    t = ut_topo("mesh:4x3");
    ck_assert(!t.periodic[0] && !t.periodic[1]);
}
END_TEST

START_TEST(test_malformed_strings)
{
    static const char *bad[] = {
        "", "Star", "ring:4", "torus", "torus:", "torus:4x", "torus:x4", "torus:4xQ",
        "torus:0x4", "mesh:-1", "mesh:4x4 ", " torus:4", "torus:4,4", "torus:4x4x4x4x4x4x4x4x4",
        "torus:100000x100000", "torus:99999999999999999999", "mesh:+4", "fullmesh:4",
        "torus:4x4,ports=0", "torus:4x4,ports=", "torus:4x4,port=2", "torus:4x4,ports=2x",
        "torus:4xQ,ports=2", "star,", ",ports=2",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        topo_topology_t t;
        char err[256] = "";
        ck_assert_msg(topo_topology_parse(bad[i], &t, err, sizeof(err)) == TOPO_EINVAL,
                      "'%s' accepted", bad[i]);
        ck_assert_msg(strlen(err) > 0, "no reason for '%s'", bad[i]);
    }
    topo_topology_t t;
    char err[256];
    ck_assert_int_eq(topo_topology_parse(NULL, &t, err, sizeof(err)), TOPO_EINVAL);
    /* the reason names the offending value */
    topo_topology_parse("torus:4xQ", &t, err, sizeof(err));
    ck_assert_ptr_nonnull(strstr(err, "torus:4xQ"));
}
END_TEST

START_TEST(test_coords_roundtrip)
{
    topo_topology_t t = ut_topo("torus:3x5x2");
    int c[TOPO_MAX_DIMS];
    for (int r = 0; r < 30; r++) {
        topo_topology_coords(&t, r, c);
        ck_assert_int_eq(topo_topology_rank(&t, c), r);
    }
    /* row-major: the last dimension varies fastest */
    topo_topology_coords(&t, 1, c);
    ck_assert_int_eq(c[2], 1);
    topo_topology_coords(&t, 2, c);
    ck_assert_int_eq(c[1], 1);
    ck_assert_int_eq(c[2], 0);
}
END_TEST

START_TEST(test_hops)
{
    topo_topology_t torus = ut_topo("torus:8x8");
    topo_topology_t mesh = ut_topo("mesh:8x8");
    topo_topology_t star = ut_topo("star");
    /* (0,0) -> (0,7): one hop around the wraparound, seven on the mesh */
    ck_assert_int_eq(topo_topology_hops(&torus, 0, 7), 1);
    ck_assert_int_eq(topo_topology_hops(&mesh, 0, 7), 7);
    /* (0,0) -> (4,4): the torus diameter */
    ck_assert_int_eq(topo_topology_hops(&torus, 0, 36), 8);
    ck_assert_int_eq(topo_topology_hops(&mesh, 0, 63), 14);
    ck_assert_int_eq(topo_topology_hops(&star, 3, 5), 1);
    ck_assert_int_eq(topo_topology_hops(&star, 3, 3), 0);
    /* symmetric */
    for (int a = 0; a < 64; a += 5) {
        for (int b = 0; b < 64; b += 3) {
            ck_assert_int_eq(topo_topology_hops(&torus, a, b), topo_topology_hops(&torus, b, a));
        }
    }
}
END_TEST

START_TEST(test_ports)
{
    topo_topology_t t = ut_topo("torus:4x4x2");
    ck_assert_int_eq(topo_topology_ports(&t, 32), 5); /* 2 + 2 + 1 (a ring of 2) */
    t = ut_topo("torus:8x8");
    ck_assert_int_eq(topo_topology_ports(&t, 64), 4);
    t = ut_topo("star");
    ck_assert_int_eq(topo_topology_ports(&t, 64), 1);
    t = ut_topo("fullmesh");
    ck_assert_int_eq(topo_topology_ports(&t, 8), 7);
    t.ports = 3;
    ck_assert_int_eq(topo_topology_ports(&t, 8), 3);
    t = ut_topo("torus:4x4x2,ports=1");
    ck_assert_int_eq(topo_topology_ports(&t, 32), 1);
}
END_TEST

/* topo_coords_parse on the text `t`, for `host`: its return code, the
 * position and the line in pos/line, the reason in err */
static int coords(const char *t, const char *host, topo_topology_t *shape, int *pos, int *line,
                  char *err)
{
    return topo_coords_parse(t, strlen(t), host, shape, pos, line, err, 256);
}

START_TEST(test_coords_file)
{
    topo_topology_t sh;
    int pos = 7, line = 7;
    char err[256];
    const char *good = "# a machine\n\ntorus:2x3   # its shape\nn0 0 0\nn1 0 1\n  n5 1 2\nn4 1 1";
    ck_assert_int_eq(coords(good, "n5", &sh, &pos, &line, err), TOPO_OK);
    ck_assert_int_eq(sh.kind, TOPO_NET_TORUS);
    ck_assert_int_eq(sh.ndims, 2);
    ck_assert_int_eq(sh.dims[1], 3);
    ck_assert_int_eq(pos, 5);
    ck_assert_int_eq(coords(good, "n4", &sh, &pos, &line, err), TOPO_OK);
    ck_assert_int_eq(pos, 4); /* the last line, without a newline */
    /* a host without a line: the shape, position -1, no error */
    ck_assert_int_eq(coords(good, "n9", &sh, &pos, &line, err), TOPO_OK);
    ck_assert_int_eq(pos, -1);
    ck_assert_int_eq(sh.kind, TOPO_NET_TORUS);
    ck_assert_int_eq(coords("mesh:4\nh0 0\nh3 3\n", "h3", &sh, &pos, &line, err), TOPO_OK);
    ck_assert_int_eq(sh.kind, TOPO_NET_MESH);
    ck_assert_int_eq(pos, 3);

    /* the file's problems: the line, the reason, and the shape kept where
     * it was valid */
    static const struct {
        const char *text;
        int line;
        const char *why;
        int grid; /* the shape is kept */
    } bad[] = {
        {"torus:2x2\nn0 0 0\nn1 0 2\n", 3, "host 'n1': coordinate '2' is not an integer", 1},
        {"torus:2x2\nn0 0 0\nn1 0 x\n", 3, "coordinate 'x'", 1},
        {"torus:2x2\nn0 0\n", 2, "has fewer coordinates than the shape's 2", 1},
        {"torus:2x2\nn0 0 0 1\n", 2, "has more coordinates than the shape's 2", 1},
        {"torus:2x2\nn0 0 0\nn1 0 0\n", 3, "a position an earlier line already gave", 1},
        {"torus:2x2\nn5 0 0\nn1 0 1\nn5 1 1\n", 4, "host 'n5' is listed twice (first on line 2)",
         1},
        {"torus:2x2 n0\n", 1, "the machine's shape alone", 0},
        {"# only comments\n\n", 0, "no shape line", 0},
        {"star\nn0 0\n", 1, "is not a grid", 0},
        {"torus:0x2\n", 1, "the shape is not valid", 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        ck_assert_int_eq(coords(bad[i].text, "n5", &sh, &pos, &line, err), TOPO_EINVAL);
        ck_assert_msg(NULL != strstr(err, bad[i].why), "case %zu: '%s'", i, err);
        ck_assert_int_eq(line, bad[i].line);
        ck_assert_int_eq(pos, -1);
        ck_assert_int_eq(sh.kind, bad[i].grid ? TOPO_NET_TORUS : TOPO_NET_STAR);
    }
    /* a line longer than the longest read */
    char *big = malloc(TOPO_COORDS_LINE_MAX + 64);
    ck_assert_ptr_nonnull(big);
    strcpy(big, "mesh:2\n");
    memset(big + 7, 'a', TOPO_COORDS_LINE_MAX);
    big[7 + TOPO_COORDS_LINE_MAX] = '\0';
    ck_assert_int_eq(coords(big, "n0", &sh, &pos, &line, err), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "longer than"));
    ck_assert_int_eq(line, 2);
    free(big);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("topology");
    TCase *tc = ut_tcase(s, "core", 120);
    tcase_add_test(tc, test_valid_strings);
    tcase_add_test(tc, test_malformed_strings);
    tcase_add_test(tc, test_coords_roundtrip);
    tcase_add_test(tc, test_hops);
    tcase_add_test(tc, test_ports);
    tcase_add_test(tc, test_coords_file);
    return ut_run_suite(s);
}
