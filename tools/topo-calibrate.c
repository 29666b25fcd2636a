/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo-calibrate: measure the cost model's parameters on this machine and
 * print the coll/topo MCA settings to use.
 *
 *   mpirun -np 2 topo-calibrate [--quick] [--max-bytes N] [--reps N]
 *                               [--format=mca|conf|both]
 *
 * Rank pairs are classed by link: the same host (MPI_Get_processor_name)
 * is intra-host, different hosts are network.  For each class that has a
 * pair (rank 0 and the first rank of that class), a ping-pong over message
 * sizes 0 B .. max gives the one-way time (median of several trials; rank
 * 0's times are broadcast, so every rank takes the same decisions and the
 * pair always agrees on the next size).  The eager limit is the PML's: the
 * class's BTL's btl_<name>_eager_limit control variable (MPI_T) less 64
 * bytes of headers, as coll_topo_eager_limit's automatic value computes
 * it; without one, the jump that a least-squares step fit finds in the
 * ping-pong, bisected to the byte.  alpha is the intercept of a
 * least-squares line over the eager sizes, beta the slope over the sizes
 * of 256 KiB and more (bandwidth-bound; the network's coll_topo_beta is
 * measured again with every rank exchanging at once with its placement
 * neighbours from the coordinates file, else its ring neighbours:
 * measure_busy), and
 * the rendezvous cost the time
 * just above the eager limit less the eager line's prediction there; a
 * time at or below that line prints coll_topo_rndv_alpha 0 (no protocol
 * switch: the rendezvous costs nothing measurable).
 * The ping-pong sends data that was in place before it (each side sends
 * from one buffer and receives into another); for the intra-host class a
 * second one sends back what each side has just received: what that costs
 * more per byte than clean data of the same sizes, added to beta, is the
 * price of data written in the call (coll_topo_intra_beta_written).
 * gamma is the time per byte of MPI_Reduce_local (MPI_SUM, MPI_DOUBLE)
 * over a large buffer, copy the time per byte of memcpy over the same.
 * msg_overhead is the slope of a round trip over the number of small
 * messages rank 0 posts at once (1 to 8), on the class coll_topo_alpha
 * takes: what each message more of a step costs.  A value that could not be
 * measured (a positive number) is left out of the settings with the reason, so that the component's
 * default applies: 0 means "no protocol switch" to coll_topo_eager_limit and coll_topo_rndv_alpha.
 */
#include "fit.h"

#include "coords.h"
#include "schedule.h" /* error codes */
#include "topology.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EAGER_HEADERS 64
#define TRIALS 7
#define MAX_SIZES 64
/* sizes from here on are bandwidth-bound: beta's fit */
#define BW_MIN 262144.0
/* smaller sizes are latency noise and inline-send steps, not the protocol
 * switch */
#define JUMP_MIN 256.0

static int rank, nprocs;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: mpirun -np N topo-calibrate [--quick] [--max-bytes BYTES] [--reps N]\n"
        "                                  [--format=mca|conf|both] [--table] [--measure-eager]\n"
        "                                  [--coords-file FILE]\n"
        "\n"
        "Measures alpha and beta (ping-pong, per link class: intra-host and network;\n"
        "the network's beta also with every rank exchanging with its neighbours at once:\n"
        "the placement's from the coordinates file, else its ring neighbours),\n"
        "the eager limit and the rendezvous cost, what each message more of a step\n"
        "costs (msg_overhead: bursts of 1 to 8 small messages), gamma\n"
        "(MPI_Reduce_local) and copy (memcpy), and prints the coll/topo MCA settings:\n"
        "as --mca flags (mca), as lines for an MCA parameter file such as\n"
        "$HOME/.openmpi/mca-params.conf (conf), or both (default).  Needs at least 2\n"
        "ranks; ranks on two hosts measure the network.  A value that could not be\n"
        "measured is left out, with the reason, so that the component's default\n"
        "applies.\n"
        "\n"
        "  --quick          a short run (a few seconds, sizes up to 1 MiB)\n"
        "  --max-bytes N    largest ping-pong message in bytes (default 16777216;\n"
        "                   1024 .. 1073741824)\n"
        "  --reps N         round trips per trial for small messages (default 1000)\n"
        "  --table          also print the measured one-way time of every size\n"
        "  --measure-eager  find the eager limit in the ping-pong even where the BTL's\n"
        "                   btl_<name>_eager_limit is known (to check it)\n"
        "  --coords-file F  the coordinates file that places the hosts (default: the\n"
        "                   coll_topo_coords_file MCA parameter, as --mca sets it)\n");
}

/* The one-way time of `bytes` between rank 0 and `peer` (median of TRIALS
 * trials of `reps` round trips).  Every rank calls it; only the pair moves
 * data.  Rank 0's time is returned on every rank, so that all take the
 * same decisions from it (the sizes that follow, above all). */
/* One-way time of a ping-pong between ranks 0 and peer: each side sends
 * from sbuf and receives into rbuf.  sbuf != rbuf: the data sent was in
 * place before the measurement (the clean case, intra_beta); sbuf == rbuf:
 * each side sends what it has just received, data its own receive wrote
 * (intra_beta_written). */
static double pingpong(int peer, size_t bytes, int reps, const char *sbuf, char *rbuf)
{
    double t[TRIALS];
    for (int k = 0; k < TRIALS; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            if (0 == rank) {
                MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == peer) {
                MPI_Recv(rbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        t[k] = (MPI_Wtime() - t0) / (2.0 * reps);
    }
    double m = topo_fit_median(t, TRIALS);
    MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return m;
}

typedef struct {
    int peer, reps;
    const char *sbuf;
    char *rbuf;
} pingpong_t;

/* pingpong with fewer round trips for large messages (topo_fit_bisect_limit's
 * time function) */
static double pingpong_size(size_t bytes, void *ctx)
{
    const pingpong_t *pp = ctx;
    const int r = bytes <= 65536 ? pp->reps : (bytes <= ((size_t)1 << 20) ? pp->reps / 20 + 2 : 3);
    return pingpong(pp->peer, bytes, r, pp->sbuf, pp->rbuf);
}

/* The control variable `name` (an eager limit) through MPI_T, or 0. */
static size_t cvar_size(const char *name)
{
    int n = 0;
    size_t value = 0;
    if (MPI_SUCCESS != MPI_T_cvar_get_num(&n)) {
        return 0;
    }
    for (int i = 0; i < n && 0 == value; i++) {
        char cname[256], desc[8];
        int nlen = sizeof(cname), dlen = sizeof(desc), verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_SUCCESS !=
                MPI_T_cvar_get_info(i, cname, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) ||
            0 != strcmp(cname, name)) {
            continue;
        }
        MPI_T_cvar_handle h;
        int count = 0;
        if (MPI_SUCCESS != MPI_T_cvar_handle_alloc(i, NULL, &h, &count) || 1 != count) {
            continue;
        }
        unsigned long long u = 0;
        if (MPI_UNSIGNED_LONG == dt || MPI_LONG == dt) {
            unsigned long v = 0;
            if (MPI_SUCCESS == MPI_T_cvar_read(h, &v)) {
                u = v;
            }
        } else if (MPI_UNSIGNED_LONG_LONG == dt || MPI_LONG_LONG == dt) {
            unsigned long long v = 0;
            if (MPI_SUCCESS == MPI_T_cvar_read(h, &v)) {
                u = v;
            }
        } else if (MPI_UNSIGNED == dt || MPI_INT == dt) {
            unsigned int v = 0;
            if (MPI_SUCCESS == MPI_T_cvar_read(h, &v)) {
                u = v;
            }
        }
        MPI_T_cvar_handle_free(&h);
        value = (size_t)u;
    }
    return value;
}

/* The first of the NULL-terminated `names` that is a control variable
 * with a value, and that value in *value; NULL when none is. */
static const char *first_cvar(const char *const *names, size_t *value)
{
    for (; NULL != *names; names++) {
        if ((*value = cvar_size(*names)) > 0) {
            return *names;
        }
    }
    return NULL;
}

typedef struct {
    const char *name;         /* "intra-host", "network" */
    const char *const *cvars; /* eager limits of the BTLs that may carry it, by preference */
    int peer;                 /* -1: no pair of this class */
    int n;                    /* the ping-pong: n sizes x, one-way seconds y */
    double x[MAX_SIZES], y[MAX_SIZES];
    int ok; /* alpha and beta measured (> 0) */
    double alpha, beta;
    char why[160]; /* why not ok */
    size_t eager;  /* payload bytes that still go eagerly; 0: unknown */
    char eager_from[256];
    double rndv;   /* > 0: measured */
    int rndv_none; /* measured, and no dearer than an eager message */
    char rndv_why[160];
    double written;         /* > 0: seconds per byte of data written in the call */
    double written_premium; /* what written data costs more than clean data in cache */
    char written_why[160];
    double overhead; /* > 0: seconds per message more in a burst (msg_overhead) */
    char overhead_why[160];
    double busy_beta; /* > 0: beta with every rank exchanging at once (network) */
    int busy_ports;   /* the messages each rank sends (and receives) at once */
    char busy_why[1024];
} link_class_t;

/* The bursts of measure_overhead: 1 .. BURST_MAX messages of BURST_BYTES
 * posted at once. */
#define BURST_MAX 8
#define BURST_BYTES 8

/* One round trip of a burst: rank 0 posts k messages of BURST_BYTES to
 * `peer` at once (isend, one tag each) and waits for them, the peer posts
 * the k receives, waits, and answers with one message; the median of
 * TRIALS trials of `reps` round trips, rank 0's, on every rank. */
static double burst(int peer, int k, int reps, char *buf)
{
    double t[TRIALS];
    MPI_Request req[BURST_MAX];
    for (int trial = 0; trial < TRIALS; trial++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps && (0 == rank || rank == peer); i++) {
            for (int j = 0; j < k; j++) {
                char *b = buf + (size_t)j * BURST_BYTES;
                if (0 == rank) {
                    MPI_Isend(b, BURST_BYTES, MPI_BYTE, peer, 10 + j, MPI_COMM_WORLD, &req[j]);
                } else {
                    MPI_Irecv(b, BURST_BYTES, MPI_BYTE, 0, 10 + j, MPI_COMM_WORLD, &req[j]);
                }
            }
            MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
            char *b = buf + (size_t)BURST_MAX * BURST_BYTES;
            if (0 == rank) {
                MPI_Recv(b, BURST_BYTES, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(b, BURST_BYTES, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
            }
        }
        t[trial] = (MPI_Wtime() - t0) / reps;
    }
    double m = topo_fit_median(t, TRIALS);
    MPI_Bcast(&m, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return m;
}

/* coll_topo_msg_overhead: what each message more of a step costs, the
 * slope of the burst's round trip over k = 1 .. BURST_MAX messages (least
 * squares): the sender posting and completing it, or the receiver
 * matching it, whichever side is busier. */
static void measure_overhead(link_class_t *lc, int reps, char *buf)
{
    double x[BURST_MAX], y[BURST_MAX], a = 0, b = 0;
    for (int k = 1; k <= BURST_MAX; k++) {
        x[k - 1] = k;
        y[k - 1] = burst(lc->peer, k, reps, buf);
    }
    lc->overhead = 0 == topo_fit_line(x, y, BURST_MAX, &a, &b) ? b : 0.0;
    if (!(lc->overhead > 0)) {
        snprintf(lc->overhead_why, sizeof(lc->overhead_why),
                 "the round trip of a burst did not grow with its messages (%.3f us for 1, "
                 "%.3f us for %d)",
                 y[0] * 1e6, y[BURST_MAX - 1] * 1e6, BURST_MAX);
    }
}

/* The peers of this rank's exchange with every rank busy (measure_busy):
 * its placement neighbours, or its ring neighbours in rank order. */
typedef struct {
    int n;                       /* this rank's peers (0: it only waits) */
    int peer[2 * TOPO_MAX_DIMS]; /* distinct ranks */
    int ports;                   /* the most peers of any rank */
    int placed;                  /* 1: from the placement, 0: the ring */
    char from[320];              /* the placement's shape and source */
    char why[640];               /* placed 0: why not the placement */
} busy_peers_t;

/* One exchange of every rank at once: each rank sends `bytes` to each of
 * its peers and receives as much from each (into rbuf, a slot of `bytes`
 * per peer); the slowest rank's time, median of TRIALS trials, on every
 * rank. */
static double busy_exchange(size_t bytes, const busy_peers_t *bp, const char *sbuf, char *rbuf)
{
    double t[TRIALS];
    MPI_Request req[4 * TOPO_MAX_DIMS];
    for (int trial = 0; trial < TRIALS; trial++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int j = 0; j < bp->n; j++) {
            MPI_Irecv(rbuf + (size_t)j * bytes, (int)bytes, MPI_BYTE, bp->peer[j], 20,
                      MPI_COMM_WORLD, &req[2 * j]);
            MPI_Isend(sbuf, (int)bytes, MPI_BYTE, bp->peer[j], 20, MPI_COMM_WORLD, &req[2 * j + 1]);
        }
        MPI_Waitall(2 * bp->n, req, MPI_STATUSES_IGNORE);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[trial], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    return topo_fit_median(t, TRIALS);
}

/* This rank's grid position from the coordinates file the component reads
 * (coords_file: --coords-file, else coll_topo_coords_file as mpirun's --mca
 * sets it), for its host (coll_topo_coords_host, else `host`); -1 with the
 * reason in why. */
static int my_position(const char *coords_file, const char *host, topo_topology_t *shape, char *why,
                       size_t whylen)
{
    size_t len = 0;
    char *text = NULL, err[256] = "";
    if (TOPO_OK != topo_coords_read(coords_file, &text, &len, err, sizeof(err))) {
        snprintf(why, whylen, "the coordinates file %s: %s", coords_file, err);
        return -1;
    }
    const char *h = getenv("OMPI_MCA_coll_topo_coords_host");
    h = NULL != h && '\0' != h[0] ? h : host;
    int pos = -1, line = 0;
    const int rc = topo_coords_parse(text, len, h, shape, &pos, &line, err, sizeof(err));
    free(text);
    if (TOPO_OK != rc) {
        snprintf(why, whylen, "the coordinates file %s, line %d: %s", coords_file, line, err);
        return -1;
    }
    if (pos < 0) {
        snprintf(why, whylen, "host '%s' has no line in the coordinates file %s", h, coords_file);
    }
    return pos;
}

/* The peers of every rank's busy exchange.  With a coordinates file (every
 * rank's host on a line, one shape): the first rank of each grid position
 * exchanges with the first rank of each neighbouring position (one link
 * away: +1 and -1 along each dimension, around a torus's rings, not past
 * a mesh's edges), the other ranks of a position wait; every message then
 * has a link of its own, each rank's ports all busy, as in a collective's
 * step.  Else every rank's ring neighbours in rank order (rank + 1 and
 * rank - 1, the one other rank of 2), where those sit on other hosts. */
static void busy_peers(busy_peers_t *bp, const char *coords_file, const char *host, int ring_net)
{
    memset(bp, 0, sizeof(*bp));
    topo_topology_t shape;
    memset(&shape, 0, sizeof(shape));
    int pos = -1;
    if (NULL != coords_file && '\0' != coords_file[0]) {
        pos = my_position(coords_file, host, &shape, bp->why, sizeof(bp->why));
    } else {
        snprintf(bp->why, sizeof(bp->why), "no coll_topo_coords_file");
    }
    int *all = malloc(sizeof(int) * (size_t)nprocs);
    if (NULL == all) {
        fprintf(stderr, "topo-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    MPI_Allgather(&pos, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    int placed = NULL != coords_file && '\0' != coords_file[0], bad = -1;
    for (int r = 0; r < nprocs && placed; r++) {
        if (all[r] < 0) {
            placed = 0;
            bad = r;
        }
    }
    /* the first failing rank's reason, on rank 0 */
    if (bad > 0) {
        if (rank == bad) {
            MPI_Send(bp->why, (int)sizeof(bp->why), MPI_CHAR, 0, 30, MPI_COMM_WORLD);
        } else if (0 == rank) {
            MPI_Recv(bp->why, (int)sizeof(bp->why), MPI_CHAR, bad, 30, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
    }
    if (placed) {
        char sh[64];
        topo_topology_format(&shape, sh, sizeof(sh));
        snprintf(bp->from, sizeof(bp->from), "%s from %s", sh, coords_file);
        int first = 1; /* this rank is the first of its position */
        for (int r = 0; r < rank && first; r++) {
            first = all[r] != pos;
        }
        int c[TOPO_MAX_DIMS];
        topo_topology_coords(&shape, pos, c);
        for (int d = 0; first && d < shape.ndims; d++) {
            for (int dir = -1; dir <= 1 && shape.dims[d] > 1; dir += 2) {
                int nc[TOPO_MAX_DIMS];
                memcpy(nc, c, sizeof(nc));
                nc[d] = c[d] + dir;
                if (nc[d] < 0 || nc[d] >= shape.dims[d]) {
                    if (!shape.periodic[d]) {
                        continue;
                    }
                    nc[d] = (nc[d] + shape.dims[d]) % shape.dims[d];
                }
                const int np = topo_topology_rank(&shape, nc);
                int q = 0;
                while (q < nprocs && all[q] != np) {
                    q++;
                }
                int dup = q == nprocs || q == rank;
                for (int j = 0; j < bp->n && !dup; j++) {
                    dup = bp->peer[j] == q;
                }
                if (!dup) {
                    bp->peer[bp->n++] = q;
                }
            }
        }
        bp->placed = 1;
    } else if (ring_net) {
        bp->n = nprocs > 2 ? 2 : 1;
        bp->peer[0] = (rank + 1) % nprocs;
        bp->peer[1] = (rank + nprocs - 1) % nprocs;
    }
    free(all);
    MPI_Allreduce(&bp->n, &bp->ports, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

/* The network's beta as a collective meets it: every rank sending and
 * receiving on its ports at once, not one pair alone.  A ping-pong between
 * two ranks has the hosts' processors, and both directions of its links,
 * to itself; in a collective step every rank moves messages at once (on a
 * torus of 16 ranks over TCP on 2 cores, a pair's ping-pong gave 4.1e-8
 * s/B at 1 MiB, every rank exchanging with its 2 or 4 neighbours at once
 * 8.2-8.8e-8 s/B per message).  Every rank exchanges with its peers
 * (busy_peers: its placement neighbours, one message on each of its
 * links, else its ring neighbours), sizes from BW_MIN up to `max` (at most
 * 4 MiB, each message); beta is the least-squares slope of the slowest
 * rank's time per byte of one message. */
static void measure_busy(link_class_t *lc, size_t max, const busy_peers_t *bp, const char *sbuf)
{
    lc->busy_beta = 0.0;
    lc->busy_ports = bp->ports;
    if (0 == bp->ports) {
        if (bp->placed) {
            snprintf(lc->busy_why, sizeof(lc->busy_why),
                     "no two ranks' positions are neighbours on %s", bp->from);
        } else {
            snprintf(lc->busy_why, sizeof(lc->busy_why),
                     "ranks next to each other in rank order share a host, and %s", bp->why);
        }
        return;
    }
    const size_t top = max / 2 < ((size_t)4 << 20) ? max / 2 : (size_t)4 << 20;
    char *rbuf = malloc(top * (size_t)(bp->n > 0 ? bp->n : 1));
    if (NULL == rbuf) {
        fprintf(stderr, "topo-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return;
    }
    double x[MAX_SIZES], y[MAX_SIZES], a = 0, b = 0;
    int n = 0;
    for (size_t sz = (size_t)BW_MIN; sz <= top && n < MAX_SIZES; sz *= 2) {
        x[n] = (double)sz;
        y[n++] = busy_exchange(sz, bp, sbuf, rbuf);
    }
    free(rbuf);
    if (n < 2 || 0 != topo_fit_line(x, y, n, &a, &b) || !(b > 0)) {
        snprintf(lc->busy_why, sizeof(lc->busy_why),
                 n < 2 ? "--max-bytes below two sizes of at least %.0f B each way"
                       : "the time did not grow with the size (from %.0f B)",
                 BW_MIN);
        return;
    }
    lc->busy_beta = b;
}

/* The per-byte price of sending data the sender's own receive has just
 * written (coll_topo_intra_beta_written): beta plus what such data costs
 * more than clean data at the same sizes, from WRITTEN_MIN to WRITTEN_MAX
 * (where the data stays in the caches; beyond, both kinds come from
 * memory).  Per size, (one-way time - alpha) / size of each ping-pong; the
 * medians' difference is the premium.  Both times hold the same rendezvous
 * cost, which the difference cancels; beta, the slope over the
 * bandwidth-bound sizes, is the model's price of clean data, and comparing
 * the written ping-pong with it instead would mix cached with uncached
 * copies (on one machine: beta 0.18 ns/B from the sizes up to 8 MiB, clean
 * data at 512 KiB 0.09, written data at these sizes 0.17-0.3). */
#define WRITTEN_MIN 32768.0
#define WRITTEN_MAX 524288.0
static void measure_written(link_class_t *lc, int reps, char *rbuf)
{
    pingpong_t pp = {lc->peer, reps, rbuf, rbuf};
    double v[MAX_SIZES], c[MAX_SIZES];
    int n = 0;
    lc->written = 0.0;
    lc->written_premium = 0.0;
    /* lc->ok is the same on every rank: the fits use rank 0's times; the
     * clean ping-pong's sizes stop at --max-bytes */
    for (int j = 0; lc->ok && j < lc->n && n < MAX_SIZES; j++) {
        const double s = lc->x[j];
        if (s < WRITTEN_MIN || s > WRITTEN_MAX) {
            continue;
        }
        c[n] = (lc->y[j] - lc->alpha) / s;
        v[n] = (pingpong_size((size_t)s, &pp) - lc->alpha) / s;
        n++;
    }
    if (!lc->ok || 0 == n) {
        snprintf(lc->written_why, sizeof(lc->written_why), "%s",
                 !lc->ok ? "alpha not measured" : "--max-bytes is below 32 KiB");
        return;
    }
    const double premium = topo_fit_median(v, n) - topo_fit_median(c, n);
    lc->written_premium = premium;
    lc->written = lc->beta + (premium > 0 ? premium : 0.0);
}

/* Measure one class: sizes 0, 1, 2, 4, .. max, the eager limit, and the
 * time just above it. */
static void measure(link_class_t *lc, size_t max, int reps, int use_cvars, const char *sbuf,
                    char *rbuf)
{
    pingpong_t pp = {lc->peer, reps, sbuf, rbuf};
    const double *x = lc->x, *y = lc->y;
    lc->n = 0;
    for (size_t s = 0; s <= max && lc->n < MAX_SIZES; s = s ? 2 * s : 1) {
        lc->x[lc->n] = (double)s;
        lc->y[lc->n] = pingpong_size(s, &pp);
        lc->n++;
    }
    const int n = lc->n;

    /* the eager limit: from the BTL, else the ping-pong's jump bisected */
    double ja = 0, jb = 0, jc = 0;
    const int k = topo_fit_step(x, y, n, JUMP_MIN, &ja, &jb, &jc);
    size_t cv = 0;
    const char *cname = use_cvars ? first_cvar(lc->cvars, &cv) : NULL;
    lc->eager = 0;
    if (NULL != cname && cv > EAGER_HEADERS) {
        lc->eager = cv - EAGER_HEADERS;
        int w = snprintf(lc->eager_from, sizeof(lc->eager_from),
                         "%s = %zu (MPI_T) less %d bytes of headers", cname, cv, EAGER_HEADERS);
        if (k >= 0 && !(x[k] <= (double)lc->eager && (double)lc->eager < x[k + 1]) && w > 0 &&
            (size_t)w < sizeof(lc->eager_from)) {
            snprintf(lc->eager_from + w, sizeof(lc->eager_from) - (size_t)w,
                     "; note: the ping-pong's jump is between %.0f and %.0f B", x[k], x[k + 1]);
        }
    } else if (k >= 0) {
        lc->eager = topo_fit_bisect_limit(pingpong_size, &pp, (size_t)x[k], (size_t)x[k + 1], 1, ja,
                                          jb, jc);
        snprintf(lc->eager_from, sizeof(lc->eager_from),
                 "the ping-pong's jump between %.0f and %.0f B, bisected", x[k], x[k + 1]);
    } else {
        snprintf(lc->eager_from, sizeof(lc->eager_from), "%sno jump in the ping-pong up to %zu B",
                 use_cvars ? "no BTL eager limit through MPI_T and " : "", max);
    }

    /* alpha and the eager line: the sizes that go eagerly (all below the
     * bandwidth-bound ones when the limit is unknown); beta: the
     * bandwidth-bound sizes above the limit, else the eager slope */
    double a = 0, be = 0, ab = 0, bb = 0;
    const double eager_hi = lc->eager > 0 ? (double)lc->eager : BW_MIN - 1;
    if (0 != topo_fit_range(x, y, n, 0.0, eager_hi, &a, &be)) {
        snprintf(lc->why, sizeof(lc->why), "fewer than 2 sizes up to %.0f B", eager_hi);
        lc->ok = 0;
        return;
    }
    lc->alpha = a > 0 ? a : y[0];
    const double bw_lo = (double)lc->eager + 1 > BW_MIN ? (double)lc->eager + 1 : BW_MIN;
    lc->beta = 0 == topo_fit_range(x, y, n, bw_lo, INFINITY, &ab, &bb) && bb > 0 ? bb : be;
    lc->ok = lc->alpha > 0 && lc->beta > 0;
    if (!lc->ok) {
        snprintf(lc->why, sizeof(lc->why),
                 "the fitted time per byte is %.3g s, not positive (try a larger --max-bytes)",
                 lc->beta);
    }

    /* the rendezvous jump just above the limit */
    lc->rndv = 0.0;
    lc->rndv_none = 0;
    if (0 == lc->eager) {
        snprintf(lc->rndv_why, sizeof(lc->rndv_why), "no eager limit known");
    } else if (lc->eager + 16 > max) {
        snprintf(lc->rndv_why, sizeof(lc->rndv_why),
                 "--max-bytes %zu does not reach above the eager limit", max);
    } else {
        const size_t above = lc->eager + 16;
        const double t = pingpong_size(above, &pp), line = a + be * (double)above;
        if (t > line) {
            lc->rndv = t - line;
        } else {
            /* the rendezvous costs nothing measurable: 0 = no protocol
             * switch in the component's model, rather than its default
             * (one more message) */
            lc->rndv_none = 1;
            snprintf(lc->rndv_why, sizeof(lc->rndv_why),
                     "%zu B took %.3f us, not more than the eager line's %.3f us", above, t * 1e6,
                     line * 1e6);
        }
    }
}

static double measure_gamma(size_t bytes)
{
    size_t n = bytes / sizeof(double);
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), t[TRIALS];
    if (NULL == a || NULL == b) {
        free(a);
        free(b);
        return 0.0;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i;
        b[i] = 1.0;
    }
    MPI_Reduce_local(a, b, (int)n, MPI_DOUBLE, MPI_SUM); /* warm up */
    for (int k = 0; k < TRIALS; k++) {
        double t0 = MPI_Wtime();
        MPI_Reduce_local(a, b, (int)n, MPI_DOUBLE, MPI_SUM);
        t[k] = (MPI_Wtime() - t0) / (double)(n * sizeof(double));
    }
    free(a);
    free(b);
    return topo_fit_median(t, TRIALS);
}

/* Seconds per byte of memcpy between two buffers of `bytes`. */
static double measure_copy(size_t bytes)
{
    char *a = malloc(bytes), *b = malloc(bytes);
    double t[TRIALS];
    if (NULL == a || NULL == b || 0 == bytes) {
        free(a);
        free(b);
        return 0.0;
    }
    memset(a, 1, bytes);
    memcpy(b, a, bytes); /* warm up, and the pages of b are touched */
    for (int k = 0; k < TRIALS; k++) {
        double t0 = MPI_Wtime();
        memcpy(b, a, bytes);
        t[k] = (MPI_Wtime() - t0) / (double)bytes;
        a[k % bytes] = b[(k + 1) % bytes]; /* the copies are used */
    }
    free(a);
    free(b);
    return topo_fit_median(t, TRIALS);
}

typedef struct {
    const char *name;
    double value;    /* printed when finite and positive */
    int integer;     /* printed as an integer */
    const char *why; /* else why not */
    int zero;        /* 0 is a measured value: printed (why says what) */
} setting_t;

static int valid(const setting_t *st)
{
    return isfinite(st->value) && (st->value > 0 || (st->zero && 0 == st->value));
}

static void print_settings(int mca, const setting_t *st, int ns, const char *note)
{
    printf(mca ? "# as mpirun options:\n"
               : "# for an MCA parameter file ($HOME/.openmpi/mca-params.conf):\n");
    if (NULL != note) {
        printf("%s", note);
    }
    for (int i = 0; i < ns; i++) {
        if (!valid(&st[i])) {
            printf("# %s left out (the component's default applies): %s\n", st[i].name, st[i].why);
        }
    }
    for (int i = 0; i < ns; i++) {
        if (valid(&st[i])) {
            printf(mca ? " --mca %s " : "%s = ", st[i].name);
            printf(st[i].integer ? "%.0f" : "%.3g", st[i].value);
            printf(mca ? "" : "\n");
        }
    }
    if (mca) {
        printf("\n");
    }
}

/* BYTES, a plain decimal number; 0 when malformed */
static size_t parse_bytes(const char *s)
{
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(s, &end, 10);
    return 0 == errno && end != s && '\0' == *end && '-' != s[0] && v <= SIZE_MAX ? (size_t)v : 0;
}

/* The value of option `name` at argv[*i], as "--name=V" or "--name V"
 * (then *i advances); NULL when argv[*i] is not that option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    const size_t l = strlen(name);
    if (0 != strncmp(argv[*i], name, l)) {
        return NULL;
    }
    if ('=' == argv[*i][l]) {
        return argv[*i] + l + 1;
    }
    if ('\0' == argv[*i][l] && *i + 1 < argc) {
        return argv[++*i];
    }
    return NULL;
}

static int finish(int code)
{
    MPI_T_finalize();
    MPI_Finalize();
    return code;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    size_t max = (size_t)16 << 20;
    long reps = 1000;
    int quick = 0, fmt_mca = 1, fmt_conf = 1, table = 0, use_cvars = 1;
    const char *coords_file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        char *end = NULL;
        if (0 == strcmp(a, "--help") || 0 == strcmp(a, "-h")) {
            if (0 == rank) {
                usage(stdout);
            }
            return finish(0);
        } else if (0 == strcmp(a, "--quick")) {
            quick = 1;
        } else if (0 == strcmp(a, "--table")) {
            table = 1;
        } else if (0 == strcmp(a, "--measure-eager")) {
            use_cvars = 0;
        } else if (NULL != (v = opt_value(argc, argv, &i, "--coords-file"))) {
            coords_file = v;
        } else if (NULL != (v = opt_value(argc, argv, &i, "--max-bytes"))) {
            max = parse_bytes(v);
        } else if (NULL != (v = opt_value(argc, argv, &i, "--reps"))) {
            reps = strtol(v, &end, 10);
            reps = '\0' == *end && end != v ? reps : 0;
        } else if (NULL != (v = opt_value(argc, argv, &i, "--format")) &&
                   (0 == strcmp(v, "mca") || 0 == strcmp(v, "conf") || 0 == strcmp(v, "both"))) {
            fmt_mca = 0 != strcmp(v, "conf");
            fmt_conf = 0 != strcmp(v, "mca");
        } else {
            if (0 == rank) {
                fprintf(stderr, "topo-calibrate: unknown or incomplete option '%s'\n", a);
                usage(stderr);
            }
            return finish(2);
        }
    }
    if (quick) {
        max = max < ((size_t)1 << 20) ? max : (size_t)1 << 20;
        reps = reps < 200 ? reps : 200;
    }
    if (reps < 1 || reps > 1000000 || max < 1024 || max > ((size_t)1 << 30)) {
        if (0 == rank) {
            fprintf(stderr, "topo-calibrate: --reps must be within 1..1000000 and --max-bytes "
                            "within 1024..1073741824\n");
        }
        return finish(2);
    }
    if (nprocs < 2) {
        fprintf(stderr, "topo-calibrate: needs at least 2 ranks (mpirun -np 2 ...; ranks on two "
                        "hosts measure the network as well)\n");
        return finish(2);
    }

    /* link classes: every rank's host name, the same everywhere */
    char *names = calloc((size_t)nprocs, MPI_MAX_PROCESSOR_NAME);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    char *buf = malloc(max + 64), *rbuf = malloc(max + 64);
    if (NULL == names || NULL == buf || NULL == rbuf) {
        fprintf(stderr, "topo-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    memset(buf, 1, max + 64);
    memset(rbuf, 2, max + 64);
    /* TOPO_CALIBRATE_HOST stands for the host name: tests class ranks of
     * one machine as on two hosts with it */
    const char *host = getenv("TOPO_CALIBRATE_HOST");
    if (NULL != host && '\0' != host[0]) {
        snprintf(mine, sizeof(mine), "%s", host);
    } else {
        MPI_Get_processor_name(mine, &len);
    }
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    /* The BTLs ob1 may use per class, by its preference; a BTL's variables
     * exist only where its component was opened, e.g. tcp alone with
     * --mca btl self,tcp, which then carries the intra-host pairs too. */
    static const char *const intra_cvars[] = {"btl_vader_eager_limit", "btl_sm_eager_limit",
                                              "btl_tcp_eager_limit", NULL};
    static const char *const net_cvars[] = {"btl_openib_eager_limit", "btl_uct_eager_limit",
                                            "btl_ofi_eager_limit",    "btl_usnic_eager_limit",
                                            "btl_tcp_eager_limit",    NULL};
    static link_class_t intra = {.name = "intra-host", .cvars = intra_cvars, .peer = -1};
    static link_class_t net = {.name = "network", .cvars = net_cvars, .peer = -1};
    int hosts = 1;
    for (int r = 1; r < nprocs; r++) {
        const int same = 0 == strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME, names);
        link_class_t *lc = same ? &intra : &net;
        if (lc->peer < 0) {
            lc->peer = r;
        }
        int seen = 0;
        for (int q = 0; q < r && !seen; q++) {
            seen = 0 == strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                               names + (size_t)q * MPI_MAX_PROCESSOR_NAME);
        }
        hosts += !seen;
    }
    link_class_t *cls[2] = {&intra, &net};
    for (int i = 0; i < 2; i++) {
        if (cls[i]->peer > 0) {
            measure(cls[i], max, (int)reps, use_cvars, buf, rbuf);
            if (0 == i) {
                measure_written(cls[i], (int)reps, rbuf);
            }
        } else {
            snprintf(cls[i]->why, sizeof(cls[i]->why), "no pair of ranks %s",
                     i ? "on different hosts" : "on one host");
        }
    }
    /* the network's beta with every rank busy: every rank's placement
     * neighbours, else its ring neighbours where those are on other hosts */
    static busy_peers_t bp;
    if (net.peer > 0) {
        int ring_net = 1;
        for (int r = 0; r < nprocs && ring_net; r++) {
            ring_net = 0 != strcmp(names + (size_t)r * MPI_MAX_PROCESSOR_NAME,
                                   names + (size_t)((r + 1) % nprocs) * MPI_MAX_PROCESSOR_NAME);
        }
        if (NULL == coords_file) {
            coords_file = getenv("OMPI_MCA_coll_topo_coords_file");
        }
        busy_peers(&bp, coords_file, mine, ring_net);
        measure_busy(&net, max, &bp, buf);
    }
    /* the class that coll_topo_alpha takes (below) */
    link_class_t *n = net.peer > 0 ? &net : &intra;
    if (n->peer > 0) {
        measure_overhead(n, (int)reps, rbuf);
    } else {
        snprintf(n->overhead_why, sizeof(n->overhead_why), "%s", n->why);
    }
    double gamma = measure_gamma(quick ? (size_t)1 << 20 : (size_t)8 << 20);
    double copy = measure_copy(quick ? (size_t)1 << 20 : (size_t)8 << 20);

    if (0 == rank) {
        printf("# coll/topo calibration: %d ranks on %d host%s\n", nprocs, hosts,
               hosts > 1 ? "s" : "");
        for (int i = 0; i < 2; i++) {
            const link_class_t *lc = cls[i];
            if (lc->peer < 0) {
                printf("# %s: not measured (%s)\n", lc->name, lc->why);
                continue;
            }
            printf("# %s (ranks 0 and %d): ", lc->name, lc->peer);
            if (lc->ok) {
                printf("alpha %.3f us, beta %.4f ns/B (%.2f GB/s), ", lc->alpha * 1e6,
                       lc->beta * 1e9, 1e-9 / lc->beta);
            } else {
                printf("alpha and beta not measured (%s), ", lc->why);
            }
            if (lc->eager > 0) {
                printf("eager limit %zu B (from %s), ", lc->eager, lc->eager_from);
            } else {
                printf("eager limit unknown (%s), ", lc->eager_from);
            }
            if (lc->rndv > 0) {
                printf("rendezvous +%.3f us", lc->rndv * 1e6);
            } else if (lc->rndv_none) {
                printf("rendezvous +0 (%s)", lc->rndv_why);
            } else {
                printf("rendezvous cost not measured (%s)", lc->rndv_why);
            }
            if (0 == i && lc->written > 0) {
                printf(", data the sender's receive has just written %.4f ns/B (%+.4f ns/B "
                       "over clean data at %.0f-%.0f KiB)\n",
                       lc->written * 1e9, lc->written_premium * 1e9, WRITTEN_MIN / 1024,
                       WRITTEN_MAX / 1024);
            } else if (0 == i) {
                printf(", data just written not measured (%s)\n", lc->written_why);
            } else {
                printf("\n");
            }
            for (int j = 0; table && j < lc->n; j++) {
                printf("# %s ping-pong: %.0f B %.3f us\n", lc->name, lc->x[j], lc->y[j] * 1e6);
            }
        }
        printf("# reduction: gamma %.4f ns/B (MPI_Reduce_local, MPI_SUM on MPI_DOUBLE)\n",
               gamma * 1e9);
        printf("# local copies: copy %.4f ns/B (memcpy)\n", copy * 1e9);
        if (net.busy_beta > 0) {
            if (bp.placed) {
                printf("# network, every rank at once (up to %d message%s each way per position "
                       "to its neighbours on %s): beta %.4f ns/B (%.2f GB/s), %.2f times the "
                       "ping-pong's: coll_topo_beta\n",
                       net.busy_ports, net.busy_ports > 1 ? "s" : "", bp.from, net.busy_beta * 1e9,
                       1e-9 / net.busy_beta, net.ok ? net.busy_beta / net.beta : 0.0);
            } else {
                printf("# network, every rank at once (%d message%s each way per rank to its ring "
                       "neighbours; no placement: %s): beta %.4f ns/B (%.2f GB/s), %.2f "
                       "times the ping-pong's: coll_topo_beta\n",
                       net.busy_ports, net.busy_ports > 1 ? "s" : "", bp.why, net.busy_beta * 1e9,
                       1e-9 / net.busy_beta, net.ok ? net.busy_beta / net.beta : 0.0);
            }
        } else if (net.peer > 0) {
            printf("# network, every rank at once: not measured (%s): coll_topo_beta is the "
                   "ping-pong's\n",
                   net.busy_why);
        }
        if (n->overhead > 0) {
            printf("# messages: +%.3f us per message more in a step (%s, ranks 0 and %d: 1 to %d "
                   "messages of %d B posted at once)\n",
                   n->overhead * 1e6, n->name, n->peer, BURST_MAX, BURST_BYTES);
        }

        /* One host: every message of the job is intra-host, and without a
         * known placement the component prices all of them with
         * coll_topo_alpha and coll_topo_beta, so those take the intra-host
         * values. */
        const char *note =
            net.peer > 0 ? NULL
                         : "# network: not measured (all ranks on one host): coll_topo_alpha and\n"
                           "# coll_topo_beta are the intra-host values, right for one-host jobs\n";
        const setting_t st[] = {
            {"coll_topo_alpha", n->ok ? n->alpha : 0, 0, n->why, 0},
            {"coll_topo_beta",
             n == &net && net.busy_beta > 0 ? net.busy_beta
             : n->ok                        ? n->beta
                                            : 0,
             0, n->why, 0},
            {"coll_topo_intra_alpha", intra.ok ? intra.alpha : 0, 0, intra.why, 0},
            {"coll_topo_intra_beta", intra.ok ? intra.beta : 0, 0, intra.why, 0},
            {"coll_topo_intra_beta_written", intra.written, 0,
             intra.ok ? intra.written_why : intra.why, 0},
            {"coll_topo_gamma", gamma, 0, "MPI_Reduce_local could not be timed", 0},
            {"coll_topo_copy", copy, 0, "memcpy could not be timed", 0},
            {"coll_topo_msg_overhead", n->overhead, 0, n->overhead_why, 0},
            {"coll_topo_eager_limit", (double)n->eager, 1, n->eager_from, 0},
            {"coll_topo_rndv_alpha", n->rndv, 0, n->rndv_why, n->rndv_none},
        };
        const int ns = (int)(sizeof(st) / sizeof(st[0]));
        if (fmt_mca) {
            print_settings(1, st, ns, note);
        }
        if (fmt_conf) {
            print_settings(0, st, ns, note);
        }
        fflush(stdout);
    }
    free(names);
    free(buf);
    free(rbuf);
    return finish(0);
}
