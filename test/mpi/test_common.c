/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the MPI test programs; see test_common.h. */
#include "test_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char prefix[128] = "test";
static long nfail;

void tt_init(const char *progname)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(prefix, sizeof prefix, "%s[%d]", progname, rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

static void vreport(const char *kind, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "%s: %s%s\n", prefix, kind, msg);
    fflush(stderr);
}

void tt_fail(const char *fmt, ...)
{
    va_list ap;
    nfail++;
    va_start(ap, fmt);
    vreport("FAIL: ", fmt, ap);
    va_end(ap);
}

void tt_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
}

long tt_failures(void)
{
    return nfail;
}

void tt_check_mpi(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char err[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, err, &len);
    tt_fail("%s returned %d (%s)", what, rc, err);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

uint64_t tt_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

void tt_buf_prepare(tt_buf_t *b, size_t n)
{
    size_t need = n + 2 * TT_GUARD_BYTES;
    if (b->base == NULL || b->cap < need) {
        free(b->base);
        b->base = malloc(need);
        b->cap = need;
        if (b->base == NULL) {
            tt_fail("out of memory allocating %zu bytes", need);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    b->n = n;
    b->p = b->base + TT_GUARD_BYTES;
    memset(b->base, TT_SENTINEL_BYTE, TT_GUARD_BYTES);
    memset(b->p + n, TT_SENTINEL_BYTE, TT_GUARD_BYTES);
}

void tt_buf_free(tt_buf_t *b)
{
    free(b->base);
    b->base = b->p = NULL;
    b->n = b->cap = 0;
}

void tt_buf_fill_sentinel(tt_buf_t *b)
{
    memset(b->p, TT_SENTINEL_BYTE, b->n);
}

int tt_buf_guards_ok(const tt_buf_t *b, long *bad_offset)
{
    for (long i = 0; i < TT_GUARD_BYTES; i++) {
        if (b->base[i] != TT_SENTINEL_BYTE) {
            *bad_offset = i - TT_GUARD_BYTES;
            return 0;
        }
    }
    for (size_t i = 0; i < TT_GUARD_BYTES; i++) {
        if (b->p[b->n + i] != TT_SENTINEL_BYTE) {
            *bad_offset = (long)(b->n + i);
            return 0;
        }
    }
    return 1;
}

static int wanted(const char *which, const char *name)
{
    if (which == NULL || *which == '\0')
        return 1;
    size_t len = strlen(name);
    for (const char *p = which; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static void fill_comm(tt_comm_t *c, MPI_Comm comm, const char *name, int owned)
{
    MPI_Group g, wg;
    c->comm = comm;
    c->name = name;
    c->owned = owned;
    MPI_Comm_rank(comm, &c->rank);
    MPI_Comm_size(comm, &c->size);
    if (owned) {
        MPI_Comm_set_name(comm, name);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }
    /* Map communicator ranks to world ranks locally (no collective). */
    int *ranks = malloc(sizeof(int) * c->size);
    c->world_of = malloc(sizeof(int) * c->size);
    for (int i = 0; i < c->size; i++)
        ranks[i] = i;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, c->size, ranks, wg, c->world_of);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ranks);
}

int tt_comms_create(tt_comm_t *out, const char *which)
{
    int wrank, wsize, n = 0;
    MPI_Comm comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    /* Every rank creates the same communicators in the same order, whatever
     * `which` says, only the selection differs; `which` is the same
     * everywhere because it comes from the command line. */
    if (wanted(which, "world"))
        fill_comm(&out[n++], MPI_COMM_WORLD, "world", 0);
    if (wanted(which, "dup")) {
        tt_check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
        fill_comm(&out[n++], comm, "dup", 1);
    }
    if (wanted(which, "split")) {
        tt_check_mpi(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - 1 - wrank, &comm),
                     "MPI_Comm_split(split)");
        fill_comm(&out[n++], comm, "split", 1);
    }
    if (wanted(which, "reversed")) {
        tt_check_mpi(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &comm),
                     "MPI_Comm_split(reversed)");
        fill_comm(&out[n++], comm, "reversed", 1);
    }
    return n;
}

void tt_comms_free(tt_comm_t *c, int n)
{
    for (int i = 0; i < n; i++) {
        if (c[i].owned)
            MPI_Comm_free(&c[i].comm);
        free(c[i].world_of);
        c[i].world_of = NULL;
    }
}

int tt_case_counts(int size, long max, const long *big, int nbig, long *out)
{
    const long base[] = {0, 1, size - 1, size, size + 1, 1000};
    const int nbase = (int)(sizeof base / sizeof base[0]);
    int n = 0;
    for (int i = 0; i < nbase + nbig; i++) {
        const long v = i < nbase ? base[i] : big[i - nbase];
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= out[j] == v;
        if (!dup && v >= 0 && v <= max)
            out[n++] = v;
    }
    return n;
}

void tt_compare_hashes(const tt_comm_t *c, const uint64_t *hashes, int ncases, char *const *labels)
{
    /* Only MPI_Gather (which coll/topo does not serve) and point-to-point:
     * the result of a collective under test must not check itself.  Every
     * rank of c->comm ran the same case list (it depends only on the
     * communicator size and the command line); rank 0 checks that first
     * and tells the others whether the hashes can be gathered. */
    int *counts = c->rank == 0 ? malloc(sizeof(int) * c->size) : NULL;
    int same = 1;
    tt_check_mpi(MPI_Gather(&ncases, 1, MPI_INT, counts, 1, MPI_INT, 0, c->comm),
                 "MPI_Gather(case counts)");
    if (c->rank == 0) {
        for (int r = 0; r < c->size; r++) {
            if (counts[r] != ncases) {
                tt_fail("comm %s: rank %d ran %d cases, rank 0 %d", c->name, r, counts[r],
                        ncases);
                same = 0;
                break;
            }
        }
        for (int r = 1; r < c->size; r++) {
            tt_check_mpi(MPI_Send(&same, 1, MPI_INT, r, 0, c->comm), "MPI_Send(verdict)");
        }
    } else {
        tt_check_mpi(MPI_Recv(&same, 1, MPI_INT, 0, 0, c->comm, MPI_STATUS_IGNORE),
                     "MPI_Recv(verdict)");
    }
    free(counts);
    if (!same || ncases == 0)
        return;

    uint64_t *all = c->rank == 0 ? malloc(sizeof(uint64_t) * (size_t)ncases * c->size) : NULL;
    tt_check_mpi(MPI_Gather(hashes, ncases, MPI_UINT64_T, all, ncases, MPI_UINT64_T, 0, c->comm),
                 "MPI_Gather(result hashes)");
    for (int i = 0; c->rank == 0 && i < ncases; i++) {
        for (int r = 1; r < c->size; r++) {
            if (all[(size_t)r * ncases + i] != all[i]) {
                /* Report the lowest differing rank, once per case. */
                tt_fail("comm %s: result differs between comm ranks 0 and %d "
                        "(hash %016llx vs %016llx): %s",
                        c->name, r, (unsigned long long)all[i],
                        (unsigned long long)all[(size_t)r * ncases + i], labels[i]);
                break;
            }
        }
    }
    free(all);
}

long tt_total_failures(void)
{
    int wrank, wsize;
    long mine = nfail, total = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    long *all = wrank == 0 ? malloc(sizeof(long) * wsize) : NULL;
    tt_check_mpi(MPI_Gather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD),
                 "MPI_Gather(failure counts)");
    if (wrank != 0)
        return mine;
    for (int r = 0; r < wsize; r++)
        total += all[r];
    free(all);
    return total;
}
