/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which ranks run coll/topo, and the exchanges of a communicator's first
 * call that must never meet the application's messages.
 *
 * A communicator's ranks decide together at its first collective call
 * (coll_topo_module.c: agreement of the decision inputs, hosts, positions).
 * A rank where coll/topo does not serve that call (priority -1, or a coll
 * list without topo) never takes part: an exchange through the previous
 * module's collectives on the user's communicator would then match the
 * application's own collective on those ranks (a wrong result, then a
 * hang), and one through the PML would wait for them forever.  So:
 *
 * - each process publishes a record through the modex when the component
 *   is opened: that it runs coll/topo, its priority and the coll list it
 *   was given;
 * - comm_query compares the records of the communicator's ranks and,
 *   unless every rank has this rank's record, returns no module: every
 *   rank of coll/topo leaves the whole communicator to the components
 *   below, and the lowest such rank says what differs (ranks-differ);
 * - the exchanges at the first call are coll/topo's own, through the PML
 *   with tags of coll/topo's range (COLL_TOPO_TAG_PREPARE), which no
 *   application message and no other component's message can match.
 *
 * Why this cannot block.  Open MPI 4.1's MPI_Init opens the coll framework
 * before it commits the modex and runs its fence, and calls the coll
 * components' init_query only after the fence: a record put at open is in
 * the fence's data, one put at init_query would not be.  With the full
 * modex (the default: pmix_base_async_modex 0, pmix_base_collect_data 1)
 * the fence delivers every process's data, so whether a peer published the
 * record is known locally, and the lookups are made with PMIX_OPTIONAL:
 * they consult only the local data store and never ask a server.  A lookup
 * without it would, under a direct modex, ask the peer's daemon for a key
 * the peer never posts, and PMIx holds such a request until the key appears,
 * that is forever.  Under a direct or asynchronous modex the local store
 * does not yet hold every peer's data, so a missing record proves nothing
 * and different ranks could conclude differently (and hang); there, and for
 * a communicator with processes of another job (spawned or connected, whose
 * data the fence did not carry), coll/topo leaves the communicator to the
 * components below on every rank, and says so once.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/group/group.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/proc/proc.h"
#include "ompi/request/request.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/pmix/pmix.h"
#include "opal/util/proc.h"

#include "coll_topo.h"

/* The modex key of the record. */
#define RECORD_KEY "mca_coll_topo_record"
/* The record's layout version: bumped when its text changes meaning. */
#define RECORD_VERSION 1

static char record[512]; /* this process's, "" when none was published */
static bool published;

/* What the comparison found for one peer, cached per MPI_COMM_WORLD rank
 * (records never change once MPI_Init has run). */
enum { PEER_UNKNOWN = 0, PEER_SAME, PEER_ABSENT, PEER_DIFFERENT };
static unsigned char *peer_state;
static int npeer_state;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The coll list this process was given (--mca coll) into buf, its names
 * sorted (their order selects nothing: the priorities do), "(all)" when
 * none was given. */
static void coll_list(char *buf, size_t len)
{
    const int idx = mca_base_var_find("ompi", "coll", NULL, NULL);
    const char **value = NULL;
    snprintf(buf, len, "(all)");
    if (idx < 0 || OPAL_SUCCESS != mca_base_var_get_value(idx, &value, NULL, NULL) ||
        NULL == value || NULL == *value || '\0' == (*value)[0]) {
        return;
    }
    char copy[256], *names[64], *save = NULL;
    int n = 0;
    snprintf(copy, sizeof(copy), "%s", *value);
    const bool exclude = '^' == copy[0];
    for (char *t = strtok_r(copy + exclude, ",", &save); NULL != t && n < 64;
         t = strtok_r(NULL, ",", &save)) {
        names[n++] = t;
    }
    qsort(names, (size_t)n, sizeof(names[0]), by_name);
    size_t at = (size_t)snprintf(buf, len, "%s", exclude ? "^" : "");
    for (int i = 0; i < n && at < len; i++) {
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i > 0 ? "," : "", names[i]);
    }
}

void mca_coll_topo_publish(void)
{
    record[0] = '\0';
    published = false;
    /* only in an MPI process (ompi_info opens components too) */
    if (!ompi_rte_initialized || NULL == opal_pmix.put) {
        return;
    }
    char coll[300];
    coll_list(coll, sizeof(coll));
    snprintf(record, sizeof(record), "coll/topo (record %d), coll_topo_priority %d, coll list '%s'",
             RECORD_VERSION, mca_coll_topo_component.priority, coll);
    int rc;
    char *value = record;
    OPAL_MODEX_SEND_VALUE(rc, OPAL_PMIX_GLOBAL, RECORD_KEY, value, OPAL_STRING);
    published = OPAL_SUCCESS == rc;
}

void mca_coll_topo_agree_finalize(void)
{
    free(peer_state);
    peer_state = NULL;
    npeer_state = 0;
}

/* The state of process `name`, of this job (under the lazy lock). */
static int peer(opal_process_name_t name)
{
    const int nworld = ompi_comm_size(&ompi_mpi_comm_world.comm);
    if (NULL == peer_state && nworld > 0) {
        peer_state = calloc((size_t)nworld, 1);
        npeer_state = NULL != peer_state ? nworld : 0;
    }
    const bool cached = name.vpid < (opal_vpid_t)npeer_state;
    if (cached && PEER_UNKNOWN != peer_state[name.vpid]) {
        return peer_state[name.vpid];
    }
    int rc, state;
    char *theirs = NULL;
    OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, RECORD_KEY, &name, &theirs, OPAL_STRING);
    if (OPAL_SUCCESS != rc || NULL == theirs) {
        state = PEER_ABSENT;
    } else if (0 == strcmp(theirs, record)) {
        state = PEER_SAME;
    } else {
        state = PEER_DIFFERENT;
    }
    free(theirs);
    if (cached) {
        peer_state[name.vpid] = (unsigned char)state;
    }
    return state;
}

/* The message of ranks-differ, once per process. */
static void say_differ(struct ompi_communicator_t *comm, int first, opal_process_name_t name,
                       int state, int ndiffer)
{
    static bool said = false;
    if (!mca_coll_topo_once(&said)) {
        return;
    }
    char what[1024];
    char *theirs = NULL;
    int rc = OPAL_ERR_NOT_FOUND;
    if (PEER_DIFFERENT == state) {
        OPAL_MODEX_RECV_VALUE_OPTIONAL(rc, RECORD_KEY, &name, &theirs, OPAL_STRING);
    }
    if (PEER_ABSENT == state) {
        snprintf(what, sizeof(what),
                 "does not run coll/topo (its coll list leaves topo out, or the "
                 "component is not installed or is disabled there)");
    } else {
        snprintf(what, sizeof(what), "runs %s",
                 OPAL_SUCCESS == rc && NULL != theirs ? theirs : "coll/topo otherwise");
    }
    free(theirs);
    mca_coll_topo_show_help("ranks-differ", mca_coll_topo_comm_name(comm),
                            (unsigned)comm->c_contextid, ompi_comm_size(comm), ndiffer, first,
                            (unsigned)name.vpid, what, record);
}

/* Why coll/topo cannot tell (no record, modex, another job), once. */
static void say_unknown(const char *why)
{
    static bool said = false;
    if (mca_coll_topo_once(&said) && mca_coll_topo_first_process()) {
        mca_coll_topo_show_help("ranks-unknown", why);
    }
}

bool mca_coll_topo_ranks_run_topo(struct ompi_communicator_t *comm)
{
    const int size = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    if (!published) {
        say_unknown("this process could not publish that it runs coll/topo (the modex "
                    "is not available)");
        return false;
    }
    if (opal_pmix_base_async_modex || !opal_pmix_collect_all_data) {
        say_unknown("the modex is direct or asynchronous (pmix_base_async_modex is 1 or "
                    "pmix_base_collect_data is 0): the processes' data is not all at hand, "
                    "and asking for it could block");
        return false;
    }
    const opal_jobid_t job = OPAL_PROC_MY_NAME.jobid;
    int first = -1, first_state = PEER_SAME, ndiffer = 0, lowest_same = me;
    opal_process_name_t first_name = {0, 0};
    bool other_job = false;
    OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
    for (int r = 0; r < size && !other_job; r++) {
        if (r == me) {
            continue;
        }
        const opal_process_name_t name = ompi_group_get_proc_name(comm->c_local_group, r);
        if (name.jobid != job) {
            other_job = true;
            break;
        }
        const int state = peer(name);
        if (PEER_SAME != state) {
            ndiffer++;
            if (first < 0) {
                first = r;
                first_state = state;
                first_name = name;
            }
        } else if (r < lowest_same) {
            lowest_same = r;
        }
    }
    OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    if (other_job) {
        say_unknown("a communicator holds processes of another job (spawned or connected), "
                    "whose data the modex of MPI_Init did not carry");
        return false;
    }
    if (0 == ndiffer) {
        return true;
    }
    /* said by the lowest rank with this rank's record: one message per
     * group of ranks that run coll/topo alike */
    if (lowest_same == me) {
        say_differ(comm, first, first_name, first_state, ndiffer);
    }
    if (lowest_same == me && mca_coll_topo_component.verbose >= COLL_TOPO_VERBOSE_DECISIONS) {
        fprintf(stderr,
                "coll:topo: comm %s (cid %u, %d ranks): %d ranks do not run coll/topo as rank "
                "%d does (rank %d first): every collective is left to the previous module\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, size, ndiffer, me,
                first);
        fflush(stderr);
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* coll/topo's own exchanges over the PML                              */

/* Send `sbytes` from sbuf to `to` and receive `rbytes` into rbuf from
 * `from`, with coll/topo's tag. */
static int sendrecv(struct ompi_communicator_t *comm, const void *sbuf, size_t sbytes, int to,
                    void *rbuf, size_t rbytes, int from, int tag)
{
    ompi_request_t *req[2];
    int rc = MCA_PML_CALL(irecv(rbuf, rbytes, &ompi_mpi_byte.dt, from, tag, comm, &req[0]));
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    rc = MCA_PML_CALL(
        isend(sbuf, sbytes, &ompi_mpi_byte.dt, to, tag, MCA_PML_BASE_SEND_STANDARD, comm, &req[1]));
    if (OMPI_SUCCESS != rc) {
        (void)ompi_request_cancel(req[0]);
        (void)ompi_request_wait(&req[0], MPI_STATUS_IGNORE);
        return rc;
    }
    return ompi_request_wait_all(2, req, MPI_STATUSES_IGNORE);
}

int mca_coll_topo_own_max(struct ompi_communicator_t *comm, uint64_t *v, int n)
{
    /* Dissemination: in round k every rank sends what it has to rank + 2^k
     * and takes the maximum with what rank - 2^k sends; after
     * ceil(log2(size)) rounds every rank has seen every value (the maximum
     * does not mind seeing one twice).  Each round's partner is different,
     * so messages of different rounds cannot be confused. */
    const int size = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    uint64_t in[COLL_TOPO_OWN_MAX_N];
    if (n < 1 || n > COLL_TOPO_OWN_MAX_N) {
        return OMPI_ERR_BAD_PARAM;
    }
    for (int d = 1; d < size; d *= 2) {
        int rc = sendrecv(comm, v, sizeof(*v) * (size_t)n, (me + d) % size, in,
                          sizeof(*v) * (size_t)n, (me - d + size) % size, COLL_TOPO_TAG_PREPARE(0));
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        for (int i = 0; i < n; i++) {
            v[i] = in[i] > v[i] ? in[i] : v[i];
        }
        if (d > size / 2) {
            break; /* d * 2 would overflow for sizes near INT_MAX */
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_topo_own_allgather(struct ompi_communicator_t *comm, const void *mine, void *all,
                                size_t bytes)
{
    /* Bruck: the block of rank r holds the items of r, r+1, ... (mod size);
     * in the round of distance d it gets min(d, size - d) more items from
     * rank r + d, which sends the first ones of its block.  At the end the
     * block is rotated into rank order. */
    const int size = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    unsigned char *block = malloc((size_t)size * bytes);
    if (NULL == block) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    memcpy(block, mine, bytes);
    int rc = OMPI_SUCCESS;
    for (int d = 1; d < size && OMPI_SUCCESS == rc; d = d > size / 2 ? size : 2 * d) {
        const size_t cnt = (size_t)(d < size - d ? d : size - d);
        rc = sendrecv(comm, block, cnt * bytes, (me - d + size) % size, block + (size_t)d * bytes,
                      cnt * bytes, (me + d) % size, COLL_TOPO_TAG_PREPARE(1));
    }
    for (int i = 0; i < size && OMPI_SUCCESS == rc; i++) {
        memcpy((unsigned char *)all + (size_t)((me + i) % size) * bytes, block + (size_t)i * bytes,
               bytes);
    }
    free(block);
    return rc;
}
