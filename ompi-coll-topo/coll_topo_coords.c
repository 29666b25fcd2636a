/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The coordinates file (coll_topo_coords_file): where each host sits in the
 * machine's network (its syntax and parser: core/coords.h).  This file
 * reads it safely and reports its problems.  A process looks up its own host
 * (coll_topo_coords_host, or the node's name) once; the module then compares the positions of a
 * communicator's ranks (coll_topo_module.c).
 */
#include "ompi_config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opal/util/proc.h"
#include "opal/util/show_help.h"

#include "coll_topo.h"
#include "coords.h"

typedef struct {
    bool done;
    bool ok;
    topo_topology_t shape;
    char shape_str[64];
    int position;
} coords_cache_t;

static coords_cache_t cache;

/* This process's host name as the file spells it. */
static void my_host(char *buf, size_t len)
{
    const char *h = mca_coll_topo_component.coords_host;
    if (NULL != h && '\0' != h[0]) {
        snprintf(buf, len, "%s", h);
        return;
    }
    if (NULL != opal_process_info.nodename && '\0' != opal_process_info.nodename[0]) {
        snprintf(buf, len, "%s", opal_process_info.nodename);
        return;
    }
    if (0 != gethostname(buf, len)) {
        snprintf(buf, len, "localhost");
    }
    buf[len - 1] = '\0';
}

/* Report a problem: `line` 0 = the whole file; `own` = a problem of this
 * host only (reported by this process), else of the file (reported by the
 * job's first process; every process finds the same). */
static void complain(const char *file, int line, bool own, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void complain(const char *file, int line, bool own, const char *fmt, ...)
{
    /* a problem of the file: its first process; of a host: the host's
     * first process (every process when coll_topo_coords_host names each
     * process's host) */
    const char *h = mca_coll_topo_component.coords_host;
    const bool own_host = NULL != h && '\0' != h[0];
    if (own ? !own_host && 0 != opal_process_info.my_local_rank : !mca_coll_topo_first_process()) {
        return;
    }
    char where[32], what[512];
    if (line > 0) {
        snprintf(where, sizeof(where), "%d", line);
    } else {
        snprintf(where, sizeof(where), "(none)");
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    mca_coll_topo_show_help("bad-coords-file", file, where, what);
}

/* Read the file; returns true with cache.shape and cache.position set. */
static bool load(const char *file)
{
    char host[256], err[512];
    my_host(host, sizeof(host));

    char *text;
    size_t len;
    if (TOPO_OK != topo_coords_read(file, &text, &len, err, sizeof(err))) {
        complain(file, 0, false, "%s", err);
        return false;
    }
    int line = 0;
    const int rc =
        topo_coords_parse(text, len, host, &cache.shape, &cache.position, &line, err, sizeof(err));
    free(text);
    bool ok = TOPO_OK == rc;
    if (TOPO_EINVAL == rc) {
        complain(file, line, false, "%s", err);
    } else if (ok && cache.position < 0) {
        complain(file, 0, true, "this process's host '%s' has no line", host);
        ok = false;
    }
    /* a host without a line keeps the shape: the ranks still agree on it */
    if (TOPO_NET_STAR != cache.shape.kind) {
        topo_topology_format(&cache.shape, cache.shape_str, sizeof(cache.shape_str));
    } else {
        cache.shape_str[0] = '\0';
    }
    return ok;
}

bool mca_coll_topo_coords(const char *file, topo_topology_t *shape, char *shape_str,
                          size_t shape_len, int *position)
{
    OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
    if (!cache.done) {
        cache.done = true;
        cache.position = -1;
        memset(&cache.shape, 0, sizeof(cache.shape));
        cache.shape.kind = TOPO_NET_STAR;
        cache.shape_str[0] = '\0';
        cache.ok = load(file);
        if (!cache.ok) {
            cache.position = -1;
        }
    }
    *shape = cache.shape;
    snprintf(shape_str, shape_len, "%s", cache.shape_str);
    *position = cache.position;
    const bool ok = cache.ok;
    OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    return ok;
}
