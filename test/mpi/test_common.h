/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the MPI test programs in test/mpi.
 *
 * The programs test collectives that coll/topo may serve, so nothing here
 * uses them: cross-rank checks go through MPI_Gather, which the component
 * does not provide, and point-to-point.
 */
#ifndef TOPO_TEST_COMMON_H
#define TOPO_TEST_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Byte written into every position a collective must not touch (guards
 * around buffers, gaps inside derived datatypes). */
#define TT_SENTINEL_BYTE 0xA5

/* Guard bytes allocated before and after every test buffer. */
#define TT_GUARD_BYTES 64

/* ---- failure accounting --------------------------------------------- */

/* Sets the prefix of messages ("test_allreduce[3]", with the world rank)
 * and MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
void tt_init(const char *progname);

/* Records one failure and prints it to stderr with the rank prefix. */
void tt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints a message to stderr with the rank prefix. */
void tt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Failures recorded on this rank so far. */
long tt_failures(void);

/* Aborts the job on an MPI error code other than MPI_SUCCESS (the test
 * programs set MPI_ERRORS_RETURN so that a failing call is reported with
 * its case rather than as an anonymous abort). */
void tt_check_mpi(int rc, const char *what);

/* ---- deterministic inputs ------------------------------------------- */

/* A well-mixed 64-bit function of three integers: the base of every input
 * value, so each rank can compute every other rank's contribution.  Inline
 * and cheap: every rank evaluates it for every element of every rank. */
static inline uint64_t tt_mix(uint64_t a, uint64_t b, uint64_t c)
{
    /* a linear combination, then the splitmix64 finalizer */
    uint64_t z = a * 0x9e3779b97f4a7c15ULL + b * 0xc2b2ae3d27d4eb4fULL + c;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A hash of a byte range (FNV-1a style, eight bytes at a time),
 * continuing from h (start with TT_HASH_INIT). */
#define TT_HASH_INIT 0xcbf29ce484222325ULL
uint64_t tt_hash(uint64_t h, const void *p, size_t n);

/* ---- guarded buffers ------------------------------------------------ */

/* A buffer of n usable bytes with TT_GUARD_BYTES of sentinel on each side.
 * The allocation is kept and reused, so that the big cases do not pay for
 * fresh pages every time. */
typedef struct {
    unsigned char *base; /* allocation */
    size_t cap;          /* its size */
    unsigned char *p;    /* usable start */
    size_t n;            /* usable bytes */
} tt_buf_t;

/* Makes b hold n usable bytes, growing the allocation if needed, and sets
 * both guards to the sentinel; the usable bytes are left as they are. */
void tt_buf_prepare(tt_buf_t *b, size_t n);
void tt_buf_free(tt_buf_t *b);
/* Sets the usable bytes to the sentinel. */
void tt_buf_fill_sentinel(tt_buf_t *b);
/* Returns 1 when both guards are intact; otherwise 0, with *bad_offset the
 * offset of the first damaged guard byte relative to the usable start
 * (negative: before it). */
int tt_buf_guards_ok(const tt_buf_t *b, long *bad_offset);

/* ---- communicators under test --------------------------------------- */

typedef struct {
    MPI_Comm comm;
    const char *name; /* also set with MPI_Comm_set_name */
    int rank, size;
    int *world_of; /* world rank of each communicator rank */
    int owned;     /* freed by tt_comms_free */
} tt_comm_t;

/* The communicators every test covers, in this order:
 *   world    MPI_COMM_WORLD
 *   dup      MPI_Comm_dup(MPI_COMM_WORLD)
 *   split    MPI_Comm_split(color = rank % 2, key = size - 1 - rank):
 *            two halves, each in reverse world order
 *   reversed MPI_Comm_split(color = 0, key = size - 1 - rank)
 * Returns the number created (at most TT_MAX_COMMS); `which` is a comma
 * separated subset of the names, or NULL for all. */
#define TT_MAX_COMMS 4
int tt_comms_create(tt_comm_t *out, const char *which);
void tt_comms_free(tt_comm_t *c, int n);

/* The counts a test runs at, without repeats, in a fixed order: 0, 1,
 * size-1, size, size+1, 1000, then big[0..nbig-1]; only those <= max.  out
 * needs room for 6 + nbig.  Returns how many. */
int tt_case_counts(int size, long max, const long *big, int nbig, long *out);

/* Compares per-case result hashes across the ranks of c->comm (MPI_Gather)
 * and records a failure for every case where some rank differs from the
 * communicator's rank 0.  `labels[i]` describes case i. */
void tt_compare_hashes(const tt_comm_t *c, const uint64_t *hashes, int ncases, char *const *labels);

/* Gathers the failure counts to world rank 0; returns the total there and
 * this rank's own count elsewhere. */
long tt_total_failures(void);

#endif
