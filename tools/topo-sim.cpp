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
 * Where every rank's schedule is its representative's moved by a
 * translation of the torus (checked rank by rank and payload by payload:
 * find_symmetry), only the representatives are replayed, each flow over
 * its full route with every link replaced by its orbit's representative
 * (simulate_orbits: exact, see "the aggregated replay" below).
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
        "       [--price-ranks K] [--progress | --no-progress] [--no-aggregate]\n"
        "       [--list-algorithms] [--cfg=SIMGRID_OPTION ...]\n"
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
        "                     picks for each payload), tuned (what Open MPI 4.1's coll/tuned\n"
        "                     fixed decision picks for a commutative allreduce: ring,\n"
        "                     recursive_doubling (also for its reduce + bcast),\n"
        "                     rabenseifner) or all (every algorithm that fits); default auto\n"
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
        "  --list-algorithms  print the algorithms that fit (all's list) and exit\n"
        "  --no-aggregate     replay every rank even where the schedules are translation\n"
        "                     invariant (default: one rank per orbit, the same result)\n"
        "  --cfg=NAME:VALUE   a SimGrid setting (default network/model:CM02,\n"
        "                     network/crosstraffic:0, network/TCP-gamma:0,\n"
        "                     contexts/stack-size:128, contexts/guard-size:0)\n"
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

/* --- coll/tuned's choice -------------------------------------------------- */

/* The allreduce that Open MPI 4.1's coll/tuned picks by its fixed decision
 * for a commutative operation on a communicator of p ranks and a payload
 * of m bytes, as a catalog name.  tuned's ring and segmented ring are the
 * catalog's ring (segments split each ring message; the messages and
 * steps are the ring's), its recursive doubling and Rabenseifner the
 * catalog's; its non-overlapping reduce-then-broadcast (a binomial reduce
 * to rank 0, then a binomial broadcast: 2 log2 p steps of the whole
 * vector), which it picks below 2 KiB to 128 KiB on 128 ranks or more,
 * is taken as recursive doubling (log2 p steps of the whole vector), no
 * slower at those sizes: a gain over it understates the gain over tuned. */
const char *tuned_allreduce(int p, uint64_t m)
{
    enum { RING, RD, RAB, TREES };
    struct Cut {
        uint64_t below; /* payloads below this many bytes ... */
        int algo;       /* ... take this one */
    };
    struct Band {
        int below; /* communicators of fewer ranks */
        Cut cuts[7];
    };
    static const uint64_t ALL = UINT64_MAX;
    static const Band bands[] = {
        {4, {{8, RING}, {4096, RD}, {8192, RING}, {16384, RD}, {262144, RING}, {ALL, RAB}}},
        {8, {{16, RING}, {8192, RD}, {ALL, RAB}}},
        {16, {{8192, RD}, {ALL, RAB}}},
        {32, {{64, RING}, {4096, RD}, {ALL, RAB}}},
        {64, {{128, RING}, {ALL, RAB}}},
        {128, {{262144, RD}, {ALL, RAB}}},
        {256, {{131072, TREES}, {262144, RD}, {ALL, RAB}}},
        {512, {{4096, TREES}, {ALL, RAB}}},
        {2048, {{2048, TREES}, {16384, RD}, {ALL, RAB}}},
        {4096, {{2048, TREES}, {4096, RING}, {16384, RD}, {ALL, RAB}}},
        {INT32_MAX, {{2048, TREES}, {16384, RING}, {32768, RD}, {ALL, RAB}}},
    };
    static const char *const names[] = {"ring", "recursive_doubling", "rabenseifner", "recursive_doubling"};
    for (const Band &b : bands) {
        if (p < b.below) {
            for (const Cut &c : b.cuts) {
                if (m < c.below) {
                    return names[c.algo];
                }
            }
        }
    }
    return names[RAB];
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
        const unsigned long sid = src->id();
        int s, v, r;
        const std::vector<int> *orbit = nullptr;
        if (sid >= port_base) { /* a port of the aggregated replay */
            const Port &pt = ports[(size_t)(sid - port_base)];
            s = pt.s;
            v = pt.v;
            r = pt.r;
            orbit = &rep_of;
        } else {
            s = (int)(sid % (unsigned long)nodes_);
            v = (int)(sid / (unsigned long)nodes_);
            r = (int)(dst->id() % (unsigned long)nodes_);
        }
        if (s == r) {
            return;
        }
        const int hops = path(s, v, r, orbit, into->link_list_);
        *latency += latency_ + hop_ * (hops - 1);
    }

    /* Links of the route from node s (route variant v) to node r, appended
     * to out; orbit: null, or each node's representative, the link taken
     * being the representative's of the same dimension and direction (a
     * translation-invariant replay: the link stands for its whole orbit).
     * Returns the number of links crossed. */
    template <class L> int path(int s, int v, int r, const std::vector<int> *orbit, L &out) const
    {
        auto node_of = [&](size_t n) { return nullptr == orbit ? n : (size_t)(*orbit)[n]; };
        if (star_) {
            out.push_back(links[node_of((size_t)s) * 2]);
            out.push_back(links[node_of((size_t)r) * 2 + 1]);
            return 1;
        }
        int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], hops = 0;
        if (nullptr != graph_) { /* shortest path, links.c's tie rule */
            for (int u = s, e; u != r; hops++) {
                u = topo_graph_next(graph_, u, r, &e);
                out.push_back(links[(size_t)e]);
            }
            return hops;
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
                const size_t node = node_of((size_t)topo_topology_rank(t_, c));
                out.push_back(links[(node * (size_t)t_->ndims + (size_t)i) * 2 + (size_t)dir]);
                c[i] = (c[i] + (dir ? n - 1 : 1)) % n;
                hops++;
            }
        }
        return hops;
    }

    /* The aggregated replay's ports: a host whose every flow goes from node
     * s (route variant v) to node r, over the orbit links of rep_of. */
    struct Port {
        int s, v, r;
    };
    std::vector<Port> ports;
    unsigned long port_base = ~0UL;
    std::vector<int> rep_of;

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

/* Bytes of x's ranges (`ranges`: topo_step_view_t.ranges) under the
 * layout off. */
uint64_t range_bytes(const topo_range_t *ranges, const std::vector<size_t> &off,
                     const topo_xfer_t *x)
{
    uint64_t b = 0;
    topo_range_iter_t it;
    topo_range_t r;
    for (topo_range_iter(&it, ranges, x, 0); topo_range_next(&it, &r);) {
        b += off[(size_t)(r.first + r.count)] - off[(size_t)r.first];
    }
    return b;
}

/* Rank r's schedule of algo (the core's generator, the executor's). */
void generate(const topo_algo_t *algo, const topo_gen_args_t *args, int r, topo_sched_t *s)
{
    topo_gen_args_t a = *args;
    a.rank = r;
    int rc = topo_algo_generate(algo, &a, s);
    if (TOPO_OK != rc) {
        die(1, "%s cannot generate rank %d's schedule (error %d)", algo->name, r, rc);
    }
}

/* Generate rank r's schedule of algo for a payload of m bytes and keep
 * what the replay needs. */
void plan_rank(const topo_algo_t *algo, const topo_gen_args_t *args, int r, uint64_t m,
               RankPlan &out)
{
    topo_sched_t s;
    generate(algo, args, r, &s);
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
            topo_step_view_t v;
            topo_sched_step_at(&s, l, k, &v);
            Step &o = lane.steps[(size_t)k];
            o = Step{out.sends.size(), 0, out.recvs.size(), 0, 0, 0};
            for (int i = 0; i < v.nxfers; i++) {
                const topo_range_t *rg;
                const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
                if (x->kind == TOPO_XFER_COPY) {
                    continue; /* local copies: not modelled */
                }
                const uint64_t b = range_bytes(rg, off, x);
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

/* A step's software costs, before it posts its messages (none where the
 * rank transfers nothing in it). */
void step_overhead(int msgs)
{
    const double o = msgs > 0 ? sim.step_overhead + sim.msg_overhead * msgs : 0;
    if (o > 0) {
        sg4::this_actor::sleep_for(o);
    }
}

/* The reduction after a step: one flop per byte on the rank's core. */
void reduce(uint64_t bytes)
{
    if (bytes > 0 && sim.gamma > 0) {
        sg4::this_actor::execute((double)bytes);
    }
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
        step_overhead(st.msgs);
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
        reduce(st.reduced);
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

/* --- the aggregated replay ----------------------------------------------- */

/* Translation symmetry.  On a torus, translating every coordinate by t is
 * an automorphism of the network (links, dimension-order routes and ties
 * alike).  Where every rank's schedule is its representative's translated
 * (peers moved by t, the same kinds and the same bytes in every step), the
 * replay on all ranks is symmetric too: the max-min fair shares are unique,
 * so translated flows get equal rates and every rank of an orbit is in the
 * same state at every instant.  The replay then needs one rank per orbit:
 * the representatives run their schedules, each flow goes over the route
 * of the full network with every link replaced by its orbit's
 * representative (the link of the same dimension and direction at the
 * representative node), a link crossed k times by a route counting k
 * times against its bandwidth.  That is exact: an orbit link's constraint
 * is the same sum over the flows' orbits as any link of the orbit in the
 * full replay.  The translations used are those of period[d] along
 * dimension d (the smallest that rank 0's schedule admits); every rank is
 * then checked against its representative, at every payload. */

struct SymXfer {
    int peer;
    uint8_t send, reduce;
};

/* One rank's schedule, every non-copy transfer, bytes at every payload. */
struct ShapePlan {
    std::vector<std::vector<std::pair<size_t, size_t>>> lanes; /* steps: [x0, x1) */
    std::vector<SymXfer> x;
    std::vector<uint64_t> bytes; /* x.size() * npayloads */
    bool sync = false;
};

void shape_rank(const topo_algo_t *algo, const topo_gen_args_t *args, int r,
                const std::vector<uint64_t> &ms, ShapePlan &out)
{
    topo_sched_t s;
    generate(algo, args, r, &s);
    const size_t nm = ms.size();
    /* the layouts of every payload (the same for every rank where the
     * blocks and totals are: kept from the last rank's) */
    static std::vector<std::vector<size_t>> offs;
    static std::vector<size_t> alls;
    std::vector<size_t> all(nm);
    for (size_t k = 0; k < nm; k++) {
        all[k] = s.mblocks > 0 && s.mblocks != s.nblocks
                     ? (size_t)((double)ms[k] * topo_sched_block_share(&s) + 0.5) * (size_t)s.nblocks
                     : (size_t)ms[k];
    }
    if (all != alls || offs.size() != nm || (nm > 0 && offs[0].size() != (size_t)s.nblocks + 1)) {
        alls = all;
        offs.assign(nm, std::vector<size_t>((size_t)s.nblocks + 1));
        for (size_t k = 0; k < nm; k++) {
            topo_block_layout(&s, all[k], nullptr, offs[k].data());
        }
    }
    out.lanes.assign((size_t)s.nlanes, {});
    out.x.clear();
    out.bytes.clear();
    out.sync = s.sync;
    for (int l = 0; l < s.nlanes; l++) {
        for (int k = 0; k < s.lanes[l].nsteps; k++) {
            topo_step_view_t v;
            topo_sched_step_at(&s, l, k, &v);
            const size_t x0 = out.x.size();
            for (int i = 0; i < v.nxfers; i++) {
                const topo_range_t *rg;
                const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
                if (x->kind == TOPO_XFER_COPY) {
                    continue;
                }
                const bool reduce = x->kind == TOPO_XFER_RECV_REDUCE || x->kind == TOPO_XFER_RECV_REDUCE_POST;
                out.x.push_back(SymXfer{x->peer, (uint8_t)(x->kind == TOPO_XFER_SEND), (uint8_t)reduce});
                for (size_t m = 0; m < nm; m++) {
                    out.bytes.push_back(range_bytes(rg, offs[m], x));
                }
            }
            out.lanes[(size_t)l].push_back({x0, out.x.size()});
        }
    }
    topo_sched_free(&s);
}

/* Rank `rank` moved by the translation t (coordinates, modulo the dims). */
int translate(const topo_topology_t *t, int rank, const int *by)
{
    int c[TOPO_MAX_DIMS];
    topo_topology_coords(t, rank, c);
    for (int i = 0; i < t->ndims; i++) {
        c[i] = ((c[i] + by[i]) % t->dims[i] + t->dims[i]) % t->dims[i];
    }
    return topo_topology_rank(t, c);
}

/* Whether b is a translated by `by` (peers moved, kinds alike); ok[m]
 * cleared at the payloads whose bytes differ. */
bool same_shape(const topo_topology_t *t, const ShapePlan &a, const ShapePlan &b, const int *by,
                std::vector<char> &ok)
{
    if (a.lanes.size() != b.lanes.size() || a.x.size() != b.x.size() || a.sync != b.sync) {
        return false;
    }
    for (size_t l = 0; l < a.lanes.size(); l++) {
        if (a.lanes[l] != b.lanes[l]) {
            return false;
        }
    }
    const size_t nm = ok.size();
    for (size_t i = 0; i < a.x.size(); i++) {
        if (a.x[i].send != b.x[i].send || a.x[i].reduce != b.x[i].reduce ||
            translate(t, a.x[i].peer, by) != b.x[i].peer) {
            return false;
        }
        for (size_t m = 0; m < nm; m++) {
            ok[m] = ok[m] && a.bytes[i * nm + m] == b.bytes[i * nm + m];
        }
    }
    return true;
}

struct Symmetry {
    int period[TOPO_MAX_DIMS] = {0};
    std::vector<int> reps;   /* representative ranks */
    std::vector<int> rep_of; /* every node's representative */
    std::vector<ShapePlan> plans; /* the representatives' */
    std::vector<char> ok;    /* per payload: every rank its representative's translate */
};

/* Find the translations that algo's schedules admit on the torus and check
 * every rank; false where there are none to gain from (fewer than two
 * ranks per orbit) or a rank's steps are not its representative's. */
bool find_symmetry(const topo_algo_t *algo, const topo_gen_args_t *args, const std::vector<uint64_t> &ms,
                   Symmetry &sym)
{
    const topo_topology_t *t = args->topo;
    const int p = args->size;
    if (t->kind != TOPO_NET_TORUS && t->kind != TOPO_NET_MESH) {
        return false;
    }
    ShapePlan zero, other;
    shape_rank(algo, args, 0, ms, zero);
    size_t orbits = 1;
    for (int d = 0; d < t->ndims; d++) {
        const int n = t->dims[d];
        sym.period[d] = n;
        for (int s = 1; t->periodic[d] && s < n; s++) {
            if (n % s) {
                continue;
            }
            int by[TOPO_MAX_DIMS] = {0};
            by[d] = s;
            std::vector<char> ok(ms.size(), 1);
            shape_rank(algo, args, translate(t, 0, by), ms, other);
            if (same_shape(t, zero, other, by, ok) && ok.back()) {
                sym.period[d] = s;
                break;
            }
        }
        orbits *= (size_t)sym.period[d];
    }
    if (2 * orbits > (size_t)p) {
        return false;
    }
    sym.rep_of.assign((size_t)p, 0);
    std::vector<int> index((size_t)p, -1);
    for (int r = 0; r < p; r++) {
        int c[TOPO_MAX_DIMS];
        topo_topology_coords(t, r, c);
        bool rep = true;
        for (int d = 0; d < t->ndims; d++) {
            rep = rep && c[d] < sym.period[d];
            c[d] %= sym.period[d];
        }
        sym.rep_of[(size_t)r] = topo_topology_rank(t, c);
        if (rep) {
            index[(size_t)r] = (int)sym.reps.size();
            sym.reps.push_back(r);
        }
    }
    sym.plans.assign(sym.reps.size(), ShapePlan());
    for (size_t i = 0; i < sym.reps.size(); i++) {
        shape_rank(algo, args, sym.reps[i], ms, sym.plans[i]);
    }
    sym.ok.assign(ms.size(), 1);
    for (int r = 0; r < p; r++) {
        const int q = sym.rep_of[(size_t)r];
        if (q == r) {
            continue;
        }
        int c[TOPO_MAX_DIMS], cq[TOPO_MAX_DIMS], by[TOPO_MAX_DIMS];
        topo_topology_coords(t, r, c);
        topo_topology_coords(t, q, cq);
        for (int d = 0; d < t->ndims; d++) {
            by[d] = c[d] - cq[d];
        }
        shape_rank(algo, args, r, ms, other);
        if (!same_shape(t, sym.plans[(size_t)index[(size_t)q]], other, by, sym.ok)) {
            return false;
        }
    }
    return true;
}

/* The aggregated replay's plan of a representative at one payload. */
struct SFlow {
    sg4::Host *from;
    uint64_t bytes;
};
struct SSend {
    size_t f0, nf; /* into SRank::flows */
    sg4::Host *to;
    sg4::Semaphore *arrived; /* the receiver's */
};
struct SRecv {
    int nf;
    sg4::Semaphore *arrived;
};
struct SStep {
    size_t s0, ns, r0, nr;
    int msgs;
    uint64_t reduced;
};
struct SRank {
    std::vector<SFlow> flows;
    std::vector<SSend> sends;
    std::vector<SRecv> recvs;
    std::vector<std::vector<SStep>> lanes;
};

std::vector<SRank> srank;
std::unordered_map<uint64_t, sg4::SemaphorePtr> arrivals;
size_t nports = 0; /* ports in the platform */

/* The messages that `sender` sends to `receiver` in `lane` end by a
 * release of this semaphore (once per flow), in the order they were sent. */
sg4::Semaphore *arrival(int receiver, int lane, int sender)
{
    const uint64_t key = ((uint64_t)receiver * 64 + (uint64_t)lane) * (uint64_t)sim.nodes + (uint64_t)sender;
    auto it = arrivals.find(key);
    if (it == arrivals.end()) {
        it = arrivals.emplace(key, sg4::Semaphore::create(0)).first;
    }
    return it->second.get();
}

/* A representative's lane: its sends are host-to-host comms from the
 * ports (each route that of the full network), started at once (eager);
 * the end of each is signalled to the receiving representative; the step
 * ends when its sends have ended and the messages it receives have
 * arrived. */
void run_orbit_lane(size_t i, int lane)
{
    const SRank &R = srank[i];
    std::vector<sg4::CommPtr> comms;
    std::vector<sg4::Semaphore *> signal;
    for (const SStep &st : R.lanes[(size_t)lane]) {
        step_overhead(st.msgs);
        comms.clear();
        signal.clear();
        for (size_t k = st.s0; k < st.s0 + st.ns; k++) {
            const SSend &x = R.sends[k];
            for (size_t f = x.f0; f < x.f0 + x.nf; f++) {
                comms.push_back(sg4::Comm::sendto_async(R.flows[f].from, x.to, R.flows[f].bytes));
                signal.push_back(x.arrived);
            }
        }
        while (!comms.empty()) {
            const ssize_t k = sg4::Comm::wait_any(comms);
            signal[(size_t)k]->release();
            comms.erase(comms.begin() + k);
            signal.erase(signal.begin() + k);
        }
        for (size_t k = st.r0; k < st.r0 + st.nr; k++) {
            for (int f = 0; f < R.recvs[k].nf; f++) {
                R.recvs[k].arrived->acquire();
            }
        }
        reduce(st.reduced);
    }
    sim.finished++;
}

/* Simulated seconds of one call on the representatives, payload index m;
 * a negative value where the platform has too few ports for its routes. */
double simulate_orbits(const topo_topology_t *t, const Symmetry &sym, size_t m, size_t nm)
{
    GridZone *z = sim.zone;
    std::unordered_map<uint64_t, size_t> port_of;
    z->rep_of = sym.rep_of;
    z->ports.clear();
    srank.assign(sym.reps.size(), SRank());
    arrivals.clear();
    for (size_t i = 0; i < sym.reps.size(); i++) {
        const ShapePlan &P = sym.plans[i];
        SRank &R = srank[i];
        const int rank = sym.reps[i];
        R.lanes.assign(P.lanes.size(), {});
        for (size_t l = 0; l < P.lanes.size(); l++) {
            for (const auto &se : P.lanes[l]) {
                SStep st{R.sends.size(), 0, R.recvs.size(), 0, 0, 0};
                for (size_t xi = se.first; xi < se.second; xi++) {
                    const SymXfer &x = P.x[xi];
                    const uint64_t b = P.bytes[xi * nm + m];
                    if (0 == b && !P.sync) {
                        continue;
                    }
                    st.msgs++;
                    const unsigned ties = z->ties(rank, x.peer);
                    const int nf = 1 << __builtin_popcount(ties);
                    if (!x.send) {
                        R.recvs.push_back(SRecv{nf, arrival(rank, (int)l, x.peer)});
                        st.nr++;
                        st.reduced += x.reduce ? b : 0;
                        continue;
                    }
                    /* the receiver's representative, and this rank as the
                     * receiver sees it (moved by the same translation) */
                    const int q = sym.rep_of[(size_t)x.peer];
                    int cq[TOPO_MAX_DIMS], cp[TOPO_MAX_DIMS], by[TOPO_MAX_DIMS];
                    topo_topology_coords(t, q, cq);
                    topo_topology_coords(t, x.peer, cp);
                    for (int d = 0; d < t->ndims; d++) {
                        by[d] = cq[d] - cp[d];
                    }
                    SSend s{R.flows.size(), 0, sim.hosts[(size_t)q], arrival(q, (int)l, translate(t, rank, by))};
                    int f = 0;
                    for (unsigned v = ties;; v = (v - 1) & ties) {
                        const uint64_t key = ((uint64_t)v * (uint64_t)sim.nodes + (uint64_t)rank) * (uint64_t)sim.nodes +
                                             (uint64_t)x.peer;
                        auto it = port_of.find(key);
                        if (it == port_of.end()) {
                            if (z->ports.size() == nports) {
                                srank.clear();
                                arrivals.clear();
                                return -1;
                            }
                            it = port_of.emplace(key, z->ports.size()).first;
                            z->ports.push_back(GridZone::Port{rank, (int)v, x.peer});
                        }
                        const uint64_t part = flow_bytes(b, nf, f++);
                        R.flows.push_back(SFlow{sim.hosts[sim.hosts.size() - nports + it->second], part > 0 ? part : 1});
                        s.nf++;
                        if (0 == v) {
                            break;
                        }
                    }
                    R.sends.push_back(s);
                    st.ns++;
                }
                if (st.msgs > 0 || st.reduced > 0) { /* an empty step costs nothing */
                    R.lanes[l].push_back(st);
                }
            }
        }
    }
    const double t0 = sg4::Engine::get_clock();
    size_t lanes = 0;
    sim.finished = 0;
    for (size_t i = 0; i < srank.size(); i++) {
        for (size_t l = 0; l < srank[i].lanes.size(); l++) {
            sg4::Actor::create("o" + std::to_string(sym.reps[i]) + "." + std::to_string(l),
                               sim.hosts[(size_t)sym.reps[i]], run_orbit_lane, i, (int)l);
            lanes++;
        }
    }
    sg4::Engine::get_instance()->run();
    if (sim.finished != lanes) {
        die(1, "the aggregated replay: %zu of %zu lanes did not finish (a deadlock)", lanes - sim.finished, lanes);
    }
    srank.clear();
    arrivals.clear();
    return sg4::Engine::get_clock() - t0;
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
    /* tens of thousands of actors: small stacks without guard pages (a
     * guard page is a memory mapping of its own, and Linux allows 65,536) */
    static char cfg_stack[] = "--cfg=contexts/stack-size:128";
    static char cfg_guard[] = "--cfg=contexts/guard-size:0";
    std::vector<char *> sargv{argv[0], cfg_model, cfg_cross, cfg_tcp, cfg_stack, cfg_guard, log_warn};
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
    int aggregate = 1, list_only = 0;
    for (int i = 1; i < sargc; i++) {
        const char *opt = argv[i], *val = nullptr;
        std::string name;
        const char *eq = std::strchr(opt, '=');
        if (0 == std::strncmp(opt, "--", 2) && nullptr != eq) {
            name.assign(opt, (size_t)(eq - opt));
            opt = name.c_str();
            val = eq + 1;
        }
        /* the options without a value: each sets a variable */
        const struct {
            const char *name;
            int *to, value;
        } flags[] = {{"--non-commutative", &opclass, TOPO_OP_ORDERED}, {"--exact", &opclass, TOPO_OP_EXACT},
                     {"--progress", &show, 1},           {"--no-progress", &show, 0},
                     {"--list-algorithms", &list_only, 1}, {"--no-aggregate", &aggregate, 0}};
        bool flag = false;
        for (const auto &f : flags) {
            if (0 == std::strcmp(opt, f.name)) {
                *f.to = f.value;
                flag = true;
            }
        }
        if (flag) {
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
    if (list_only) {
        for (const topo_algo_t *f : fit) {
            std::printf("%s\n", f->name);
        }
        return 0;
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
        if (a == "tuned" && ((topo_prim_t)prim != TOPO_PRIM_ALLREDUCE || opclass == TOPO_OP_ORDERED)) {
            die(EXIT_USAGE, "--algorithms tuned: coll/tuned's choice is modelled for a commutative allreduce only");
        }
        if (a == "auto" || a == "tuned") {
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


    /* every line's algorithm (auto's pick at each payload), then each
     * algorithm's simulations: its schedules are generated and checked
     * for symmetry once for all its payloads */
    struct Line {
        std::string name;
        size_t m;
        const topo_algo_t *algo;
    };
    std::vector<Line> lines;
    std::vector<const topo_algo_t *> todo;
    std::vector<std::vector<char>> wanted; /* per todo entry, per payload */
    for (const std::string &a : names) {
        for (size_t mi = 0; mi < payloads.size(); mi++) {
            const uint64_t m = payloads[mi];
            const topo_algo_t *algo = nullptr;
            if (a == "auto") {
                const int k = topo_decision_lookup(&table, (size_t)m);
                if (k < 0) {
                    die(1, "auto: no candidate for %llu bytes", (unsigned long long)m);
                }
                algo = fit[(size_t)k];
            } else if (a == "tuned") {
                algo = topo_catalog_find((topo_prim_t)prim, tuned_allreduce(p, m));
                char why[256];
                if (nullptr == algo || !topo_algo_fits(algo, &gen, opclass, why, sizeof(why))) {
                    die(EXIT_USAGE, "--algorithms tuned: %s at %llu bytes does not fit this call",
                        tuned_allreduce(p, m), (unsigned long long)m);
                }
            } else {
                algo = topo_catalog_find((topo_prim_t)prim, a.c_str());
            }
            lines.push_back(Line{a, mi, algo});
            size_t j = (size_t)(std::find(todo.begin(), todo.end(), algo) - todo.begin());
            if (j == todo.size()) {
                todo.push_back(algo);
                wanted.emplace_back(payloads.size(), 0);
            }
            wanted[j][mi] = 1;
        }
    }
    /* each algorithm's symmetry (its schedules generated and checked once
     * for all payloads), then the platform with a port per route the
     * aggregated replays take */
    auto *zone = new GridZone("topo-sim", &topo, p, latency, hop);
    sim.zone = zone;
    std::vector<Symmetry> syms(todo.size());
    std::vector<char> orbits(todo.size(), 0);
    size_t ports_needed = 0;
    for (size_t j = 0; j < todo.size(); j++) {
        const topo_algo_t *algo = todo[j];
        Symmetry &sym = syms[j];
        orbits[j] = aggregate && find_symmetry(algo, &gen, payloads, sym);
        if (!orbits[j]) {
            continue;
        }
        std::string per;
        for (int d = 0; d < topo.ndims; d++) {
            per += (d ? "x" : "") + std::to_string(sym.period[d]);
        }
        std::fprintf(stderr, "%s: %zu of %d ranks replayed (period %s)\n", algo->name, sym.reps.size(), p,
                     per.c_str());
        std::unordered_set<uint64_t> routes;
        size_t n = 0;
        for (size_t i = 0; i < sym.reps.size(); i++) {
            for (const SymXfer &x : sym.plans[i].x) {
                if (x.send && routes.insert((uint64_t)sym.reps[i] * (uint64_t)p + (uint64_t)x.peer).second) {
                    n += (size_t)1 << __builtin_popcount(zone->ties(sym.reps[i], x.peer));
                }
            }
        }
        ports_needed = std::max(ports_needed, n);
    }

    /* the platform */
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
    /* the ports of the aggregated replay (GridZone::ports) */
    nports = ports_needed;
    zone->port_base = (unsigned long)sim.hosts.size();
    for (size_t i = 0; i < nports; i++) {
        sim.hosts.push_back(zone->create_host("port" + std::to_string(i), std::vector<double>{speed})->seal());
    }
    for (size_t i = 0; i < sim.hosts.size(); i++) {
        if (sim.hosts[i]->get_netpoint()->id() != i) {
            die(1, "SimGrid numbered host %zu %lu: the routes rely on creation order", i,
                sim.hosts[i]->get_netpoint()->id());
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

    size_t total = 0, done = 0, aggregated = 0;
    for (const auto &w : wanted) {
        total += (size_t)std::count(w.begin(), w.end(), 1);
    }
    std::vector<std::vector<double>> simulated(todo.size(), std::vector<double>(payloads.size(), 0));
    std::vector<std::vector<double>> predicted(todo.size(), std::vector<double>(payloads.size(), 0));
    for (size_t j = 0; j < todo.size(); j++) {
        const topo_algo_t *algo = todo[j];
        progress(show, done, total, algo->name);
        double c0 = cpu_seconds();
        topo_price_t price;
        if (TOPO_OK != topo_price_build(algo, &gen, &params, &net, &proto, &price)) {
            die(1, "the cost model could not price %s", algo->name);
        }
        for (size_t mi = 0; mi < payloads.size(); mi++) {
            predicted[j][mi] = topo_price_at(&price, (size_t)payloads[mi]);
        }
        topo_price_free(&price);
        double c1 = cpu_seconds();
        cpu_price += c1 - c0;
        const Symmetry &sym = syms[j];
        for (size_t mi = 0; mi < payloads.size(); mi++) {
            if (!wanted[j][mi]) {
                continue;
            }
            double t = -1;
            if (orbits[j] && sym.ok[mi]) {
                t = simulate_orbits(&topo, sym, mi, payloads.size());
                aggregated += t >= 0 ? 1 : 0;
            }
            if (t < 0) {
                t = simulate(algo, &gen, payloads[mi]);
            }
            simulated[j][mi] = t;
            progress(show, ++done, total, algo->name);
        }
        cpu_sim += cpu_seconds() - c1;
    }

    std::printf("primitive,topology,algorithm,bytes,simulated_s,predicted_s,ran\n");
    for (const Line &l : lines) {
        const size_t j = (size_t)(std::find(todo.begin(), todo.end(), l.algo) - todo.begin());
        std::printf("%s,%s,%s,%llu,%.9e,%.9e,%s\n", primitive, topo_name, l.name.c_str(),
                    (unsigned long long)payloads[l.m], simulated[j][l.m], predicted[j][l.m], l.algo->name);
    }
    std::fflush(stdout);
    std::fprintf(stderr,
                 "%s: %zu simulation(s) of %d ranks (%zu on one rank per orbit), %.2f s of CPU "
                 "(schedules and simulation %.2f s, the cost model %.2f s)\n",
                 prog, total, p, aggregated, cpu_seconds() - cpu_start, cpu_sim, cpu_price);
    for (size_t i = 0; i < nfit; i++) {
        topo_price_free(&prices[i]);
    }
    topo_decision_free(&table);
    return 0;
}
