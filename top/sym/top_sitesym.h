/* SPDX-License-Identifier: MIT */
/*
 * top_sitesym.h - call sites to names, resolved once: a cache of
 * top_sym answers by (process, return address) in front of top_sym.c's
 * libdwfl, for the viewer's rows, --json and --folded, which ask the same
 * addresses again every refresh.  Not thread-safe, like top_sym.
 */
#ifndef TOP_SITESYM_H
#define TOP_SITESYM_H

#include <stdint.h>

#include "top_sym.h"

#define TOP_SITESYM_MAX 1024 /* answers kept; the cache starts afresh when full */

/* The name of the call that returns to addr (addr - 1 is resolved) in
 * process pid, started at starttime.  Never NULL: "[unknown]" on failure
 * or out of memory.  Valid until the next call. */
const struct top_sym *top_sitesym(int pid, uint64_t starttime, uint64_t addr);
/* A short label: function, module+0xoff, [anon], [unknown]. */
const char *top_sitesym_label(int pid, uint64_t starttime, uint64_t addr, char *buf, size_t cap);
/* A new refresh: the processes' maps are read again (top_sym_cache_next). */
void top_sitesym_refresh(void);
/* Where the resolver's warnings go (top_sym_cache_warn). */
void top_sitesym_warn(top_sym_warn_fn fn, void *ctx);
/* Frees the cache (at exit, for leak checkers). */
void top_sitesym_free(void);

#endif /* TOP_SITESYM_H */
