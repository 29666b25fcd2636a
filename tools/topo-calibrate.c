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
 * sizes 0 B .. max gives the one-way time (median of several trials):
 * alpha is the intercept of a least-squares line over the eager sizes,
 * beta the slope over the sizes of 256 KiB and more (bandwidth-bound), and
 * the rendezvous jump the time just above the eager limit less that
 * line's prediction there.  The eager limit is the PML's: the BTL's
 * btl_<name>_eager_limit control variable (MPI_T) less 64 bytes of headers,
 * as coll_topo_eager_limit's automatic value computes it, else the largest
 * jump between consecutive sizes.  gamma is the time per byte of
 * MPI_Reduce_local (MPI_SUM, MPI_DOUBLE) over a large buffer.
 */
#include "fit.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EAGER_HEADERS 64
#define TRIALS 7

static int rank, nprocs;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N topo-calibrate [--quick] [--max-bytes BYTES] [--reps N]\n"
            "                                  [--format=mca|conf|both]\n"
            "\n"
            "Measures alpha and beta (ping-pong, per link class: intra-host and network),\n"
            "the eager limit and the rendezvous cost, and gamma (MPI_Reduce_local), and\n"
            "prints the coll/topo MCA settings: as --mca flags (mca), as lines for an MCA\n"
            "parameter file such as $HOME/.openmpi/mca-params.conf (conf), or both\n"
            "(default).  Needs at least 2 ranks; ranks on two hosts measure the network.\n"
            "\n"
            "  --quick          a short run (a few seconds, sizes up to 1 MiB)\n"
            "  --max-bytes N    largest ping-pong message (default 16 MiB)\n"
            "  --reps N         round trips per trial for small messages (default 1000)\n");
}

/* The one-way time of `bytes` between rank 0 and `peer` (median of TRIALS
 * trials of `reps` round trips).  Every rank calls it; only the pair moves
 * data; the result is valid on rank 0. */
static double pingpong(int peer, size_t bytes, int reps, char *buf)
{
    double t[TRIALS];
    for (int k = 0; k < TRIALS; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < reps; i++) {
            if (0 == rank) {
                MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == peer) {
                MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        }
        t[k] = (MPI_Wtime() - t0) / (2.0 * reps);
    }
    return topo_fit_median(t, TRIALS);
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

typedef struct {
    const char *name;  /* "intra-host", "network" */
    int peer;          /* -1: no pair of this class */
    double alpha, beta, rndv;
    size_t eager;      /* payload bytes that still go eagerly */
    const char *eager_from;
    int ok;
} link_class_t;

/* Measure one class: sizes 0, 1, 2, 4, .. max, and both sides of the eager
 * limit. */
static void measure(link_class_t *lc, size_t max, int reps, size_t eager_hint, char *buf)
{
    double x[80], y[80];
    int n = 0;
    for (size_t s = 0; s <= max && n < 64; s = s ? 2 * s : 1) {
        int r = s <= 65536 ? reps : (s <= (1u << 20) ? reps / 20 + 2 : 3);
        x[n] = (double)s;
        y[n] = pingpong(lc->peer, s, r, buf);
        n++;
    }
    /* the eager limit: from the BTL, else the largest jump */
    size_t eager = eager_hint;
    lc->eager_from = "the BTL's eager_limit (MPI_T) less 64 bytes of headers";
    if (0 == eager) {
        double best = 0.0;
        for (int i = 1; i < n; i++) {
            if (x[i - 1] >= 256 && y[i] - y[i - 1] > best) {
                best = y[i] - y[i - 1];
                eager = (size_t)x[i - 1];
            }
        }
        lc->eager_from = "the largest jump between measured sizes";
    }
    /* alpha and the eager slope: sizes up to the limit */
    double ex[80], ey[80], bx[80], by[80];
    int ne = 0, nb = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] <= (double)eager) {
            ex[ne] = x[i];
            ey[ne++] = y[i];
        }
        if (x[i] >= 262144.0) {
            bx[nb] = x[i];
            by[nb++] = y[i];
        }
    }
    double a = 0, be = 0, ab = 0, bb = 0;
    lc->ok = 0 == topo_fit_line(ex, ey, ne, &a, &be);
    if (!lc->ok) {
        return;
    }
    lc->alpha = a > 0 ? a : y[0];
    lc->beta = 0 == topo_fit_line(bx, by, nb, &ab, &bb) && bb > 0 ? bb : be;
    /* the rendezvous jump just above the limit */
    size_t above = eager + 16 <= max ? eager + 16 : 0;
    lc->rndv = 0.0;
    if (above > 0) {
        double t = pingpong(lc->peer, above, reps, buf);
        double jump = t - (lc->alpha + be * (double)above);
        lc->rndv = jump > 0 ? jump : 0.0;
    }
    lc->eager = eager;
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

static void setting(int mca, const char *name, double v)
{
    printf(mca ? " --mca %s %.3g" : "%s = %.3g\n", name, v);
}

static void print_settings(int mca, const link_class_t *intra, const link_class_t *net, double gamma)
{
    /* one host: every message of the job is intra-host, so the network
     * parameters, which price the other messages, take the intra values */
    const link_class_t *n = net->ok ? net : intra;
    printf(mca ? "# as mpirun options:\n" : "# for an MCA parameter file ($HOME/.openmpi/mca-params.conf):\n");
    if (!net->ok) {
        printf("# network: not measured (all ranks on one host): coll_topo_alpha and\n"
               "# coll_topo_beta are the intra-host values, right for one-host jobs\n");
    }
    setting(mca, "coll_topo_alpha", n->alpha);
    setting(mca, "coll_topo_beta", n->beta);
    if (intra->ok) {
        setting(mca, "coll_topo_intra_alpha", intra->alpha);
        setting(mca, "coll_topo_intra_beta", intra->beta);
    }
    setting(mca, "coll_topo_gamma", gamma);
    printf(mca ? " --mca %s %zu" : "%s = %zu\n", "coll_topo_eager_limit", n->eager);
    setting(mca, "coll_topo_rndv_alpha", n->rndv);
    if (mca) {
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    size_t max = (size_t)16 << 20;
    int reps = 1000, quick = 0, fmt_mca = 1, fmt_conf = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (0 == strcmp(a, "--help") || 0 == strcmp(a, "-h")) {
            if (0 == rank) {
                usage(stdout);
            }
            MPI_T_finalize();
            MPI_Finalize();
            return 0;
        } else if (0 == strcmp(a, "--quick")) {
            quick = 1;
        } else if (0 == strcmp(a, "--max-bytes") && i + 1 < argc) {
            max = strtoull(argv[++i], NULL, 10);
        } else if (0 == strcmp(a, "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (0 == strncmp(a, "--format=", 9) &&
                   (0 == strcmp(a + 9, "mca") || 0 == strcmp(a + 9, "conf") ||
                    0 == strcmp(a + 9, "both"))) {
            fmt_mca = 0 != strcmp(a + 9, "conf");
            fmt_conf = 0 != strcmp(a + 9, "mca");
        } else {
            if (0 == rank) {
                fprintf(stderr, "topo-calibrate: unknown or incomplete option '%s'\n", a);
                usage(stderr);
            }
            MPI_T_finalize();
            MPI_Finalize();
            return 2;
        }
    }
    if (quick) {
        max = max < ((size_t)1 << 20) ? max : (size_t)1 << 20;
        reps = reps < 200 ? reps : 200;
    }
    if (reps < 1 || max < 1024 || max > ((size_t)1 << 30)) {
        if (0 == rank) {
            fprintf(stderr, "topo-calibrate: --reps must be >= 1 and --max-bytes within 1 KiB..1 GiB\n");
        }
        MPI_T_finalize();
        MPI_Finalize();
        return 2;
    }
    if (nprocs < 2) {
        fprintf(stderr, "topo-calibrate: needs at least 2 ranks (mpirun -np 2 ...; ranks on two "
                        "hosts measure the network as well)\n");
        MPI_T_finalize();
        MPI_Finalize();
        return 2;
    }

    /* link classes: every rank's host name, the same everywhere */
    char *names = calloc((size_t)nprocs, MPI_MAX_PROCESSOR_NAME);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    char *buf = malloc(max + 64);
    if (NULL == names || NULL == buf) {
        fprintf(stderr, "topo-calibrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, 1, max + 64);
    MPI_Get_processor_name(mine, &len);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    link_class_t intra = {"intra-host", -1, 0, 0, 0, 0, NULL, 0};
    link_class_t net = {"network", -1, 0, 0, 0, 0, NULL, 0};
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
    size_t vader = cvar_size("btl_vader_eager_limit"), tcp = cvar_size("btl_tcp_eager_limit");
    if (intra.peer > 0) {
        measure(&intra, max, reps, vader > EAGER_HEADERS ? vader - EAGER_HEADERS : 0, buf);
    }
    if (net.peer > 0) {
        measure(&net, max, reps, tcp > EAGER_HEADERS ? tcp - EAGER_HEADERS : 0, buf);
    }
    double gamma = measure_gamma(quick ? (size_t)1 << 20 : (size_t)8 << 20);

    if (0 == rank) {
        printf("# coll/topo calibration: %d ranks on %d host%s\n", nprocs, hosts,
               hosts > 1 ? "s" : "");
        const link_class_t *cls[2] = {&intra, &net};
        for (int i = 0; i < 2; i++) {
            const link_class_t *lc = cls[i];
            if (lc->peer < 0) {
                printf("# %s: not measured (no pair of ranks %s)\n", lc->name,
                       i ? "on different hosts" : "on one host");
            } else if (!lc->ok) {
                printf("# %s (ranks 0 and %d): the fit failed (too few sizes below the eager "
                       "limit)\n",
                       lc->name, lc->peer);
            } else {
                printf("# %s (ranks 0 and %d): alpha %.3f us, beta %.4f ns/B (%.2f GB/s), eager "
                       "limit %zu B (from %s), rendezvous +%.3f us\n",
                       lc->name, lc->peer, lc->alpha * 1e6, lc->beta * 1e9,
                       lc->beta > 0 ? 1e-9 / lc->beta : 0.0, lc->eager, lc->eager_from,
                       lc->rndv * 1e6);
            }
        }
        printf("# reduction: gamma %.4f ns/B (MPI_Reduce_local, MPI_SUM on MPI_DOUBLE)\n",
               gamma * 1e9);
        if (!intra.ok && !net.ok) {
            printf("# no settings: nothing could be measured\n");
        } else {
            if (fmt_mca) {
                print_settings(1, &intra, &net, gamma);
            }
            if (fmt_conf) {
                print_settings(0, &intra, &net, gamma);
            }
        }
        fflush(stdout);
    }
    free(names);
    free(buf);
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
