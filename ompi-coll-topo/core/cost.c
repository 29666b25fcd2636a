/*
 * The cost model (see cost.h), derived from the schedules.
 *
 * Blocks are priced at their exact share of the payload M (block b of an
 * evenly split vector is M / nblocks bytes), so every term is proportional
 * to M and the cost is affine: lat + per_byte * M.  A step costs alpha if
 * any rank transfers in it, plus the slowest rank's time to move its bytes:
 * a rank with P ports sends (and, full duplex, receives) on up to P links
 * at once, so its time is beta * max(largest message, bytes / P) in each
 * direction, plus gamma per byte it reduces.  Lanes run in lockstep for
 * pricing: step s of every lane forms one step.  (Link contention on the
 * real topology is the decision issue's extension of this function.)
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    double send_sum, send_max, recv_sum, recv_max, reduce;
    int active;
} rank_step_t;

static void price_rank(const topo_sched_t *s, int ports, int depth, double *step_bytes,
                       double *step_any, const topo_cost_params_t *p)
{
    const double share = s->nblocks ? 1.0 / s->nblocks : 0.0;
    for (int st = 0; st < depth; st++) {
        rank_step_t t;
        memset(&t, 0, sizeof(t));
        for (int l = 0; l < s->nlanes; l++) {
            if (st >= s->lanes[l].nsteps) {
                continue;
            }
            const topo_step_t *step = topo_sched_lane_step(s, l, st);
            for (int i = 0; i < step->nxfers; i++) {
                const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                double bytes = x->nblk * share;
                t.active = 1;
                if (x->kind == TOPO_XFER_SEND) {
                    t.send_sum += bytes;
                    t.send_max = bytes > t.send_max ? bytes : t.send_max;
                } else if (x->kind != TOPO_XFER_COPY) {
                    t.recv_sum += bytes;
                    t.recv_max = bytes > t.recv_max ? bytes : t.recv_max;
                    if (x->kind != TOPO_XFER_RECV_COPY) {
                        t.reduce += bytes;
                    }
                }
            }
        }
        double out = t.send_sum / ports > t.send_max ? t.send_sum / ports : t.send_max;
        double in = t.recv_sum / ports > t.recv_max ? t.recv_sum / ports : t.recv_max;
        double time = p->beta * (out > in ? out : in) + p->gamma * t.reduce;
        if (time > step_bytes[st]) {
            step_bytes[st] = time;
        }
        step_any[st] = step_any[st] || t.active;
    }
}

int topo_cost_affine(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, double *lat, double *per_byte)
{
    double *bytes = NULL, *any = NULL;
    int depth = 0, rc = TOPO_OK;
    const int ports = topo_topology_ports(a->topo, a->size);
    *lat = *per_byte = 0.0;
    for (int r = 0; r < a->size && TOPO_OK == rc; r++) {
        topo_sched_t s;
        topo_gen_args_t ar = *a;
        ar.rank = r;
        if (TOPO_OK != (rc = topo_algo_generate(algo, &ar, &s))) {
            break;
        }
        int d = topo_sched_depth(&s);
        if (d > depth) {
            double *nb = realloc(bytes, sizeof(double) * (size_t)d);
            double *na = nb ? realloc(any, sizeof(double) * (size_t)d) : NULL;
            if (nb) {
                bytes = nb;
            }
            if (NULL == na) {
                rc = TOPO_ENOMEM;
            } else {
                any = na;
                for (int i = depth; i < d; i++) {
                    bytes[i] = any[i] = 0.0;
                }
                depth = d;
            }
        }
        if (TOPO_OK == rc) {
            price_rank(&s, ports, d, bytes, any, p);
        }
        topo_sched_free(&s);
    }
    for (int st = 0; st < depth && TOPO_OK == rc; st++) {
        *lat += any[st] ? p->alpha : 0.0;
        *per_byte += bytes[st];
    }
    free(bytes);
    free(any);
    return rc;
}

double topo_cost_algo(const topo_algo_t *algo, const topo_gen_args_t *a, size_t count,
                      size_t elem_size, const topo_cost_params_t *p)
{
    double lat, per_byte;
    if (TOPO_OK != topo_cost_affine(algo, a, p, &lat, &per_byte)) {
        return -1.0;
    }
    return lat + per_byte * (double)count * (double)elem_size;
}
