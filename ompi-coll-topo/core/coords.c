/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* The coordinates file's text: coords.h. */
#include "coords.h"

#include "schedule.h" /* error codes */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Split off the next blank-separated token of *p; NULL at the end. */
static char *token(char **p)
{
    char *s = *p;
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if ('\0' == *s) {
        *p = s;
        return NULL;
    }
    char *t = s;
    while ('\0' != *s && !isspace((unsigned char)*s)) {
        s++;
    }
    if ('\0' != *s) {
        *s++ = '\0';
    }
    *p = s;
    return t;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (NULL != err && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return TOPO_EINVAL;
}

/* One host's line after its name: the coordinates in c.  TOPO_OK or
 * TOPO_EINVAL with the reason. */
static int host_coords(const topo_topology_t *shape, const char *name, char *p, int *c, char *err,
                       size_t errlen)
{
    int nc = 0;
    char *t;
    while (NULL != (t = token(&p))) {
        char *end;
        errno = 0;
        const long v = strtol(t, &end, 10);
        if (nc == shape->ndims) {
            return fail(err, errlen,
                        "host '%s' has more coordinates than the shape's %d dimensions", name,
                        shape->ndims);
        }
        if (errno || '\0' != *end || v < 0 || v >= shape->dims[nc]) {
            return fail(err, errlen,
                        "host '%s': coordinate '%s' is not an integer within the shape", name, t);
        }
        c[nc++] = (int)v;
    }
    if (nc != shape->ndims) {
        return fail(err, errlen, "host '%s' has fewer coordinates than the shape's %d dimensions",
                    name, shape->ndims);
    }
    return TOPO_OK;
}

/* The shape line: TOPO_OK with *shape, or TOPO_EINVAL. */
static int shape_line(const char *first, char *rest, topo_topology_t *shape, char *err,
                      size_t errlen)
{
    char why[256] = "";
    if (NULL != token(&rest)) {
        return fail(err, errlen,
                    "the first line must be the machine's shape alone (e.g. torus:4x4x2), not "
                    "'%s ...'",
                    first);
    }
    if (TOPO_OK != topo_topology_parse(first, shape, why, sizeof(why))) {
        return fail(err, errlen, "the shape is not valid: %s", why);
    }
    if (0 == topo_topology_size(shape) || 0 == shape->ndims ||
        (TOPO_NET_TORUS != shape->kind && TOPO_NET_MESH != shape->kind)) {
        return fail(err, errlen,
                    "the shape '%s' is not a grid (expected torus:AxB... or mesh:AxB...)", first);
    }
    return TOPO_OK;
}

/* What a file that is not a regular one is, for the message. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

/* topo_coords_read (coords.h).  Only a regular file of at most TOPO_COORDS_FILE_MAX bytes:
 * opened without blocking (a FIFO with no writer would block open and every
 * read), checked with fstat before anything is read (a device such as
 * /dev/zero never ends), and read no further than the limit (a file that
 * grows meanwhile). */
int topo_coords_read(const char *file, char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    int fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fail(err, errlen, "cannot open it: %s", strerror(errno));
        return TOPO_EINVAL;
    }
    struct stat st;
    if (0 != fstat(fd, &st)) {
        fail(err, errlen, "cannot examine it: %s", strerror(errno));
        close(fd);
        return TOPO_EINVAL;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(err, errlen, "it is %s; only a regular file is read", file_kind(st.st_mode));
        close(fd);
        return TOPO_EINVAL;
    }
    if (st.st_size > TOPO_COORDS_FILE_MAX) {
        fail(err, errlen, "it has %lld bytes, more than the %ld read at most",
             (long long)st.st_size, TOPO_COORDS_FILE_MAX);
        close(fd);
        return TOPO_EINVAL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap + 1);
    bool ok = NULL != buf;
    if (!ok) {
        fail(err, errlen, "no memory to read its %lld bytes", (long long)st.st_size);
    }
    while (ok) {
        if (n == cap) {
            /* it grew since fstat: up to the limit, one byte more tells */
            size_t grown = cap * 2 > (size_t)TOPO_COORDS_FILE_MAX + 1
                               ? (size_t)TOPO_COORDS_FILE_MAX + 1
                               : cap * 2;
            char *g = grown > cap ? realloc(buf, grown + 1) : NULL;
            if (NULL == g) {
                fail(err, errlen, "it grew beyond the %ld bytes read at most",
                     TOPO_COORDS_FILE_MAX);
                ok = false;
                break;
            }
            buf = g;
            cap = grown;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && EINTR == errno) {
            continue;
        }
        if (r < 0) {
            fail(err, errlen, "reading it failed: %s", strerror(errno));
            ok = false;
        } else if (0 == r) {
            break;
        } else {
            n += (size_t)r;
        }
    }
    close(fd);
    if (ok && NULL != memchr(buf, '\0', n)) {
        fail(err, errlen, "it contains NUL bytes (it is not a text file)");
        ok = false;
    }
    if (!ok) {
        free(buf);
        return NULL == buf ? TOPO_ENOMEM : TOPO_EINVAL;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return TOPO_OK;
}

int topo_coords_parse(const char *text, size_t len, const char *host, topo_topology_t *shape,
                      int *position, int *line, char *err, size_t errlen)
{
    char buf[TOPO_COORDS_LINE_MAX];
    topo_topology_t star;
    memset(&star, 0, sizeof(star));
    star.kind = TOPO_NET_STAR;
    *shape = star;
    *position = -1;
    *line = 0;
    if (NULL != err && errlen > 0) {
        err[0] = '\0';
    }
    int have_shape = 0, found_line = 0, lineno = 0, rc = TOPO_OK;
    unsigned char *taken = NULL; /* a bit per grid position */
    for (size_t at = 0; TOPO_OK == rc && at < len;) {
        lineno++;
        const char *nl = memchr(text + at, '\n', len - at);
        const size_t n = NULL != nl ? (size_t)(nl - (text + at)) : len - at;
        if (n > sizeof(buf) - 1) {
            rc = fail(err, errlen, "the line is longer than %d characters",
                      TOPO_COORDS_LINE_MAX - 1);
            break;
        }
        memcpy(buf, text + at, n);
        buf[n] = '\0';
        at += n + (NULL != nl);
        char *hash = strchr(buf, '#');
        if (NULL != hash) {
            *hash = '\0';
        }
        char *p = buf, *first = token(&p);
        if (NULL == first) {
            continue; /* blank or comment */
        }
        if (!have_shape) {
            rc = shape_line(first, p, shape, err, errlen);
            if (TOPO_OK != rc) {
                *shape = star;
                break;
            }
            have_shape = 1;
            taken = calloc((size_t)topo_topology_size(shape) / 8 + 1, 1);
            if (NULL == taken) {
                rc = TOPO_ENOMEM;
                fail(err, errlen, "no memory for the table of its %d positions",
                     topo_topology_size(shape));
            }
            continue;
        }
        int c[TOPO_MAX_DIMS];
        rc = host_coords(shape, first, p, c, err, errlen);
        if (TOPO_OK != rc) {
            break;
        }
        const int pos = topo_topology_rank(shape, c);
        if (taken[pos / 8] & (1u << (pos % 8))) {
            rc = fail(err, errlen,
                      "host '%s' is at a position an earlier line already gave to another host",
                      first);
            break;
        }
        taken[pos / 8] |= (unsigned char)(1u << (pos % 8));
        if (NULL != host && 0 == strcmp(first, host)) {
            if (found_line > 0) {
                rc = fail(err, errlen, "host '%s' is listed twice (first on line %d)", first,
                          found_line);
                break;
            }
            found_line = lineno;
            *position = pos;
        }
    }
    free(taken);
    if (TOPO_OK == rc && !have_shape) {
        rc = fail(err, errlen, "it has no shape line (e.g. torus:4x4x2)");
        lineno = 0;
    }
    if (TOPO_OK != rc) {
        *line = lineno;
        *position = -1;
    }
    return rc;
}
