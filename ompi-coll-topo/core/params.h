/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranges of the component's numeric MCA parameters: one table of
 * {name, type, variable, range, default}, checked in one loop
 * (topo_params_check).  A value outside its range (NaN and infinities
 * included), or a number written as text that does not parse, is replaced
 * by the parameter's default and reported through a callback, which the
 * component turns into one help message per parameter.
 *
 * The cost model's seconds are MCA string parameters (ompi_info prints an
 * MCA double with six decimals, so 1e-10 would read 0.000000); their text
 * is parsed here (topo_param_parse_double), and their default text is
 * written by topo_param_format_double, which reads back as the same double.
 */
#ifndef TOPO_PARAMS_H
#define TOPO_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TOPO_PARAM_INT,    /* var: int * */
    TOPO_PARAM_LONG,   /* var: long * */
    TOPO_PARAM_SIZE,   /* var: size_t * */
    TOPO_PARAM_DOUBLE, /* var: double * (text NULL: the double is the parameter) */
} topo_param_type_t;

typedef struct {
    const char *name; /* the MCA parameter, e.g. "coll_topo_alpha" */
    topo_param_type_t type;
    void *var;     /* where the value lives (see the type) */
    char **text;   /* TOPO_PARAM_DOUBLE given as text: *text is
                      parsed into *var (NULL or "" = the default) */
    double lo, hi; /* the range: lo <= value <= hi (finite) */
    bool lo_open;  /* lo < value instead */
    double def;    /* the default, inside the range */
} topo_param_t;

/* The longest text topo_param_range and topo_param_format_value write. */
#define TOPO_PARAM_TEXT_LEN 64

/* Called once per parameter whose value was replaced by its default:
 * `value` is the value as given (its text, or the number printed). */
typedef void (*topo_param_bad_fn)(const topo_param_t *p, const char *value, void *arg);

/* Check (and for text, parse) the n parameters of `table` in order: each
 * one outside its range gets its default and a call of bad (may be NULL).
 * Returns how many were replaced. */
int topo_params_check(const topo_param_t *table, int n, topo_param_bad_fn bad, void *arg);

/* The range as the help texts and messages spell it, e.g. "0 to 1",
 * "-1 to 2147483647", "above -1 up to 1e+06". */
void topo_param_range(const topo_param_t *p, char *buf, size_t len);

/* The parameter's default as text (a double: topo_param_format_double). */
void topo_param_format_default(const topo_param_t *p, char *buf, size_t len);

/* A number from text: optional blanks, a strtod number, optional blanks,
 * nothing else; a value that overflows fails.  NaN and infinities parse
 * (the range rejects them).  Returns true on success. */
bool topo_param_parse_double(const char *s, double *out);

/* The shortest %g text that topo_param_parse_double reads back as v,
 * e.g. "1e-10", "2e-06", "1.5e-07", "0.05". */
void topo_param_format_double(double v, char *buf, size_t len);

/* What Open MPI publishes about a BTL that carries messages between hosts
 * (the module's values, after the BTL's own detection): btl_<name>_bandwidth
 * in Mbit/s, btl_<name>_latency in microseconds, btl_<name>_eager_limit in
 * bytes with the headers; 0 = not known. */
typedef struct {
    const char *name;   /* the BTL, e.g. "tcp" */
    double bandwidth;   /* Mbit/s */
    double latency;     /* us */
    double eager_limit; /* bytes */
} topo_btl_info_t;

/* The network tier of the cost model from those BTLs: the slowest one
 * prices a byte (beta = 8 / (bandwidth * 1e6) seconds per byte: a port
 * moves at the speed of the slowest BTL that can carry a message), the
 * largest latency a message (alpha = latency * 1e-6 s), and the smallest
 * eager limit less `headers` is the largest payload sent eagerly.  A value
 * no BTL publishes stays negative (the caller keeps its default); *_from
 * is the index of the BTL that gave it (-1: none).  Returns whether any
 * value was derived. */
typedef struct {
    double alpha, beta, eager; /* seconds, seconds per byte, bytes; < 0: none */
    int alpha_from, beta_from, eager_from;
} topo_btl_costs_t;
/* The headers that travel in an eager fragment with the data (ob1's match
 * header and the BTL's): the payload sent eagerly is the eager limit less
 * this. */
#define TOPO_BTL_EAGER_HEADERS 64
bool topo_btl_costs(const topo_btl_info_t *btl, int n, double headers, topo_btl_costs_t *out);

#ifdef __cplusplus
}
#endif
#endif
