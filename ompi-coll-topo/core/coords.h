/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The coordinates file (coll_topo_coords_file): where each host sits in the
 * machine's network.  Plain C, no MPI: the component (coll_topo_coords.c)
 * and topo-calibrate read it alike.
 *
 *     # comments and blank lines are ignored
 *     torus:4x4x2
 *     node001 0 0 0
 *     node002 0 0 1
 *     ...
 *
 * The first line is the machine's shape (a torus or mesh in the syntax of
 * coll_topo_topology), then one line per host: its name and one coordinate
 * per dimension.
 */
#ifndef TOPO_COORDS_H
#define TOPO_COORDS_H

#include <stddef.h>

#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest file read (some 2 million hosts' lines): a bigger one is
 * reported, not read, so that no name can make every rank read for long. */
#define TOPO_COORDS_FILE_MAX (64L * 1024 * 1024)

/* The longest line read, terminator included. */
#define TOPO_COORDS_LINE_MAX 4096

/* The whole of `file` into *text (malloc'ed, NUL-terminated, *len
 * bytes): TOPO_OK, or TOPO_EINVAL (TOPO_ENOMEM) with the problem in err
 * and *text NULL.  Only a regular file of at most TOPO_COORDS_FILE_MAX
 * bytes of text, opened without blocking (a FIFO with no writer would
 * block), checked with fstat before anything is read (a device such as
 * /dev/zero never ends), and read no further than the limit (a file that
 * grows meanwhile). */
int topo_coords_read(const char *file, char **text, size_t *len, char *err, size_t errlen);

/* Parse the `len` bytes of `text` (a file's whole contents, NUL-terminated
 * at text[len]), looking for `host`.  Returns TOPO_OK with *shape set (its
 * placement NULL) and *position the grid position of `host`'s line, or -1
 * where the file has no line for it; or TOPO_EINVAL with a one-line reason
 * in err and *line the line it is about (0: the whole file) — a problem of
 * the file, the same for every host — and *shape the shape where the file
 * has a valid one (else a star), so that ranks that all fail still agree on
 * it.  TOPO_ENOMEM where the table of taken positions cannot be had. */
int topo_coords_parse(const char *text, size_t len, const char *host, topo_topology_t *shape,
                      int *position, int *line, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
