/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the executor's packing and temporary-storage rules
 * (core/pack.h), which the plan compiler applies and the cost model
 * prices. */
#include "pack.h"
#include "schedule.h"
#include "unit_common.h"

#include <check.h>

/* One step of rank 0 of 4 over 8 blocks: a send of one range (0), a send of
 * two ranges (1), a receive in place (2), a receive of two ranges (3), a
 * reduction (4). */
static void one_step(topo_sched_t *s)
{
    topo_sched_init(s, 4, 0, 8);
    topo_sched_step(s);
    topo_sched_send(s, 1, 0, 1);
    topo_sched_send(s, 2, 1, 1);
    topo_sched_range(s, 3, 1);
    topo_sched_recv(s, 1, TOPO_XFER_RECV_COPY, 4, 1);
    topo_sched_recv(s, 2, TOPO_XFER_RECV_COPY, 5, 1);
    topo_sched_range(s, 7, 1);
    topo_sched_recv(s, 3, TOPO_XFER_RECV_REDUCE, 6, 1);
    ck_assert_int_eq(topo_sched_finish(s), TOPO_OK);
    ck_assert_int_eq(s->nxfers, 5);
}

START_TEST(test_sends)
{
    topo_sched_t s;
    one_step(&s);
    ck_assert(!topo_pack_send_packed(&s.xfers[0]));
    ck_assert(!topo_pack_copies(&s.xfers[0]));
    ck_assert(topo_pack_send_packed(&s.xfers[1]));
    ck_assert(topo_pack_copies(&s.xfers[1]));
    for (int i = 2; i < 5; i++) {
        ck_assert(!topo_pack_send_packed(&s.xfers[i])); /* receives */
    }
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_receives)
{
    topo_sched_t s;
    one_step(&s);
    ck_assert(!topo_pack_is_recv(&s.xfers[0]));
    ck_assert(!topo_pack_recv_staged(&s.xfers[0]));
    /* a direct receive of one range lands in place: nothing copied */
    ck_assert(topo_pack_is_recv(&s.xfers[2]));
    ck_assert_int_eq(s.xfers[2].direct, 1);
    ck_assert(!topo_pack_recv_staged(&s.xfers[2]));
    ck_assert(!topo_pack_copies(&s.xfers[2]));
    /* two ranges: staged and unpacked */
    ck_assert(topo_pack_recv_staged(&s.xfers[3]));
    ck_assert(topo_pack_copies(&s.xfers[3]));
    /* a reduction is staged, its bytes reduced (not priced as copied) */
    ck_assert(topo_pack_is_recv(&s.xfers[4]));
    ck_assert(topo_pack_recv_staged(&s.xfers[4]));
    ck_assert(!topo_pack_copies(&s.xfers[4]));
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_receive_not_direct)
{
    /* a receive into blocks the step also sends is not direct: staged */
    topo_sched_t s;
    topo_sched_init(&s, 2, 0, 2);
    topo_sched_step(&s);
    topo_sched_send(&s, 1, 0, 1);
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 0, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.xfers[1].direct, 0);
    ck_assert(topo_pack_recv_staged(&s.xfers[1]));
    ck_assert(topo_pack_copies(&s.xfers[1]));
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_copies)
{
    topo_sched_t s;
    topo_sched_init(&s, 2, 0, 8);
    s.uniform = 1;
    topo_sched_step(&s);
    topo_sched_copy(&s, 0, 1, 2); /* [0,2) -> [1,3): overlaps */
    topo_sched_step(&s);
    topo_sched_copy(&s, 0, 4, 2); /* [0,2) -> [4,6): does not */
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.nxfers, 2);
    ck_assert(topo_pack_copy_overlaps(s.ranges, &s.xfers[0]));
    ck_assert(!topo_pack_copy_overlaps(s.ranges, &s.xfers[1]));
    ck_assert(topo_pack_copies(&s.xfers[0]));
    ck_assert(topo_pack_copies(&s.xfers[1]));
    ck_assert(!topo_pack_is_recv(&s.xfers[0]));
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_ranges_meet)
{
    const topo_range_t a = {2, 3}, b = {4, 1}, c = {5, 2}, d = {0, 2};
    ck_assert(topo_pack_ranges_meet(&a, &b));
    ck_assert(topo_pack_ranges_meet(&b, &a));
    ck_assert(!topo_pack_ranges_meet(&a, &c)); /* [2,5) and [5,7) touch only */
    ck_assert(!topo_pack_ranges_meet(&d, &a)); /* [0,2) and [2,5) */
    ck_assert(topo_pack_ranges_meet(&a, &a));
}
END_TEST

START_TEST(test_span)
{
    ck_assert_uint_eq(topo_pack_span(8, 8, 0), 0);
    ck_assert_uint_eq(topo_pack_span(8, 8, 1), 16);
    ck_assert_uint_eq(topo_pack_span(8, 8, 2), 16);
    ck_assert_uint_eq(topo_pack_span(8, 8, 3), 32);
    /* a derived datatype: extent 12, true extent 20 (its data overhangs) */
    ck_assert_uint_eq(topo_pack_span(20, 12, 4), 64); /* 20 + 36 = 56 */
    for (size_t n = 1; n < 100; n++) {
        const size_t b = topo_pack_span(4, 4, n);
        ck_assert_uint_eq(b % 16, 0);
        ck_assert(b >= 4 * n && b < 4 * n + 16);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pack");
    TCase *tc = ut_tcase(s, "core", 60);
    tcase_add_test(tc, test_sends);
    tcase_add_test(tc, test_receives);
    tcase_add_test(tc, test_receive_not_direct);
    tcase_add_test(tc, test_copies);
    tcase_add_test(tc, test_ranges_meet);
    tcase_add_test(tc, test_span);
    return ut_run_suite(s);
}
