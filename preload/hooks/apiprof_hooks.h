/* SPDX-License-Identifier: MIT */
/* apiprof_hooks.h - the hooks room's declarations (lookups beyond
 * RTLD_NEXT, the runtime's own interposers, fatal signals); part of
 * apiprof_internal.h. */
#ifndef APIPROF_HOOKS_H
#define APIPROF_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apiprof_life.h"

/* --- lookups beyond RTLD_NEXT (apiprof_lookup.c) ----------------------- */
APIPROF_HIDDEN void *apiprof_lookup_in_library(const struct apiprof_api *api, uint32_t idx);
APIPROF_HIDDEN void *apiprof_api_redirect(const char *name, void *p);
/* The spec's library if loaded (a handle to dlclose), or NULL. */
APIPROF_HIDDEN void *apiprof_library_open(const struct apiprof_api *api);
/* A generated shim's real-function pointers, one per symbol; NULL for an
 * api built at run time (dynamic mode). */
APIPROF_HIDDEN void **apiprof_api_reals(const struct apiprof_api *api);
/* The api whose wrapper dlsym(RTLD_DEFAULT, name) would find, standing
 * for nothing (its library is not loaded), or NULL. */
APIPROF_HIDDEN struct apiprof_api *apiprof_api_absent(const char *name);
/* Leaves the dlerror state as a successful call does (apiprof_dl.c). */
APIPROF_HIDDEN void apiprof_dl_clear_error(void);
/* After a dlclose unloaded something: drops the cached real functions that
 * pointed into it (apiprof_unload.c). */
APIPROF_HIDDEN void apiprof_unload_forget(uint64_t adds_before);
APIPROF_HIDDEN void apiprof_unload_counts(uint64_t *adds, uint64_t *subs);

/* --- the runtime's own interposers (apiprof_hooks.c) ------------------- */
/* The definition of name that follows the runtime's (dlsym(RTLD_NEXT)),
 * looked up with the thread busy, so that nothing the lookup calls is
 * counted.  Every hook of the runtime finds its real function this way. */
APIPROF_HIDDEN void *apiprof_hook_next(const char *name);
APIPROF_HIDDEN void apiprof_hook_store(void *slot, void *p);
/* Registers the image's end at quick_exit(); from the constructor. */
APIPROF_HIDDEN void apiprof_hooks_init(void);

/* Resolves the real function into slot once; returns it or NULL. */
#define APIPROF_REAL(slot, name)                                                                   \
	(apiprof_read_once(&(slot))                                                                \
	         ? (slot)                                                                          \
	         : (apiprof_hook_store(&(slot), apiprof_hook_next(name)), (slot)))

/* --- fatal signals (apiprof_signal.c) --------------------------------- */
/* Catches SIGTERM, SIGINT, SIGHUP and SIGQUIT left at their default, so a
 * program they kill still writes its outputs; from the constructor. */
APIPROF_HIDDEN void apiprof_signal_init(void);
/* The held signals while the runtime starts: apiprof_signal_hold and
 * _release, inline in apiprof_life.h beside the busy guard. */
/* The end of the image happens once: apiprof_finish claims it (false: it
 * is some other thread's), marks it done, and a failed exec reopens it. */
APIPROF_HIDDEN bool apiprof_end_claim(void);
APIPROF_HIDDEN void apiprof_end_done(void);
APIPROF_HIDDEN void apiprof_end_reopen(void);
APIPROF_HIDDEN void apiprof_end_after_fork(void);

#endif /* APIPROF_HOOKS_H */
