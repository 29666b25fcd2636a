/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: fabric coordinates -> grid and position (core/fabric.c), the
 * MPI-free half of the PMIx topology source. */
#include "fabric.h"
#include "unit_common.h"

#include <check.h>
#include <string.h>

START_TEST(test_shape_string)
{
    topo_topology_t t;
    char err[256];
    ck_assert_int_eq(topo_fabric_shape("10x12x2", TOPO_NET_TORUS, &t, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(t.kind, TOPO_NET_TORUS);
    ck_assert_int_eq(t.ndims, 3);
    ck_assert_int_eq(t.dims[0], 10);
    ck_assert_int_eq(t.dims[1], 12);
    ck_assert_int_eq(t.dims[2], 2);
    ck_assert_int_eq(topo_topology_size(&t), 240);
    ck_assert_int_eq(topo_fabric_shape("8", TOPO_NET_MESH, &t, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(t.kind, TOPO_NET_MESH);
    ck_assert_int_eq(topo_topology_size(&t), 8);
    static const char *const bad[] = {"", "x4", "4x", "4xx4", "4x-2", "4y4", "99999999999x2",
                                      "1x1x1x1x1x1x1x1x1", "0x4"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        ck_assert_msg(TOPO_EINVAL == topo_fabric_shape(bad[i], TOPO_NET_TORUS, &t, err, sizeof(err)),
                      "shape '%s' accepted", bad[i]);
        ck_assert_msg('\0' != err[0], "shape '%s': no reason", bad[i]);
    }
    ck_assert_int_eq(topo_fabric_shape("4x4", TOPO_NET_STAR, &t, err, sizeof(err)), TOPO_EINVAL);
}
END_TEST

START_TEST(test_dims_and_position)
{
    topo_topology_t t;
    char err[256];
    const uint32_t dims[] = {4, 3, 2};
    ck_assert_int_eq(topo_fabric_dims(dims, 3, TOPO_NET_TORUS, &t, err, sizeof(err)), TOPO_OK);
    int pos = -1;
    /* row-major, the last dimension fastest: (1, 2, 1) = 1*6 + 2*2 + 1 */
    const uint32_t c[] = {1, 2, 1};
    ck_assert_int_eq(topo_fabric_position(&t, c, 3, &pos, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(pos, 11);
    int back[3];
    topo_topology_coords(&t, pos, back);
    ck_assert_int_eq(back[0], 1);
    ck_assert_int_eq(back[1], 2);
    ck_assert_int_eq(back[2], 1);
    const uint32_t out[] = {1, 3, 1};
    ck_assert_int_eq(topo_fabric_position(&t, out, 3, &pos, err, sizeof(err)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "outside 0..2"));
    ck_assert_int_eq(topo_fabric_position(&t, c, 2, &pos, err, sizeof(err)), TOPO_EINVAL);
    ck_assert_int_eq(topo_fabric_dims(dims, 0, TOPO_NET_TORUS, &t, err, sizeof(err)), TOPO_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fabric");
    TCase *tc = ut_tcase(s, "fabric", 120);
    tcase_add_test(tc, test_shape_string);
    tcase_add_test(tc, test_dims_and_position);
    return ut_run_suite(s);
}
