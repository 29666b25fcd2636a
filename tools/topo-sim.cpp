/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo-sim: replay coll/topo's schedules in SimGrid.
 *
 * Every rank's schedule comes from the core (topo_algo_generate, the one
 * the component runs), message sizes from topo_block_layout over the
 * call's bytes.  The network is a SimGrid zone of our own (GridZone below):
 * on a torus or mesh one link per node, dimension and direction (full
 * duplex), routes minimal in dimension order (dimension 0 first) as the
 * cost model routes them (ompi-coll-topo/core/links.c): a message whose
 * way around an even ring is a tie (exactly half way) goes half each way,
 * as two flows (each continuing on its own; a tie in k dimensions: 2^k
 * flows of a 2^-k share).  A flow leaves from one of the source node's
 * "route variant" hosts, which differ only in the direction they take at
 * each tie.  On a star every rank has an uplink and a downlink to one
 * switch.  On a graph (graph:FILE) one link per directed link of the
 * graph, its bandwidth the file's relative bandwidth times --bandwidth,
 * routes the shortest paths of graph.h's tie rule, as the cost model's.
 *
 * One actor per rank and lane (lanes of multiport schedules run
 * independently); a lane's step: sleep the per-step and per-message
 * overheads (if the rank transfers in it), post every send and receive of
 * the step asynchronously (through a mailbox per receiver, lane and
 * sender whose receiver is permanent, so that the data flows as soon as
 * the sender posts, like an eager protocol), wait until they have all
 * ended, then reduce (an execution of one flop per reduced byte on a host
 * of 1 / gamma flop/s: the lanes of a rank share its core).
 *
 * The prediction is the core's price (decision.h: topo_price_build) with
 * alpha = latency + step overhead, beta = 1 / bandwidth, hop, gamma and
 * msg_overhead as given, copies free and no protocol switch; `auto` is the
 * decision table over the candidates priced as topo-plan prices them.
 */
#include "catalog.h"
#include "cost.h"
#include "decision.h"
#include "graph.h"
#include "rules.h"
#include "schedule.h"
#include "topology.h"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sg4 = simgrid::s4u;
namespace kr = simgrid::kernel::routing;

namespace {

const char *prog = "topo-sim";
constexpr int EXIT_USAGE = 2;

[[noreturn]] void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "%s: ", prog);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
    std::exit(code);
}

void usage(FILE *f)
{
    std::fprintf(
        f,
        "usage: %s --topology T [--primitive P] [--algorithms LIST] [--sizes LIST]\n"
        "       [--bandwidth BW] [--latency L] [--hop H] [--step-overhead O]\n"
        "       [--msg-overhead O] [--gamma G] [--root R] [--non-commutative | --exact]\n"
        "       [--price-ranks K] [--progress | --no-progress] [--cfg=SIMGRID_OPTION ...]\n"
        "\n"
        "Replays the schedules coll/topo runs (the core's generators, every rank) in the\n"
        "SimGrid simulator and prints one CSV line per algorithm and payload:\n"
        "primitive,topology,algorithm,bytes,simulated_s,predicted_s,ran\n"
        "(predicted_s: the cost model's price, as topo-plan computes it for the same\n"
        "parameters; ran: the algorithm simulated, auto's choice for auto).\n"
        "\n"
        "  --topology T       torus:AxB..., mesh:AxB..., graph:FILE (row-major, the last dimension\n"
        "                     fastest, as coll_topo_topology) or star:N (N ranks on one\n"
        "                     switch)\n"
        "  --primitive P      allreduce (default), reduce_scatter, allgather, bcast,\n"
        "                     reduce, alltoall, barrier\n"
        "  --algorithms LIST  comma-separated catalog names, auto (what the decision\n"
        "                     picks for each payload) or all (every algorithm that fits);\n"
        "                     default auto\n"
        "  --sizes LIST       payloads M in bytes, suffixes k, M, G (x1024); default\n"
        "                     8,1k,64k,1M,16M\n"
        "  --bandwidth BW     bytes per second of each link direction (default 1e10)\n"
        "  --latency L        seconds from posting a message to its first byte arriving\n"
        "                     over one link (the model's alpha; default 2e-6)\n"
        "  --hop H            seconds per link crossed beyond the first (default 0)\n"
        "  --step-overhead O  seconds a rank spends per step in which it transfers,\n"
        "                     before posting (priced as part of alpha; default 0)\n"
        "  --msg-overhead O   seconds per message a rank sends or receives in a step\n"
        "                     (the model's msg_overhead; default 0)\n"
        "  --gamma G          seconds per reduced byte (default 1e-10)\n"
        "  --root R           root of bcast and reduce (default 0)\n"
        "  --non-commutative  the operation is not commutative; --exact: exactly\n"
        "                     associative (default: a floating-point sum), as topo-plan\n"
        "  --price-ranks K    as topo-plan's (default 256; 0: every rank priced)\n"
        "  --progress         a progress bar on stderr (default when stderr is a terminal)\n"
        "  --cfg=NAME:VALUE   a SimGrid setting (default network/model:CM02,\n"
        "                     network/crosstraffic:0, network/TCP-gamma:0)\n"
        "\n"
        "Modelled: every rank's schedule step by step, lanes concurrent, each message\n"
        "a fluid flow over its route with max-min fair sharing of link bandwidth\n"
        "(SimGrid CM02, weighted by route latency), full-duplex links, one per node,\n"
        "dimension and direction, minimal dimension-order routing with ties split in\n"
        "half over both directions, a per-step and per-message software cost, and a\n"
        "reduction cost per byte on one core per rank.  A rank starts its next step when\n"
        "its own transfers of the step have ended (no barrier between steps).  Empty\n"
        "blocks are skipped as the executor skips them; a barrier's empty messages carry\n"
        "1 byte (SimGrid 3.32 gives a message of 0 bytes no latency).\n"
        "Not modelled: packets, buffers, credits, adaptive routing, injection limits of\n"
        "the network interface (a node drives all its links at once), the rendezvous\n"
        "protocol (data flows as soon as it is sent), local copies, intra-node\n"
        "placement, cross traffic and noise.\n",
        prog);
}

double parse_double(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = std::strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0) || std::isinf(v)) {
        die(EXIT_USAGE, "%s: '%s' is not a non-negative number", opt, s);
    }
    return v;
}

long parse_long(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = std::strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        die(EXIT_USAGE, "%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi);
    }
    return v;
}

/* "64k", "1M", "16MiB", "8" -> bytes (topo_bytes_parse) */
uint64_t parse_bytes(const std::string &s)
{
    double v;
    if (TOPO_OK != topo_bytes_parse(s.c_str(), &v) || v > 1e18) {
        die(EXIT_USAGE, "--sizes: '%s' is not a size (use 8, 1k, 64k, 1M, 2G)", s.c_str());
    }
    return (uint64_t)v;
}

std::vector<std::string> split(const std::string &list, const char *opt)
{
    std::vector<std::string> out;
    size_t p = 0;
    while (true) {
        size_t c = list.find(',', p);
        std::string item = list.substr(p, c == std::string::npos ? std::string::npos : c - p);
        if (item.empty()) {
            die(EXIT_USAGE, "%s: empty item in '%s'", opt, list.c_str());
        }
        out.push_back(item);
        if (c == std::string::npos) {
            break;
        }
        p = c + 1;
    }
    return out;
}

/* --- the network --------------------------------------------------------- */

/* Hosts: node n's route variant v is host v * nodes + n (variant 0 is the
 * node itself, where its actors run).  Variant bit k says which way the
 * k-th dimension that can tie (periodic, even) goes at a tie: 0 = +. */
class GridZone : public kr::NetZoneImpl {
public:
    GridZone(const std::string &name, const topo_topology_t *t, int nodes, double latency,
             double hop)
        : NetZoneImpl(name), t_(t), nodes_(nodes), latency_(latency), hop_(hop)
    {
        star_ = t->kind == TOPO_NET_STAR;
        graph_ = t->kind == TOPO_NET_GRAPH ? t->graph : nullptr;
        for (int d = 0; !star_ && d < t->ndims; d++) {
            tiebit_[d] = t->periodic[d] && 0 == t->dims[d] % 2 ? ntie_++ : -1;
        }
    }
    int variants() const { return 1 << ntie_; }
    bool star() const { return star_; }
    /* Grid: link (node, dim, dir) at ((node * ndims) + dim) * 2 + dir, as
     * links.c indexes them; star: 2 * rank (up), 2 * rank + 1 (down). */
    std::vector<simgrid::kernel::resource::StandardLinkImpl *> links;

    /* Which dimensions a message from node a to node b ties in: a mask of
     * variant bits. */
    unsigned ties(int a, int b) const
    {
        if (star_ || nullptr != graph_) {
            return 0; /* a graph's routes have no ties (graph.h's rule) */
        }
        int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
        topo_topology_coords(t_, a, c);
        topo_topology_coords(t_, b, d);
        unsigned m = 0;
        for (int i = 0; i < t_->ndims; i++) {
            const int n = t_->dims[i], fwd = ((d[i] - c[i]) % n + n) % n;
            if (fwd > 0 && tiebit_[i] >= 0 && 2 * fwd == n) {
                m |= 1u << tiebit_[i];
            }
        }
        return m;
    }

    void get_local_route(const kr::NetPoint *src, const kr::NetPoint *dst, kr::Route *into,
                         double *latency) override
    {
        const int s = (int)(src->id() % (unsigned long)nodes_);
        const int v = (int)(src->id() / (unsigned long)nodes_);
        const int r = (int)(dst->id() % (unsigned long)nodes_);
        if (s == r) {
            return;
        }
        if (star_) {
            into->link_list_.push_back(links[(size_t)s * 2]);
            into->link_list_.push_back(links[(size_t)r * 2 + 1]);
            *latency += latency_;
            return;
        }
        int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], hops = 0;
        if (nullptr != graph_) { /* shortest path, links.c's tie rule */
            for (int u = s, e; u != r; hops++) {
                u = topo_graph_next(graph_, u, r, &e);
                into->link_list_.push_back(links[(size_t)e]);
            }
            *latency += latency_ + hop_ * (hops - 1);
            return;
        }
        topo_topology_coords(t_, s, c);
        topo_topology_coords(t_, r, d);
        for (int i = 0; i < t_->ndims; i++) {
            const int n = t_->dims[i], fwd = ((d[i] - c[i]) % n + n) % n;
            if (0 == fwd) {
                continue;
            }
            int dir, steps;
            if (t_->periodic[i]) {
                if (2 * fwd == n) {
                    dir = (v >> tiebit_[i]) & 1;
                    steps = fwd;
                } else {
                    dir = 2 * fwd < n ? 0 : 1;
                    steps = dir ? n - fwd : fwd;
                }
            } else {
                dir = d[i] > c[i] ? 0 : 1;
                steps = std::abs(d[i] - c[i]);
            }
            for (int j = 0; j < steps; j++) {
                const size_t node = (size_t)topo_topology_rank(t_, c);
                into->link_list_.push_back(links[(node * (size_t)t_->ndims + (size_t)i) * 2 + (size_t)dir]);
                c[i] = (c[i] + (dir ? n - 1 : 1)) % n;
                hops++;
            }
        }
        *latency += latency_ + hop_ * (hops - 1);
    }

private:
    const topo_topology_t *t_;
    int nodes_;
    double latency_, hop_;
    bool star_ = false;
    const topo_graph_t *graph_ = nullptr;
    int ntie_ = 0;
    int tiebit_[TOPO_MAX_DIMS] = {0};
};

/* --- the replay ---------------------------------------------------------- */

/* A message, from the sender's side (to peer) or the receiver's (from
 * peer), through the mailbox of its (receiver, lane, sender). */
struct Xfer {
    int peer;
    uint64_t bytes;
    sg4::Mailbox *mbox;
};

struct Step {
    size_t send0, nsend; /* into RankPlan::sends */
    size_t recv0, nrecv; /* into RankPlan::recvs */
    int msgs;            /* messages sent and received */
    uint64_t reduced;    /* bytes reduced after the step */
};

struct Lane {
    std::vector<Step> steps;
    std::vector<sg4::Mailbox *> inboxes; /* its (rank, lane, sender) mailboxes */
};

struct RankPlan {
    std::vector<Xfer> sends, recvs;
    std::vector<Lane> lanes;
};

struct Sim {
    GridZone *zone = nullptr;
    std::vector<sg4::Host *> hosts; /* variants * nodes */
    int nodes = 0;
    double step_overhead = 0, msg_overhead = 0, gamma = 0;
    std::vector<RankPlan> plans;
    std::unordered_map<uint64_t, sg4::Mailbox *> mailboxes;
    size_t finished = 0; /* lanes that ended */
};

Sim sim;
char token; /* what every message carries: nothing */

/* The mailbox of the messages that `sender` sends to `receiver` in `lane`:
 * one per pair and lane, so that a receiver takes each sender's messages
 * in the order they were sent (step by step), whatever other senders do. */
sg4::Mailbox *mailbox(int receiver, int lane, int sender)
{
    const uint64_t key = ((uint64_t)receiver * 64 + (uint64_t)lane) * (uint64_t)sim.nodes + (uint64_t)sender;
    auto it = sim.mailboxes.find(key);
    if (it != sim.mailboxes.end()) {
        return it->second;
    }
    sg4::Mailbox *mb = sg4::Mailbox::by_name("m" + std::to_string(receiver) + "." + std::to_string(lane) +
                                             "." + std::to_string(sender));
    sim.mailboxes.emplace(key, mb);
    return mb;
}

/* Bytes of the ranges [r0, r0 + n) of s under the layout off. */
uint64_t range_bytes(const topo_sched_t *s, const std::vector<size_t> &off, int r0, int n)
{
    uint64_t b = 0;
    for (int i = 0; i < n; i++) {
        const topo_range_t *r = &s->ranges[r0 + i];
        b += off[(size_t)(r->first + r->count)] - off[(size_t)r->first];
    }
    return b;
}

/* Generate rank r's schedule of algo for a payload of m bytes and keep
 * what the replay needs. */
void plan_rank(const topo_algo_t *algo, const topo_gen_args_t *args, int r, uint64_t m,
               RankPlan &out)
{
    topo_gen_args_t a = *args;
    a.rank = r;
    topo_sched_t s;
    int rc = topo_algo_generate(algo, &a, &s);
    if (TOPO_OK != rc) {
        die(1, "%s cannot generate rank %d's schedule (error %d)", algo->name, r, rc);
    }
    /* blocks of M / mblocks bytes, as topo-plan --dump lays them out: M is
     * the payload (alltoall: one rank's send buffer) */
    const size_t all = s.mblocks > 0 && s.mblocks != s.nblocks
                           ? (size_t)((double)m * topo_sched_block_share(&s) + 0.5) * (size_t)s.nblocks
                           : (size_t)m;
    std::vector<size_t> off((size_t)s.nblocks + 1);
    topo_block_layout(&s, all, nullptr, off.data());
    out.sends.clear();
    out.recvs.clear();
    out.lanes.clear();
    out.lanes.resize((size_t)s.nlanes);
    if (s.nlanes > 64) { /* mailbox() keys lanes by 6 bits */
        die(1, "%s: %d lanes, more than the 64 this tool handles", algo->name, s.nlanes);
    }
    for (int l = 0; l < s.nlanes; l++) {
        Lane &lane = out.lanes[(size_t)l];
        std::unordered_set<sg4::Mailbox *> seen;
        lane.steps.resize((size_t)s.lanes[l].nsteps);
        for (int k = 0; k < s.lanes[l].nsteps; k++) {
            const topo_step_t *st = topo_sched_lane_step(&s, l, k);
            Step &o = lane.steps[(size_t)k];
            o = Step{out.sends.size(), 0, out.recvs.size(), 0, 0, 0};
            for (int i = 0; i < st->nxfers; i++) {
                const topo_xfer_t *x = &s.xfers[st->xfer0 + i];
                if (x->kind == TOPO_XFER_COPY) {
                    continue; /* local copies: not modelled */
                }
                const uint64_t b = range_bytes(&s, off, x->range0, x->nranges);
                if (0 == b && !s.sync) {
                    continue; /* skipped by both ends, as the executor does */
                }
                o.msgs++;
                if (x->kind == TOPO_XFER_SEND) {
                    out.sends.push_back(Xfer{x->peer, b, mailbox(x->peer, l, r)});
                    o.nsend++;
                } else {
                    sg4::Mailbox *mb = mailbox(r, l, x->peer);
                    out.recvs.push_back(Xfer{x->peer, b, mb});
                    o.nrecv++;
                    if (seen.insert(mb).second) {
                        lane.inboxes.push_back(mb);
                    }
                    if (x->kind == TOPO_XFER_RECV_REDUCE || x->kind == TOPO_XFER_RECV_REDUCE_POST) {
                        o.reduced += b;
                    }
                }
            }
        }
    }
    topo_sched_free(&s);
}

/* The flows of a message (a tie in k dimensions: 2^k of them, one per
 * route variant, the bytes split as evenly as whole bytes allow); part f
 * of nf. */
uint64_t flow_bytes(uint64_t bytes, int nf, int f)
{
    return bytes / (uint64_t)nf + ((uint64_t)f < bytes % (uint64_t)nf ? 1 : 0);
}

/* Eager messages: a mailbox with a permanent receiver starts each message
 * as soon as it is sent (SimGrid then keeps it for the receiver's get), so
 * the data flows whether or not the receiver is in that step yet.  A flow
 * of a tie leaves from a route variant of the node: a helper actor there
 * sends it. */
void run_lane(int rank, int lane)
{
    RankPlan &plan = sim.plans[(size_t)rank];
    Lane &l = plan.lanes[(size_t)lane];
    std::vector<sg4::CommPtr> comms;
    std::vector<sg4::ActorPtr> helpers;
    std::vector<void *> got;
    for (size_t k = 0; k < l.steps.size(); k++) {
        const Step &st = l.steps[k];
        if (st.msgs > 0) {
            const double o = sim.step_overhead + sim.msg_overhead * st.msgs;
            if (o > 0) {
                sg4::this_actor::sleep_for(o);
            }
        }
        comms.clear();
        helpers.clear();
        for (size_t i = 0; i < st.nsend; i++) {
            const Xfer &x = plan.sends[st.send0 + i];
            const unsigned ties = sim.zone->ties(rank, x.peer);
            const int nf = 1 << __builtin_popcount(ties);
            int f = 0;
            for (unsigned v = ties;; v = (v - 1) & ties) {
                const uint64_t part = flow_bytes(x.bytes, nf, f++);
                sg4::Host *from = sim.hosts[(size_t)v * (size_t)sim.nodes + (size_t)rank];
                sg4::Mailbox *mb = x.mbox;
                /* SimGrid 3.32 ends a comm of 0 bytes without its
                 * latency where the message comes before the receiver's
                 * get, or never (host to host): an empty message (a
                 * barrier's) carries 1 byte */
                const uint64_t size = part > 0 ? part : 1;
                if (0 == v) {
                    comms.push_back(mb->put_async(&token, size));
                    break;
                }
                helpers.push_back(sg4::Actor::create("t", from, [mb, size] { mb->put(&token, size); }));
            }
        }
        size_t nget = 0;
        for (size_t i = 0; i < st.nrecv; i++) {
            const Xfer &x = plan.recvs[st.recv0 + i];
            nget += (size_t)1 << __builtin_popcount(sim.zone->ties(x.peer, rank));
        }
        got.assign(nget, nullptr);
        size_t g = 0;
        for (size_t i = 0; i < st.nrecv; i++) {
            const Xfer &x = plan.recvs[st.recv0 + i];
            const int nf = 1 << __builtin_popcount(sim.zone->ties(x.peer, rank));
            for (int f = 0; f < nf; f++) {
                comms.push_back(x.mbox->get_async<void>(&got[g++]));
            }
        }
        sg4::Comm::wait_all(comms);
        for (const sg4::ActorPtr &h : helpers) {
            h->join();
        }
        if (st.reduced > 0 && sim.gamma > 0) {
            sg4::this_actor::execute((double)st.reduced);
        }
    }
    sim.finished++;
}

/* Simulated seconds of one call of algo on every rank. */
double simulate(const topo_algo_t *algo, const topo_gen_args_t *args, uint64_t m)
{
    const int p = args->size;
    sim.plans.assign((size_t)p, RankPlan());
    for (int r = 0; r < p; r++) {
        plan_rank(algo, args, r, m, sim.plans[(size_t)r]);
    }
    const double t0 = sg4::Engine::get_clock();
    size_t lanes = 0;
    sim.finished = 0;
    for (int r = 0; r < p; r++) {
        lanes += sim.plans[(size_t)r].lanes.size();
        for (size_t l = 0; l < sim.plans[(size_t)r].lanes.size(); l++) {
            sg4::ActorPtr actor = sg4::Actor::create("r" + std::to_string(r) + "." + std::to_string(l),
                                                     sim.hosts[(size_t)r], run_lane, r, (int)l);
            for (sg4::Mailbox *mb : sim.plans[(size_t)r].lanes[l].inboxes) {
                mb->set_receiver(actor);
            }
        }
    }
    sg4::Engine::get_instance()->run();
    if (sim.finished != lanes) {
        die(1, "%s on %llu bytes: %zu of %zu lanes did not finish (a deadlock)", algo->name,
            (unsigned long long)m, lanes - sim.finished, lanes);
    }
    const double t = sg4::Engine::get_clock() - t0;
    for (const RankPlan &plan : sim.plans) {
        for (const Lane &l : plan.lanes) {
            for (sg4::Mailbox *mb : l.inboxes) {
                mb->set_receiver(nullptr);
            }
        }
    }
    sim.plans.clear();
    return t;
}

void progress(bool on, size_t done, size_t total, const char *what)
{
    if (!on) {
        return;
    }
    const int width = 30, fill = total ? (int)(done * (size_t)width / total) : width;
    std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu %-32.32s", fill, "##############################",
                 width - fill, "", done, total, what);
    if (done == total) {
        std::fputc('\n', stderr);
    }
    std::fflush(stderr);
}

double cpu_seconds()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

} // namespace

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (0 == std::strcmp(argv[i], "-h") || 0 == std::strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        }
    }
    static char cfg_model[] = "--cfg=network/model:CM02";
    static char cfg_cross[] = "--cfg=network/crosstraffic:0";
    static char cfg_tcp[] = "--cfg=network/TCP-gamma:0";
    static char log_warn[] = "--log=root.thresh:warning";
    std::vector<char *> sargv{argv[0], cfg_model, cfg_cross, cfg_tcp, log_warn};
    sargv.insert(sargv.end(), argv + 1, argv + argc);
    sargv.push_back(nullptr);
    int sargc = (int)sargv.size() - 1;
    /* SimGrid's settings for an HPC fabric, before the user's --cfg (the
     * Engine takes its options out of the list) */
    sg4::Engine engine(&sargc, sargv.data());
    argv = sargv.data();

    const char *topology = nullptr, *primitive = "allreduce";
    std::string algorithms = "auto", sizes = "8,1k,64k,1M,16M";
    double bw = 1e10, latency = TOPO_COST_ALPHA, hop = 0, gamma = TOPO_COST_GAMMA;
    double step_overhead = 0, msg_overhead = 0;
    long root = 0, price_ranks = 256;
    int opclass = TOPO_OP_COMMUTATIVE, show = isatty(2) ? 1 : 0;
    for (int i = 1; i < sargc; i++) {
        const char *opt = argv[i], *val = nullptr;
        std::string name;
        const char *eq = std::strchr(opt, '=');
        if (0 == std::strncmp(opt, "--", 2) && nullptr != eq) {
            name.assign(opt, (size_t)(eq - opt));
            opt = name.c_str();
            val = eq + 1;
        }
        if (0 == std::strcmp(opt, "--non-commutative")) {
            opclass = TOPO_OP_ORDERED;
            continue;
        }
        if (0 == std::strcmp(opt, "--exact")) {
            opclass = TOPO_OP_EXACT;
            continue;
        }
        if (0 == std::strcmp(opt, "--progress")) {
            show = 1;
            continue;
        }
        if (0 == std::strcmp(opt, "--no-progress")) {
            show = 0;
            continue;
        }
        static const char *const with_value[] = {
            "--topology", "--primitive",     "--algorithms",   "--sizes",       "--bandwidth",
            "--latency",  "--hop",           "--step-overhead", "--msg-overhead", "--gamma",
            "--root",     "--price-ranks"};
        bool known = false;
        for (const char *w : with_value) {
            known = known || 0 == std::strcmp(opt, w);
        }
        if (!known) {
            std::fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
        if (nullptr == val) {
            if (i + 1 >= sargc) {
                die(EXIT_USAGE, "%s needs a value", opt);
            }
            val = argv[++i];
        }
        if (0 == std::strcmp(opt, "--topology")) {
            topology = val;
        } else if (0 == std::strcmp(opt, "--primitive")) {
            primitive = val;
        } else if (0 == std::strcmp(opt, "--algorithms")) {
            algorithms = val;
        } else if (0 == std::strcmp(opt, "--sizes")) {
            sizes = val;
        } else if (0 == std::strcmp(opt, "--bandwidth")) {
            bw = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--latency")) {
            latency = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--hop")) {
            hop = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--step-overhead")) {
            step_overhead = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--msg-overhead")) {
            msg_overhead = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--gamma")) {
            gamma = parse_double(opt, val);
        } else if (0 == std::strcmp(opt, "--root")) {
            root = parse_long(opt, val, 0, 1L << 24);
        } else if (0 == std::strcmp(opt, "--price-ranks")) {
            price_ranks = parse_long(opt, val, 0, 1L << 24);
        }
    }
    if (nullptr == topology) {
        std::fprintf(stderr, "%s: --topology is required\n", prog);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!(bw > 0)) {
        die(EXIT_USAGE, "--bandwidth must be positive");
    }
    if (!(latency > 0)) {
        die(EXIT_USAGE, "--latency must be positive (SimGrid shares bandwidth by route latency)");
    }

    /* the topology: star:N is ours; the rest is coll_topo_topology's */
    topo_topology_t topo;
    std::memset(&topo, 0, sizeof(topo));
    int p = 0;
    if (0 == std::strncmp(topology, "star:", 5)) {
        topo.kind = TOPO_NET_STAR;
        p = (int)parse_long("--topology star:N", topology + 5, 1, 1L << 20);
    } else {
        char err[256];
        if (TOPO_OK != topo_topology_parse(topology, &topo, err, sizeof(err))) {
            die(EXIT_USAGE, "--topology: %s", err);
        }
        if (topo.kind != TOPO_NET_TORUS && topo.kind != TOPO_NET_MESH &&
            topo.kind != TOPO_NET_GRAPH) {
            die(EXIT_USAGE, "--topology: torus:..., mesh:..., graph:FILE or star:N, not '%s'",
                topology);
        }
        if (0 != topo.ports) {
            die(EXIT_USAGE, "--topology: ports= is not modelled (a node drives all its links)");
        }
        p = topo_topology_size(&topo);
    }
    char topo_name[128];
    if (topo.kind == TOPO_NET_STAR) {
        std::snprintf(topo_name, sizeof(topo_name), "star:%d", p);
    } else {
        topo_topology_format(&topo, topo_name, sizeof(topo_name));
    }
    const int prim = topo_prim_find(primitive, std::strlen(primitive));
    if (prim < 0) {
        die(EXIT_USAGE, "--primitive: unknown primitive '%s'", primitive);
    }
    if (root >= p) {
        die(EXIT_USAGE, "--root %ld: only %d ranks", root, p);
    }
    std::vector<uint64_t> payloads;
    for (const std::string &s : split(sizes, "--sizes")) {
        payloads.push_back(parse_bytes(s));
    }

    topo_gen_args_t gen;
    std::memset(&gen, 0, sizeof(gen));
    gen.prim = (topo_prim_t)prim;
    gen.size = p;
    gen.root = (int)root;
    gen.topo = &topo;
    topo_cost_params_t params = {latency + step_overhead, 1.0 / bw, gamma};
    topo_cost_net_t net;
    std::memset(&net, 0, sizeof(net));
    net.hop = hop;
    net.msg_overhead = msg_overhead;
    net.price_ranks = (int)price_ranks;
    topo_proto_t proto = {0, 0, 0};

    /* the candidates, priced and decided as topo-plan does */
    int ncat;
    const topo_algo_t *cat = topo_catalog(&ncat);
    std::vector<const topo_algo_t *> fit;
    for (int i = 0; i < ncat; i++) {
        char why[256];
        if (cat[i].prim == (topo_prim_t)prim &&
            topo_algo_fits(&cat[i], &gen, opclass, why, sizeof(why))) {
            fit.push_back(&cat[i]);
        }
    }
    std::vector<std::string> names;
    for (const std::string &a : split(algorithms, "--algorithms")) {
        if (a == "all") {
            for (const topo_algo_t *f : fit) {
                names.push_back(f->name);
            }
        } else {
            names.push_back(a);
        }
    }
    for (const std::string &a : names) {
        if (a == "auto") {
            continue;
        }
        const topo_algo_t *algo = topo_catalog_find((topo_prim_t)prim, a.c_str());
        if (nullptr == algo) {
            die(EXIT_USAGE, "--algorithms: no %s algorithm '%s'", primitive, a.c_str());
        }
        char why[256];
        if (!topo_algo_fits(algo, &gen, opclass, why, sizeof(why))) {
            die(EXIT_USAGE, "--algorithms: %s does not fit this call: %s", a.c_str(), why);
        }
    }
    /* auto's decision table (priced only where auto is asked for: on
     * thousands of ranks pricing every candidate takes seconds) */
    const double cpu_start = cpu_seconds();
    const bool want_auto = std::find(names.begin(), names.end(), "auto") != names.end();
    const size_t nfit = want_auto ? fit.size() : 0;
    std::vector<topo_price_t> prices(nfit + 1);
    std::vector<int> rcs(nfit + 1);
    if (TOPO_OK != topo_price_candidates(fit.data(), (int)nfit, &gen, &params, &net, &proto, 1,
                                         prices.data(), rcs.data(), nullptr)) {
        die(1, "out of memory");
    }
    std::vector<const topo_price_t *> pr(nfit + 1, nullptr);
    for (size_t i = 0; i < nfit; i++) {
        pr[i] = TOPO_OK == rcs[i] ? &prices[i] : nullptr;
    }
    topo_decision_t table;
    if (TOPO_OK != topo_decision_build(pr.data(), (int)nfit, &table)) {
        die(1, "out of memory");
    }
    double cpu_price = cpu_seconds() - cpu_start, cpu_sim = 0;

    /* the platform */
    auto *zone = new GridZone("topo-sim", &topo, p, latency, hop);
    sim.zone = zone;
    sim.nodes = p;
    sim.step_overhead = step_overhead;
    sim.msg_overhead = msg_overhead;
    sim.gamma = gamma;
    const int variants = zone->variants();
    const double speed = gamma > 0 ? 1.0 / gamma : 1.0;
    for (int v = 0; v < variants; v++) {
        for (int n = 0; n < p; n++) {
            std::string hn = "n" + std::to_string(n) + (v ? "v" + std::to_string(v) : "");
            sim.hosts.push_back(zone->create_host(hn, std::vector<double>{speed})->seal());
        }
    }
    const size_t nlinks = zone->star()                  ? (size_t)p * 2
                          : topo.kind == TOPO_NET_GRAPH ? (size_t)topo.graph->m
                                                        : (size_t)p * (size_t)topo.ndims * 2;
    for (size_t k = 0; k < nlinks; k++) {
        /* a graph's link k has its relative bandwidth times --bandwidth */
        const double kbw = topo.kind == TOPO_NET_GRAPH ? bw * topo.graph->bw[k] : bw;
        sg4::Link *link = zone->create_link("l" + std::to_string(k), std::vector<double>{kbw});
        link->set_latency(0)->seal();
        zone->links.push_back(link->get_impl());
    }
    zone->seal();

    std::printf("primitive,topology,algorithm,bytes,simulated_s,predicted_s,ran\n");
    const size_t total = names.size() * payloads.size();
    size_t done = 0;
    for (const std::string &a : names) {
        for (uint64_t m : payloads) {
            const topo_algo_t *algo = nullptr;
            if (a == "auto") {
                const int k = topo_decision_lookup(&table, (size_t)m);
                if (k < 0) {
                    die(1, "auto: no candidate for %llu bytes", (unsigned long long)m);
                }
                algo = fit[(size_t)k];
            } else {
                algo = topo_catalog_find((topo_prim_t)prim, a.c_str());
            }
            progress(show, done, total, (a + " " + std::to_string(m)).c_str());
            double c0 = cpu_seconds();
            topo_price_t price;
            if (TOPO_OK != topo_price_build(algo, &gen, &params, &net, &proto, &price)) {
                die(1, "the cost model could not price %s", algo->name);
            }
            const double predicted = topo_price_at(&price, (size_t)m);
            topo_price_free(&price);
            double c1 = cpu_seconds();
            cpu_price += c1 - c0;
            const double t = simulate(algo, &gen, m);
            cpu_sim += cpu_seconds() - c1;
            std::printf("%s,%s,%s,%llu,%.9e,%.9e,%s\n", primitive, topo_name, a.c_str(),
                        (unsigned long long)m, t, predicted, algo->name);
            std::fflush(stdout);
            progress(show, ++done, total, "");
        }
    }
    std::fprintf(stderr,
                 "%s: %zu simulation(s) of %d ranks, %.2f s of CPU (schedules and simulation %.2f s, "
                 "the cost model %.2f s)\n",
                 prog, total, p, cpu_seconds() - cpu_start, cpu_sim, cpu_price);
    for (size_t i = 0; i < nfit; i++) {
        topo_price_free(&prices[i]);
    }
    topo_decision_free(&table);
    return 0;
}
