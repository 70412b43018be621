/* SPDX-License-Identifier: MIT */
/*
 * apiprof_bind.h - the slot-rewriting engine (issue 38).
 *
 * It redirects the calls of named functions by rewriting where the loaded
 * objects bind them: JUMP_SLOT (the PLT), GLOB_DAT (the GOT that -fno-plt
 * code calls through) and data words filled by R_X86_64_64 relocations
 * (function-pointer tables), read from each object's dynamic section in
 * memory.  A read-only slot (full RELRO) is made writable for the moment
 * of the write, then given its protection back.  Each slot is written with
 * one aligned atomic store: a thread calling meanwhile goes either to the
 * old target or to the new one.
 *
 * Used by dynamic mode (preload/dyn/) and by attach (apiprof-run -p,
 * preload/life/apiprof_attach.c).
 */
#ifndef APIPROF_BIND_H
#define APIPROF_BIND_H

#include <link.h>
#include <stddef.h>

/* Exported (apiprof.map): libapiprof-dyn.so calls them too. */
#define APIPROF_BIND_API __attribute__((visibility("default")))

struct apiprof_bind_sym {
	const char *name; /* symbol name, unversioned (or "name@VER") */
	void *wrapper;    /* where the calls should go from now on */
	void *real; /* out: the definition the slots held (the real function), NULL if none seen */
};

/*
 * Rewrites every slot of syms[0..n) in every object loaded now (JUMP_SLOT,
 * GLOB_DAT, and data relocations R_X86_64_64 / RELATIVE-resolved
 * function-pointer tables that point at the real definition), except in the
 * objects that define the wrappers and in apiprof's own; remembers each slot
 * and its old value.  Returns the number of slots rewritten, or -errno
 * (nothing changed then).
 *
 * `real`: a non-NULL value on entry is taken as the definition (the caller
 * knows it, from dlsym); else the engine finds it (the symbol's default
 * definition, as the loader would bind it).  Either way it is stored in
 * syms[i].real BEFORE any slot points at syms[i].wrapper, so a wrapper that
 * reads its real function through syms[i].real never sees NULL.  The array
 * is kept (not copied) until apiprof_bind_revert: apiprof_bind_object
 * binds the same symbols.
 */
APIPROF_BIND_API int apiprof_bind_apply(struct apiprof_bind_sym *syms, size_t n);

/* The same for one object loaded later (the runtime's dlopen hook calls it). */
APIPROF_BIND_API int apiprof_bind_object(struct link_map *lm);

/* Puts every rewritten slot back as it was (mprotect as needed). */
APIPROF_BIND_API int apiprof_bind_revert(void);

#endif /* APIPROF_BIND_H */
