/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport choice (coll_topo_transport) and the libfabric transport:
 * a plan's messages over libfabric's tagged messages on a reliable-datagram
 * endpoint (FI_EP_RDM) instead of Open MPI's PML.  The runner is the same
 * (coll_topo_transport.h); only the posting and completing of messages
 * differ.
 *
 * Process state.  One provider, domain, address vector, completion queue
 * and endpoint per process, opened at component open when
 * coll_topo_transport is not `pml`, and closed at component close.  The
 * completion queue is read by the waits of the runner and, while a rank
 * waits anywhere else in MPI, by a callback of Open MPI's progress loop
 * (the providers here progress data only when asked: FI_PROGRESS_MANUAL).
 *
 * Addresses.  Each process publishes its endpoint's name through the PMIx
 * key-value store (the modex) at component open, and looks a peer's name
 * up when a communicator with that peer makes its first collective call,
 * inserting it into the address vector once per process.  Why there and
 * not through the PML at a communicator's first call: the modex fence of
 * MPI_Init carries the names to every process at no cost of its own
 * (coll_topo_agree.c publishes its record the same way, and explains why
 * only a record put at open is in the fence, and why the lookups are
 * PMIX_OPTIONAL: they never wait for a server), every communicator after
 * the first finds its peers' addresses at hand, and an exchange through
 * the PML would cost one allgather of endpoint names per communicator.
 * Where the modex is direct or asynchronous, or a peer belongs to another
 * job, a name may be missing: that rank then votes for the PML, and the
 * communicator's ranks agree (below).
 *
 * The choice.  A communicator's ranks choose its transport together at its
 * first call (mca_coll_topo_transport_select, after they agreed on their
 * decision inputs, transport parameters included): every rank says whether
 * libfabric can carry its messages to every peer (its endpoint is up, every
 * peer published a name from the same provider, the communicator's id and
 * size fit the tags), and the maximum of those votes, coll/topo's own
 * exchange over the PML, decides for all: libfabric only if every rank can.
 *
 * Tags (64 bits; 60 used, as some providers keep the top bits):
 *   [59..42] communicator id (18 bits)   [41..32] call sequence (10 bits)
 *   [31..20] coll/topo tag offset (12)   [19..0]  sender's rank (20 bits)
 * The communicator id keeps concurrent collectives on different
 * communicators apart; the call's sequence number (every rank counts the
 * calls the transport runs on the communicator) keeps consecutive calls
 * apart; the offset is the runner's tag below COLL_TOPO_TAG_BASE (primitive
 * and lane), so lanes never match each other's messages; the sender's rank
 * stands in for a directed receive (FI_DIRECTED_RECV is not needed).
 * Within one tag, messages between two ranks match in posting order, as
 * the runner requires: the provider must order sends after sends
 * (FI_ORDER_SAS), which the hints ask for.
 *
 * Memory.  A provider that needs local buffers registered (FI_MR_LOCAL)
 * gets every region of a call's messages registered at the call's start
 * (COLL_TOPO_TP_REGISTER) and released at its end: the provider's own
 * registration cache, where it has one, makes a buffer used again cheap,
 * and watches memory being unmapped (libfabric's memory monitors).  With
 * coll_topo_ofi_mr_cache=true a communicator keeps its registrations
 * between calls instead (COLL_TOPO_OFI_MR_KEEP entries, the least
 * recently used one not in the current call going first, all released
 * when the communicator is freed).  Not the default: a buffer freed by the
 * application and another allocated at the same address would hit that
 * cache with a registration of the old pages on providers that pin
 * memory, as nothing here sees memory being unmapped (Open MPI's release
 * hooks, opal_mem_hooks_register_release, report no support in Debian's
 * Open MPI 4.1, whose memory patcher is not installed), and a cached
 * registration cannot be checked against the pages cheaply.
 *
 * Messages of at most the provider's inject size are injected (the buffer
 * is reusable at once, no completion to wait for).  Only contiguous bytes
 * are carried (COLL_TOPO_TP_CONTIG): a call of another datatype runs over
 * the PML.  A post never waits: one that meets -FI_EAGAIN (queues full, a
 * transfer to the same peer under way, a connection being set up) goes on
 * the communicator's queue of posts, in order, and the runner's waits post
 * it once the provider takes it (tp_post).
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/runtime/opal_progress.h"
#include "opal/sys/atomic.h"
#include "opal/threads/mutex.h"
#include "opal/util/proc.h"
#include "opal/util/show_help.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

#ifdef TOPO_HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#endif

/* The parameters: rows of coll_topo_params.c's table. */
#define PARAMS mca_coll_topo_component

/* coll_topo_ofi_provider ("" = libfabric's choice) */
static const char *provider_param(void)
{
    return NULL != PARAMS.ofi_provider ? PARAMS.ofi_provider : "";
}

/* The verbose line of a communicator's choice. */
static void say_choice(struct ompi_communicator_t *comm, const char *what, const char *why)
{
    fprintf(stderr, "coll:topo: comm %s (cid %u): transport %s%s%s\n",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, what,
            '\0' != why[0] ? ": " : "", why);
    fflush(stderr);
}

#ifndef TOPO_HAVE_OFI

void mca_coll_topo_ofi_open(void)
{
}

void mca_coll_topo_ofi_close(void)
{
}

void mca_coll_topo_transport_select(struct ompi_communicator_t *comm, mca_coll_topo_tp_t *tp,
                                    bool say)
{
    static bool said = false;
    (void)tp;
    if (COLL_TOPO_TRANSPORT_PML == PARAMS.transport) {
        return;
    }
    if (COLL_TOPO_TRANSPORT_OFI == PARAMS.transport && mca_coll_topo_once(&said) &&
        mca_coll_topo_first_process()) {
        opal_show_help(COLL_TOPO_HELP_FILE, "ofi-unavailable", true, provider_param(), "(none)",
                       "this coll/topo was built without libfabric (configure found no "
                       "libfabric, or was given --without-ofi)");
    }
    if (say) {
        say_choice(comm, "pml", "coll/topo was built without libfabric");
    }
}

#else /* TOPO_HAVE_OFI */

/* ------------------------------------------------------------------ */
/* Process state                                                      */

#define OFI_API_VERSION FI_VERSION(1, 9)
#define ADDR_KEY "mca_coll_topo_ofi_addr"

/* Tag fields (see the top of the file). */
#define TAG_RANK_BITS 20
#define TAG_OFF_BITS 12
#define TAG_SEQ_BITS 10
#define TAG_CID_BITS 18
_Static_assert(TAG_RANK_BITS + TAG_OFF_BITS + TAG_SEQ_BITS + TAG_CID_BITS == 60, "60 tag bits");
_Static_assert((int)TOPO_PRIM_COUNT *COLL_TOPO_MAX_LANES + 2 <= (1 << TAG_OFF_BITS),
               "every coll/topo tag has an offset");

/* Registrations a communicator keeps between calls. */
#define COLL_TOPO_OFI_MR_KEEP 32

/* A request: its context is what the provider hands back at completion.
 * Requests are the process's (a pool), not a communicator's: a request
 * dropped on an error path may complete after its communicator is gone.
 * A post that met -FI_EAGAIN keeps its message here, on its transport's
 * queue, until a wait posts it. */
typedef struct ofi_req {
    struct fi_context2 ctx; /* first: the completion's op_context */
    struct ofi_req *next;   /* the free list, or the transport's queue */
    volatile int32_t done;
    int err;
    bool orphan; /* dropped: freed at its completion */
    bool queued; /* on the transport's queue, not yet with the provider */
    bool send, inject;
    char *bounce; /* a copy the provider sends from (ofi.send_copy): freed with it */
    char *buf;
    size_t len;
    void *desc;
    fi_addr_t addr; /* a send's destination */
    uint64_t tag;
} ofi_req_t;

typedef struct req_chunk {
    struct req_chunk *next;
    ofi_req_t reqs[64];
} req_chunk_t;

typedef struct ofi_tp ofi_tp_t;

static struct {
    bool up;
    char why[512]; /* why not up (empty: not tried) */
    char prov[64]; /* the provider's name, as fi_info gives it */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    size_t inject;        /* bytes fi_tinject takes (0: none) */
    bool mr_local;        /* the provider needs local registrations */
    bool send_copy;       /* sends after an outstanding one go from a copy (send_from_copy) */
    long sends_out;       /* sends posted (not injected) whose completion is not read yet */
    unsigned long copied; /* sends from a copy (coll_topo_verbose=2 report) */
    uint64_t mr_key;      /* the next requested key */
    fi_addr_t *addr;      /* per MPI_COMM_WORLD rank: inserted address, or FI_ADDR_NOTAVAIL */
    int naddr;
    bool progress_registered;
    opal_mutex_t lock; /* every libfabric call and the request pool */
    ofi_req_t *free_reqs;
    req_chunk_t *chunks;
    ofi_tp_t *tps; /* live communicators' transports (their registrations) */
} ofi;

/* A communicator's transport state (mca_coll_topo_tp_t.impl). */
typedef struct {
    void *base;
    size_t len;
    struct fid_mr *mr;
    void *desc;
    uint32_t used; /* the call sequence that last used it */
} mr_entry_t;

struct ofi_tp {
    ofi_tp_t *next, *prev; /* ofi.tps */
    struct ompi_communicator_t *comm;
    fi_addr_t *peer; /* [size] */
    int me;
    uint64_t cid_bits;
    uint32_t seq; /* calls run so far */
    uint64_t seq_bits;
    bool reg; /* register buffers */
    ofi_req_t **q[2];
    size_t cap[2];
    mr_entry_t *mr;
    int nmr, cap_mr;
    ofi_req_t *qhead, *qtail; /* posts that met -FI_EAGAIN, in posting order */
    unsigned long posted, injected, queued, eagain; /* coll_topo_verbose=2 report */
};

static inline void ofi_lock(void)
{
    OPAL_THREAD_LOCK(&ofi.lock);
}

static inline void ofi_unlock(void)
{
    OPAL_THREAD_UNLOCK(&ofi.lock);
}

/* A request from the pool (under the lock). */
static ofi_req_t *req_get_locked(void)
{
    if (NULL == ofi.free_reqs) {
        req_chunk_t *c = calloc(1, sizeof(*c));
        if (NULL == c) {
            return NULL;
        }
        c->next = ofi.chunks;
        ofi.chunks = c;
        for (size_t i = 0; i < sizeof(c->reqs) / sizeof(c->reqs[0]); i++) {
            c->reqs[i].next = ofi.free_reqs;
            ofi.free_reqs = &c->reqs[i];
        }
    }
    ofi_req_t *r = ofi.free_reqs;
    ofi.free_reqs = r->next;
    r->next = NULL;
    r->done = 0;
    r->err = OMPI_SUCCESS;
    r->orphan = false;
    r->queued = false;
    r->send = false;
    r->bounce = NULL;
    return r;
}

static void req_put_locked(ofi_req_t *r)
{
    free(r->bounce);
    r->bounce = NULL;
    r->next = ofi.free_reqs;
    ofi.free_reqs = r;
}

/* Read the completion queue: mark what completed (free what was dropped).
 * Returns the completions read.  Under the lock. */
static int cq_drain_locked(void)
{
    struct fi_cq_entry e[16];
    int total = 0;
    for (;;) {
        ssize_t n = fi_cq_read(ofi.cq, e, 16);
        if (n > 0) {
            for (ssize_t i = 0; i < n; i++) {
                ofi_req_t *r = e[i].op_context;
                ofi.sends_out -= r->send;
                if (r->orphan) {
                    req_put_locked(r);
                } else {
                    opal_atomic_wmb();
                    r->done = 1;
                }
            }
            total += (int)n;
            if (n < 16) {
                return total;
            }
            continue;
        }
        if (-FI_EAVAIL == n) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof(err));
            if (fi_cq_readerr(ofi.cq, &err, 0) > 0 && NULL != err.op_context) {
                ofi_req_t *r = err.op_context;
                ofi.sends_out -= r->send;
                if (mca_coll_topo_component.verbose > 0) {
                    fprintf(stderr, "coll:topo: libfabric (%s): a message failed: %s\n", ofi.prov,
                            fi_strerror(err.err));
                }
                if (r->orphan) {
                    req_put_locked(r);
                } else {
                    r->err = OMPI_ERROR;
                    opal_atomic_wmb();
                    r->done = 1;
                }
                total++;
            }
            continue;
        }
        return total; /* -FI_EAGAIN: nothing more */
    }
}

/* Open MPI's progress loop: transfers move while a rank waits elsewhere. */
static int progress_cb(void)
{
    if (!ofi.up) {
        return 0;
    }
    if (opal_using_threads()) {
        /* never wait for the lock here: the holder may be waiting for
         * something this progress call would deliver */
        if (0 != opal_mutex_trylock(&ofi.lock)) {
            return 0;
        }
        int n = cq_drain_locked();
        opal_mutex_unlock(&ofi.lock);
        return n;
    }
    return cq_drain_locked();
}

/* Which capability a provider lacks: the hints narrowed step by step. */
static void diagnose(const char *prov)
{
    static const struct {
        uint64_t caps;
        bool order;
        const char *what;
    } steps[] = {
        {0, false, "reliable-datagram endpoints (FI_EP_RDM)"},
        {FI_TAGGED, false, "tagged messages (FI_TAGGED)"},
        {FI_TAGGED | FI_MSG, false, "messages (FI_MSG)"},
        {FI_TAGGED | FI_MSG, true, "send-after-send ordering (FI_ORDER_SAS)"},
    };
    const char *name = '\0' != prov[0] ? prov : "(libfabric's choice)";
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        struct fi_info *h = fi_allocinfo(), *info = NULL;
        if (NULL == h) {
            break;
        }
        h->caps = steps[i].caps;
        h->ep_attr->type = FI_EP_RDM;
        if (steps[i].order) {
            h->tx_attr->msg_order = FI_ORDER_SAS;
            h->rx_attr->msg_order = FI_ORDER_SAS;
        }
        if ('\0' != prov[0]) {
            h->fabric_attr->prov_name = strdup(prov);
        }
        int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &info);
        fi_freeinfo(h);
        fi_freeinfo(info);
        if (0 != rc) {
            if (0 == i) {
                snprintf(ofi.why, sizeof(ofi.why),
                         "libfabric has no provider %s with reliable-datagram endpoints "
                         "(FI_EP_RDM) here (not installed, not usable on this host, or "
                         "excluded by FI_PROVIDER): %s",
                         name, fi_strerror(-rc));
            } else {
                snprintf(ofi.why, sizeof(ofi.why), "provider %s lacks %s", name, steps[i].what);
            }
            return;
        }
    }
    snprintf(ofi.why, sizeof(ofi.why),
             "provider %s needs a mode or memory-registration mode coll/topo does not support "
             "(it supports FI_CONTEXT, FI_CONTEXT2, FI_MR_LOCAL, FI_MR_VIRT_ADDR, "
             "FI_MR_ALLOCATED, FI_MR_PROV_KEY) or a threading level below FI_THREAD_DOMAIN",
             name);
}

static void fabric_close(void)
{
    if (NULL != ofi.ep) {
        (void)fi_close(&ofi.ep->fid);
    }
    if (NULL != ofi.av) {
        (void)fi_close(&ofi.av->fid);
    }
    if (NULL != ofi.cq) {
        (void)fi_close(&ofi.cq->fid);
    }
    if (NULL != ofi.domain) {
        (void)fi_close(&ofi.domain->fid);
    }
    if (NULL != ofi.fabric) {
        (void)fi_close(&ofi.fabric->fid);
    }
    fi_freeinfo(ofi.info);
    ofi.ep = NULL;
    ofi.av = NULL;
    ofi.cq = NULL;
    ofi.domain = NULL;
    ofi.fabric = NULL;
    ofi.info = NULL;
}

/* Open the provider, domain, address vector, completion queue and
 * endpoint; false with ofi.why set on failure. */
static bool fabric_open(const char *prov)
{
    struct fi_info *h = fi_allocinfo();
    if (NULL == h) {
        snprintf(ofi.why, sizeof(ofi.why), "out of memory");
        return false;
    }
    h->caps = FI_TAGGED | FI_MSG;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->av_type = FI_AV_UNSPEC;
    if ('\0' != prov[0]) {
        h->fabric_attr->prov_name = strdup(prov);
    }
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, h, &ofi.info);
    fi_freeinfo(h);
    if (0 != rc || NULL == ofi.info) {
        ofi.info = NULL;
        diagnose(prov);
        return false;
    }
    struct fi_info *info = ofi.info;
    snprintf(ofi.prov, sizeof(ofi.prov), "%s", info->fabric_attr->prov_name);
    ofi.inject = info->tx_attr->inject_size;
    ofi.mr_local =
        0 != (info->domain_attr->mr_mode & FI_MR_LOCAL) || 0 != (info->mode & FI_LOCAL_MR);
    ofi.send_copy = 0 == strcmp(ofi.prov, "shm");
    ofi.sends_out = 0;
    const char *what = "fi_fabric";
    rc = fi_fabric(info->fabric_attr, &ofi.fabric, NULL);
    if (0 == rc) {
        what = "fi_domain";
        rc = fi_domain(ofi.fabric, info, &ofi.domain, NULL);
    }
    if (0 == rc) {
        struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
        what = "fi_cq_open";
        rc = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
    }
    if (0 == rc) {
        struct fi_av_attr av_attr = {.type = info->domain_attr->av_type};
        /* a hint: MPI_COMM_WORLD is not set up yet at component open */
        const char *np = getenv("OMPI_COMM_WORLD_SIZE");
        av_attr.count = NULL != np ? strtoul(np, NULL, 10) : 0;
        what = "fi_av_open";
        rc = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL);
    }
    if (0 == rc) {
        what = "fi_endpoint";
        rc = fi_endpoint(ofi.domain, info, &ofi.ep, NULL);
    }
    if (0 == rc) {
        what = "fi_ep_bind (address vector)";
        rc = fi_ep_bind(ofi.ep, &ofi.av->fid, 0);
    }
    if (0 == rc) {
        what = "fi_ep_bind (completion queue)";
        rc = fi_ep_bind(ofi.ep, &ofi.cq->fid, FI_TRANSMIT | FI_RECV);
    }
    if (0 == rc) {
        what = "fi_enable";
        rc = fi_enable(ofi.ep);
    }
    /* shm names an endpoint's shared-memory region after the process id: a
     * region that a killed process left behind (/dev/shm/PID:0:0) makes
     * the endpoint of a later process with the same id fail (FI_EBUSY).
     * The endpoint then takes a name of this job's and rank's own. */
    for (int again = 1; -FI_EBUSY == rc && 0 == strcmp(ofi.prov, "shm") && again <= 3; again++) {
        char name[256];
        size_t len = sizeof(name) - 40;
        if (0 != fi_getname(&ofi.ep->fid, name, &len) || len >= sizeof(name) - 40) {
            break;
        }
        name[len] = '\0';
        const size_t n = strlen(name);
        snprintf(name + n, sizeof(name) - n, ":%x.%x.%d", (unsigned)OPAL_PROC_MY_NAME.jobid,
                 (unsigned)OPAL_PROC_MY_NAME.vpid, again);
        what = "fi_setname";
        rc = fi_setname(&ofi.ep->fid, name, strlen(name) + 1);
        if (0 == rc) {
            what = "fi_enable";
            rc = fi_enable(ofi.ep);
        }
    }
    if (0 != rc) {
        snprintf(ofi.why, sizeof(ofi.why), "provider %s: %s failed: %s", ofi.prov, what,
                 fi_strerror(-rc));
        fabric_close();
        return false;
    }
    return true;
}

/* Publish "provider:hex of the endpoint's name" through the modex. */
static bool publish(void)
{
    char name[256];
    size_t len = sizeof(name);
    int rc = fi_getname(&ofi.ep->fid, name, &len);
    if (0 != rc) {
        snprintf(ofi.why, sizeof(ofi.why), "provider %s: fi_getname failed: %s", ofi.prov,
                 fi_strerror(-rc));
        return false;
    }
    const size_t plen = strlen(ofi.prov);
    char *value = malloc(plen + 2 + 2 * len);
    if (NULL == value) {
        snprintf(ofi.why, sizeof(ofi.why), "out of memory");
        return false;
    }
    memcpy(value, ofi.prov, plen);
    value[plen] = ':';
    for (size_t i = 0; i < len; i++) {
        snprintf(value + plen + 1 + 2 * i, 3, "%02x", (unsigned char)name[i]);
    }
    OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, ADDR_KEY, value, OPAL_STRING);
    free(value);
    if (OPAL_SUCCESS != rc) {
        snprintf(ofi.why, sizeof(ofi.why),
                 "the endpoint's address could not be published (the modex failed)");
        return false;
    }
    return true;
}

void mca_coll_topo_ofi_open(void)
{
    static bool constructed = false;
    ofi.up = false;
    ofi.why[0] = '\0';
    if (!constructed) {
        /* never destructed: a communicator freed after component close
         * still takes it (tp_fini) */
        OBJ_CONSTRUCT(&ofi.lock, opal_mutex_t);
        constructed = true;
    }
    if (COLL_TOPO_TRANSPORT_PML == PARAMS.transport) {
        return;
    }
    /* only in an MPI process (ompi_info opens components too) */
    if (!ompi_rte_initialized || NULL == opal_pmix.put) {
        snprintf(ofi.why, sizeof(ofi.why), "not an MPI process");
        return;
    }
    const char *prov = provider_param();
    if (!fabric_open(prov)) {
        return;
    }
    if (!publish()) {
        fabric_close();
        return;
    }
    ofi.up = true;
    ofi.progress_registered = OPAL_SUCCESS == opal_progress_register(progress_cb);
}

static void tp_release_mrs(ofi_tp_t *t);

void mca_coll_topo_ofi_close(void)
{
    if (ofi.progress_registered) {
        (void)opal_progress_unregister(progress_cb);
        ofi.progress_registered = false;
    }
    /* communicators still alive lose their registrations (the domain goes) */
    for (ofi_tp_t *t = ofi.tps; NULL != t; t = t->next) {
        tp_release_mrs(t);
    }
    ofi.up = false;
    fabric_close();
    free(ofi.addr);
    ofi.addr = NULL;
    ofi.naddr = 0;
    while (NULL != ofi.chunks) {
        req_chunk_t *c = ofi.chunks;
        ofi.chunks = c->next;
        for (size_t i = 0; i < sizeof(c->reqs) / sizeof(c->reqs[0]); i++) {
            free(c->reqs[i].bounce); /* copies of sends never completed */
        }
        free(c);
    }
    ofi.sends_out = 0;
    ofi.free_reqs = NULL;
}

/* The address of process `name` (of this job) in the address vector,
 * inserted at its first use; false with `why` set when it has none that
 * this provider can reach.  Under the lock. */
static bool peer_addr(opal_process_name_t name, fi_addr_t *out, char *why, size_t len)
{
    const int nworld = ompi_comm_size(&ompi_mpi_comm_world.comm);
    if (NULL == ofi.addr && nworld > 0) {
        ofi.addr = malloc((size_t)nworld * sizeof(*ofi.addr));
        if (NULL == ofi.addr) {
            snprintf(why, len, "out of memory");
            return false;
        }
        for (int i = 0; i < nworld; i++) {
            ofi.addr[i] = FI_ADDR_NOTAVAIL;
        }
        ofi.naddr = nworld;
    }
    const bool cached = name.vpid < (opal_vpid_t)ofi.naddr;
    if (cached && FI_ADDR_NOTAVAIL != ofi.addr[name.vpid]) {
        *out = ofi.addr[name.vpid];
        return true;
    }
    int rc;
    char *value = NULL;
    OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, ADDR_KEY, &name, &value, OPAL_STRING);
    if (OPAL_SUCCESS != rc || NULL == value) {
        snprintf(why, len,
                 "process %u published no libfabric address (its coll_topo_transport is pml, "
                 "its provider failed, or the modex is direct or asynchronous)",
                 (unsigned)name.vpid);
        free(value);
        return false;
    }
    const char *colon = strrchr(value, ':');
    const size_t plen = NULL != colon ? (size_t)(colon - value) : 0;
    if (NULL == colon || plen != strlen(ofi.prov) || 0 != strncmp(value, ofi.prov, plen)) {
        snprintf(why, len, "process %u uses provider %.*s, this one %s", (unsigned)name.vpid,
                 (int)plen, value, ofi.prov);
        free(value);
        return false;
    }
    const char *hex = colon + 1;
    const size_t n = strlen(hex) / 2;
    unsigned char *bytes = malloc(n > 0 ? n : 1);
    bool ok = NULL != bytes && 0 == strlen(hex) % 2;
    for (size_t i = 0; ok && i < n; i++) {
        unsigned v;
        ok = 1 == sscanf(hex + 2 * i, "%2x", &v);
        bytes[i] = (unsigned char)v;
    }
    fi_addr_t a = FI_ADDR_NOTAVAIL;
    /* the raw name, as fi_getname gave it (shm's string format included) */
    ok = ok && 1 == fi_av_insert(ofi.av, bytes, 1, &a, 0, NULL);
    free(bytes);
    free(value);
    if (!ok) {
        snprintf(why, len, "the address of process %u could not be inserted (provider %s)",
                 (unsigned)name.vpid, ofi.prov);
        return false;
    }
    if (cached) {
        ofi.addr[name.vpid] = a;
    }
    *out = a;
    return true;
}

/* ------------------------------------------------------------------ */
/* The transport (coll_topo_transport.h)                              */

static void tp_release_mrs(ofi_tp_t *t)
{
    for (int i = 0; i < t->nmr; i++) {
        (void)fi_close(&t->mr[i].mr->fid);
    }
    t->nmr = 0;
}

/* The registration of [base, base + len) for the current call: a cached
 * one that holds it, or a new one (the least recently used entry not used
 * by this call goes when the cache is full).  Under the lock. */
static int mr_get(ofi_tp_t *t, void *base, size_t len, void **desc)
{
    char *b = base;
    for (int i = 0; i < t->nmr; i++) {
        mr_entry_t *e = &t->mr[i];
        if ((char *)e->base <= b && b + len <= (char *)e->base + e->len) {
            e->used = t->seq;
            *desc = e->desc;
            return OMPI_SUCCESS;
        }
    }
    int slot = t->nmr;
    if (t->nmr >= COLL_TOPO_OFI_MR_KEEP) {
        int lru = -1;
        for (int i = 0; i < t->nmr; i++) {
            if (t->mr[i].used != t->seq && (lru < 0 || (uint32_t)(t->seq - t->mr[i].used) >
                                                           (uint32_t)(t->seq - t->mr[lru].used))) {
                lru = i;
            }
        }
        if (lru >= 0) {
            (void)fi_close(&t->mr[lru].mr->fid);
            slot = lru;
        }
    }
    if (slot == t->nmr && t->nmr == t->cap_mr) {
        int cap = t->cap_mr > 0 ? 2 * t->cap_mr : 8;
        mr_entry_t *m = realloc(t->mr, (size_t)cap * sizeof(*m));
        if (NULL == m) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        t->mr = m;
        t->cap_mr = cap;
    }
    struct fid_mr *mr = NULL;
    int rc = fi_mr_reg(ofi.domain, base, len, FI_SEND | FI_RECV, 0, ofi.mr_key++, 0, &mr, NULL);
    if (0 != rc) {
        if (slot < t->nmr) { /* the evicted entry's place: fill it from the end */
            t->mr[slot] = t->mr[--t->nmr];
        }
        if (mca_coll_topo_component.verbose > 0) {
            fprintf(stderr, "coll:topo: libfabric (%s): fi_mr_reg of %zu bytes failed: %s\n",
                    ofi.prov, len, fi_strerror(-rc));
        }
        return OMPI_ERROR;
    }
    t->mr[slot] =
        (mr_entry_t){.base = base, .len = len, .mr = mr, .desc = fi_mr_desc(mr), .used = t->seq};
    if (slot == t->nmr) {
        t->nmr++;
    }
    *desc = t->mr[slot].desc;
    return OMPI_SUCCESS;
}

static int tp_reserve(mca_coll_topo_tp_t *tp, size_t nstep, size_t ndefer)
{
    ofi_tp_t *t = tp->impl;
    const size_t need[2] = {nstep, ndefer};
    for (int q = 0; q < 2; q++) {
        if (need[q] > t->cap[q]) {
            ofi_req_t **r = realloc(t->q[q], need[q] * sizeof(*r));
            if (NULL == r) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            t->q[q] = r;
            t->cap[q] = need[q];
        }
    }
    return OMPI_SUCCESS;
}

static int tp_begin(mca_coll_topo_tp_t *tp, struct ompi_communicator_t *comm,
                    const mca_coll_topo_region_t *regions, int n)
{
    ofi_tp_t *t = tp->impl;
    (void)comm;
    if (!ofi.up) {
        return OMPI_ERR_NOT_AVAILABLE;
    }
    t->seq++;
    t->seq_bits = (uint64_t)(t->seq & ((1u << TAG_SEQ_BITS) - 1)) << (TAG_RANK_BITS + TAG_OFF_BITS);
    if (!t->reg) {
        return OMPI_SUCCESS;
    }
    int rc = OMPI_SUCCESS;
    ofi_lock();
    for (int i = 0; i < n && OMPI_SUCCESS == rc; i++) {
        void *desc;
        if (regions[i].len > 0) {
            rc = mr_get(t, regions[i].base, regions[i].len, &desc);
        }
    }
    ofi_unlock();
    return rc;
}

static void tp_end(mca_coll_topo_tp_t *tp)
{
    ofi_tp_t *t = tp->impl;
    if (t->reg && !PARAMS.ofi_mr_cache) {
        ofi_lock();
        tp_release_mrs(t);
        ofi_unlock();
    }
}

/* Send r from a copy, under a request of the transport's own (freed with
 * the copy at its completion): r is complete at once.  Why: shm (libfabric
 * 1.17) reports a process's send completions in the order the sends were
 * posted, whatever their peers (one response queue, read up to the first
 * send whose receive is not posted yet), so a send completes only once
 * every earlier send of the process, to any peer, was received.  The
 * runner waits for a step's sends before its lane moves on; a deferred
 * send, or another lane's, received by its peer in a later step then
 * holds that step back, and the peer's later step may wait for this one
 * (6 ranks, torus:2x3 rabenseifner_mp allreduce of 64 Ki elements: every
 * rank in wait_any, none in a post, in 6 runs of 20; 16 ranks, swing
 * allgather: 5 ranks in the allgather, 11 in the next call).  A send
 * posted while no other is outstanding (sends_out 0) goes from its own
 * buffer: its completion waits for its receive alone.  -FI_ENOMEM: no
 * memory for the copy (the caller sends from the buffer).  Under the lock. */
static ssize_t send_from_copy(ofi_req_t *r)
{
    ofi_req_t *b = req_get_locked();
    char *copy = NULL != b ? malloc(r->len) : NULL;
    if (NULL == copy) {
        if (NULL != b) {
            req_put_locked(b);
        }
        return -FI_ENOMEM;
    }
    memcpy(copy, r->buf, r->len);
    const ssize_t rc = fi_tsend(ofi.ep, copy, r->len, NULL, r->addr, r->tag, &b->ctx);
    if (0 != rc) {
        free(copy);
        req_put_locked(b);
        return rc;
    }
    b->send = true;
    b->orphan = true;
    b->bounce = copy;
    ofi.sends_out++;
    ofi.copied++;
    opal_atomic_wmb();
    r->done = 1;
    return 0;
}

/* Hand message r to the provider: 0, -FI_EAGAIN (not now: nothing was
 * posted) or another error.  An injected send is complete when it goes,
 * and so is one sent from a copy.  Under the lock. */
static ssize_t post_locked(ofi_req_t *r)
{
    if (r->inject) {
        const ssize_t rc = fi_tinject(ofi.ep, r->buf, r->len, r->addr, r->tag);
        if (0 == rc) {
            r->done = 1;
        }
        return rc;
    }
    if (!r->send) {
        return fi_trecv(ofi.ep, r->buf, r->len, r->desc, FI_ADDR_UNSPEC, r->tag, 0, &r->ctx);
    }
    if (ofi.send_copy && ofi.sends_out > 0) {
        const ssize_t rc = send_from_copy(r);
        if (-FI_ENOMEM != rc) {
            return rc;
        }
    }
    const ssize_t rc = fi_tsend(ofi.ep, r->buf, r->len, r->desc, r->addr, r->tag, &r->ctx);
    ofi.sends_out += 0 == rc;
    return rc;
}

/* Must r wait for a message queued before it?  Messages of one tag
 * between two ranks match in posting order: a send waits for the queued
 * sends of its tag to its peer, a receive for the queued receives of its
 * tag (which names the sender).  Under the lock. */
static bool queued_before(const ofi_tp_t *t, const ofi_req_t *r)
{
    for (const ofi_req_t *o = t->qhead; NULL != o && o != r; o = o->next) {
        if (o->send == r->send && o->tag == r->tag && (!r->send || o->addr == r->addr)) {
            return true;
        }
    }
    return false;
}

/* Post what the queue holds, in order, as far as the provider takes it;
 * returns the messages posted.  Under the lock. */
static int queue_flush_locked(ofi_tp_t *t)
{
    int moved = 0;
    ofi_req_t *prev = NULL, *r = t->qhead;
    while (NULL != r) {
        const bool behind = queued_before(t, r);
        const ssize_t rc = behind ? -FI_EAGAIN : post_locked(r);
        if (-FI_EAGAIN == rc) {
            t->eagain += !behind;
            prev = r;
            r = r->next;
            continue;
        }
        ofi_req_t *next = r->next;
        if (NULL != prev) {
            prev->next = next;
        } else {
            t->qhead = next;
        }
        if (t->qtail == r) {
            t->qtail = prev;
        }
        r->next = NULL;
        r->queued = false;
        if (0 != rc) {
            if (mca_coll_topo_component.verbose > 0) {
                fprintf(stderr, "coll:topo: libfabric (%s): posting a %s failed: %s\n", ofi.prov,
                        r->send ? "send" : "receive", fi_strerror((int)-rc));
            }
            r->err = OMPI_ERROR;
            opal_atomic_wmb();
            r->done = 1;
        }
        moved++;
        r = next;
    }
    return moved;
}

/* Progress while waiting: the completion queue, then the posts the
 * provider could not take yet, and when neither moved, the rest of Open
 * MPI (other threads' PML traffic), which also yields the processor where
 * Open MPI was told to when idle (mpi_yield_when_idle, set for
 * oversubscribed runs): a rank spinning on the completion queue alone kept
 * the ranks it waited for off the cores (12 ranks on 2 cores, allreduce
 * of 64 Ki doubles over shm, past 300 s). */
static void drive(ofi_tp_t *t)
{
    ofi_lock();
    int n = cq_drain_locked();
    if (NULL != t->qhead) {
        n += queue_flush_locked(t);
    }
    ofi_unlock();
    if (0 == n) {
        opal_progress();
    }
}

/* Post a message.  One the provider cannot take now (-FI_EAGAIN: its
 * queues are full, a transfer to the same peer is still under way, a
 * connection is being set up) goes on the transport's queue, and so does
 * one that must follow a queued message (queued_before): the runner goes
 * on posting the step's other messages, the later steps' of other lanes
 * too, and its waits post the queue (drive).  Were the post retried here
 * instead, a rank would hold back, for as long as the provider refuses
 * it, the step's later messages and the other lanes' steps, receives
 * among them that its peers' sends may be waiting for. */
static int tp_post(mca_coll_topo_tp_t *tp, const mca_coll_topo_msg_t *msg, unsigned flags, int q,
                   int idx, bool *pending)
{
    ofi_tp_t *t = tp->impl;
    const bool send = 0 != (flags & COLL_TOPO_TP_SEND);
    const size_t bytes = msg->n * msg->dt->super.size;
    const int off = COLL_TOPO_TAG_BASE - msg->tag;
    if (OPAL_UNLIKELY(off < 0 || off >= (1 << TAG_OFF_BITS))) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    const uint64_t tag = t->cid_bits | t->seq_bits | ((uint64_t)off << TAG_RANK_BITS) |
                         (uint64_t)(send ? t->me : msg->peer);
    const fi_addr_t addr = t->peer[msg->peer];
    const bool inject = send && bytes <= ofi.inject && ofi.inject > 0;
    ofi_lock();
    void *desc = NULL;
    if (t->reg && bytes > 0 && !inject) {
        int r = mr_get(t, msg->buf, bytes, &desc);
        if (OMPI_SUCCESS != r) {
            ofi_unlock();
            return r;
        }
    }
    t->posted++;
    t->injected += inject;
    const bool tried = inject && NULL == t->qhead;
    if (tried) {
        /* the usual case: no request (the buffer is free again at once) */
        const ssize_t rc = fi_tinject(ofi.ep, msg->buf, bytes, addr, tag);
        if (-FI_EAGAIN != rc) {
            ofi_unlock();
            *pending = false;
            return 0 == rc ? OMPI_SUCCESS : OMPI_ERROR;
        }
        t->eagain++;
    }
    ofi_req_t *r = req_get_locked();
    if (NULL == r) {
        ofi_unlock();
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    r->send = send;
    r->inject = inject;
    r->buf = msg->buf;
    r->len = bytes;
    r->desc = desc;
    r->addr = addr;
    r->tag = tag;
    ssize_t rc = -FI_EAGAIN;
    if (!tried && !queued_before(t, r)) {
        rc = post_locked(r);
        t->eagain += -FI_EAGAIN == rc;
    }
    if (-FI_EAGAIN == rc) {
        t->queued++;
        r->queued = true;
        if (NULL != t->qtail) {
            t->qtail->next = r;
        } else {
            t->qhead = r;
        }
        t->qtail = r;
        rc = 0;
    }
    if (0 != rc) {
        req_put_locked(r);
        ofi_unlock();
        if (mca_coll_topo_component.verbose > 0) {
            fprintf(stderr, "coll:topo: libfabric (%s): posting a %s failed: %s\n", ofi.prov,
                    send ? "send" : "receive", fi_strerror((int)-rc));
        }
        return OMPI_ERROR;
    }
    if (r->done) { /* injected, or sent from a copy: complete */
        req_put_locked(r);
        ofi_unlock();
        *pending = false;
        return OMPI_SUCCESS;
    }
    ofi_unlock();
    t->q[q][idx] = r;
    *pending = true;
    return OMPI_SUCCESS;
}

/* Free a completed request; its code. */
static int req_finish(ofi_req_t *r)
{
    opal_atomic_rmb();
    const int err = r->err;
    ofi_lock();
    req_put_locked(r);
    ofi_unlock();
    return err;
}

static int tp_wait(mca_coll_topo_tp_t *tp, int q, int first, int n)
{
    ofi_tp_t *t = tp->impl;
    ofi_req_t **r = t->q[q] + first;
    int rc = OMPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        while (!r[i]->done) {
            drive(t);
        }
    }
    for (int i = 0; i < n; i++) {
        int e = req_finish(r[i]);
        r[i] = NULL;
        if (OMPI_SUCCESS == rc) {
            rc = e;
        }
    }
    return rc;
}

static int tp_wait_any(mca_coll_topo_tp_t *tp, int n, int *idx)
{
    ofi_tp_t *t = tp->impl;
    ofi_req_t **r = t->q[COLL_TOPO_TP_STEP];
    if (n <= 0) {
        return OMPI_ERROR;
    }
    for (;;) {
        for (int i = 0; i < n; i++) {
            if (r[i]->done) {
                if (OMPI_SUCCESS != r[i]->err) {
                    return r[i]->err; /* nothing moves; drop frees it */
                }
                (void)req_finish(r[i]);
                r[i] = r[n - 1];
                r[n - 1] = NULL;
                *idx = i;
                return OMPI_SUCCESS;
            }
        }
        drive(t);
    }
}

static bool tp_test(mca_coll_topo_tp_t *tp, int q, int idx)
{
    ofi_tp_t *t = tp->impl;
    return 0 != t->q[q][idx]->done;
}

/* Take queued request r off the transport's queue.  Under the lock. */
static void unqueue_locked(ofi_tp_t *t, ofi_req_t *r)
{
    ofi_req_t *prev = NULL;
    for (ofi_req_t *o = t->qhead; NULL != o; prev = o, o = o->next) {
        if (o == r) {
            if (NULL != prev) {
                prev->next = r->next;
            } else {
                t->qhead = r->next;
            }
            if (t->qtail == r) {
                t->qtail = prev;
            }
            break;
        }
    }
    r->next = NULL;
    r->queued = false;
}

static void tp_drop(mca_coll_topo_tp_t *tp, int q, int first, int n)
{
    ofi_tp_t *t = tp->impl;
    ofi_lock();
    for (int i = first; i < first + n; i++) {
        ofi_req_t *r = t->q[q][i];
        if (NULL == r) {
            continue;
        }
        if (r->queued) {
            unqueue_locked(t, r); /* never posted: nothing will complete it */
            req_put_locked(r);
        } else if (r->done) {
            req_put_locked(r);
        } else {
            r->orphan = true; /* freed at its completion */
        }
        t->q[q][i] = NULL;
    }
    ofi_unlock();
}

static void tp_fini(mca_coll_topo_tp_t *tp)
{
    ofi_tp_t *t = tp->impl;
    if (NULL == t) {
        return;
    }
    if (mca_coll_topo_component.verbose >= COLL_TOPO_VERBOSE_CANDIDATES && 0 == t->me &&
        t->posted > 0) {
        fprintf(stderr,
                "coll:topo: comm cid %u: libfabric (%s): %u calls, %lu messages posted (%lu "
                "injected, %lu queued), %lu FI_EAGAIN answers, %d registrations cached; "
                "%lu sends of the process from a copy\n",
                (unsigned)(t->cid_bits >> (TAG_RANK_BITS + TAG_OFF_BITS + TAG_SEQ_BITS)), ofi.prov,
                t->seq, t->posted, t->injected, t->queued, t->eagain, t->nmr, ofi.copied);
    }
    ofi_lock();
    tp_release_mrs(t);
    if (NULL != t->prev) {
        t->prev->next = t->next;
    } else if (ofi.tps == t) {
        ofi.tps = t->next;
    }
    if (NULL != t->next) {
        t->next->prev = t->prev;
    }
    ofi_unlock();
    free(t->mr);
    free(t->q[0]);
    free(t->q[1]);
    free(t->peer);
    free(t);
    tp->impl = NULL;
}

static const mca_coll_topo_tp_ops_t ofi_ops = {
    .name = "ofi",
    .reserve = tp_reserve,
    .begin = tp_begin,
    .end = tp_end,
    .post = tp_post,
    .wait = tp_wait,
    .wait_any = tp_wait_any,
    .test = tp_test,
    .drop = tp_drop,
    .fini = tp_fini,
};

/* This rank's transport state for comm, or NULL with `why` set. */
static ofi_tp_t *tp_create(struct ompi_communicator_t *comm, char *why, size_t len)
{
    const int size = ompi_comm_size(comm);
    if (!ofi.up) {
        snprintf(why, len, "%s", '\0' != ofi.why[0] ? ofi.why : "libfabric is not open");
        return NULL;
    }
    if (OMPI_COMM_IS_INTER(comm)) {
        snprintf(why, len, "an intercommunicator");
        return NULL;
    }
    if ((uint64_t)comm->c_contextid >= ((uint64_t)1 << TAG_CID_BITS) ||
        (uint64_t)size > ((uint64_t)1 << TAG_RANK_BITS)) {
        snprintf(why, len,
                 "the communicator's id (%u) or size (%d) does not fit the tags (at most 2^%d "
                 "and 2^%d)",
                 (unsigned)comm->c_contextid, size, TAG_CID_BITS, TAG_RANK_BITS);
        return NULL;
    }
    ofi_tp_t *t = calloc(1, sizeof(*t));
    fi_addr_t *peer = malloc((size_t)size * sizeof(*peer));
    if (NULL == t || NULL == peer) {
        free(t);
        free(peer);
        snprintf(why, len, "out of memory");
        return NULL;
    }
    t->peer = peer;
    t->comm = comm;
    t->me = ompi_comm_rank(comm);
    t->cid_bits = (uint64_t)comm->c_contextid << (TAG_RANK_BITS + TAG_OFF_BITS + TAG_SEQ_BITS);
    t->reg = ofi.mr_local || PARAMS.ofi_register;
    const opal_jobid_t job = OPAL_PROC_MY_NAME.jobid;
    bool ok = true;
    ofi_lock();
    for (int r = 0; r < size && ok; r++) {
        const opal_process_name_t name = ompi_group_get_proc_name(comm->c_local_group, r);
        if (name.jobid != job) {
            snprintf(why, len, "rank %d belongs to another job (spawned or connected)", r);
            ok = false;
        } else {
            ok = peer_addr(name, &peer[r], why, len);
        }
    }
    if (ok) {
        t->next = ofi.tps;
        if (NULL != ofi.tps) {
            ofi.tps->prev = t;
        }
        ofi.tps = t;
    }
    ofi_unlock();
    if (!ok) {
        free(peer);
        free(t);
        return NULL;
    }
    return t;
}

void mca_coll_topo_transport_select(struct ompi_communicator_t *comm, mca_coll_topo_tp_t *tp,
                                    bool say)
{
    static bool said = false;
    if (COLL_TOPO_TRANSPORT_PML == PARAMS.transport) {
        return;
    }
    char why[512] = "";
    ofi_tp_t *t = tp_create(comm, why, sizeof(why));
    /* the vote: any rank that cannot makes every rank use the PML */
    uint64_t v[1] = {NULL == t ? 1 : 0};
    const int rc = mca_coll_topo_own_max(comm, v, 1);
    if (OMPI_SUCCESS == rc && 0 == v[0]) {
        mca_coll_topo_tp_fini(tp);
        mca_coll_topo_tp_init_ops(
            tp, &ofi_ops,
            COLL_TOPO_TP_CONTIG | COLL_TOPO_TP_INLINE | (t->reg ? COLL_TOPO_TP_REGISTER : 0u), t);
        if (say) {
            char what[96];
            snprintf(what, sizeof(what), "ofi (provider %s)", ofi.prov);
            say_choice(comm, what, "");
        }
        return;
    }
    if (NULL != t) {
        mca_coll_topo_tp_t tmp;
        mca_coll_topo_tp_init_pml(&tmp);
        mca_coll_topo_tp_init_ops(&tmp, &ofi_ops, 0, t);
        tp_fini(&tmp);
        snprintf(why, sizeof(why), "%s",
                 OMPI_SUCCESS != rc ? "the ranks could not agree (the exchange failed)"
                                    : "some rank cannot reach every peer through libfabric");
    } else if (COLL_TOPO_TRANSPORT_OFI == PARAMS.transport && mca_coll_topo_once(&said)) {
        opal_show_help(COLL_TOPO_HELP_FILE, "ofi-unavailable", true,
                       '\0' != provider_param()[0] ? provider_param() : "(libfabric's choice)",
                       '\0' != ofi.prov[0] ? ofi.prov : "(none)", why);
    }
    if (say) {
        say_choice(comm, "pml", why);
    }
}

#endif /* TOPO_HAVE_OFI */
