/* SPDX-License-Identifier: MIT */
/*
 * dyn.h - libapiprof-dyn.so, the profiler of dynamic mode.
 *
 * It reads the specs named by APIPROF_SPEC with the generator's loader,
 * maps their C types to libffi types, and for every function builds an
 * ffi_cif and an ffi_closure whose handler times the call through the
 * runtime (apiprof_enter/apiprof_leave, as a generated wrapper does) and
 * forwards it to the real function.  The audit module's stubs
 * (dyn_link.h) lead the program's calls to the closures.
 *
 *   dyn_init.c     constructor: specs, the audit module's table, the mode
 *   dyn_api.c      one struct apiprof_api per spec
 *   dyn_types.c    C type -> ffi_type: scalars, typedef table, pointers
 *   dyn_record.c   structs and unions by value, from the spec's "types"
 *   dyn_fn.c       per function: cif, closure, handler
 *   dyn_fast.c     forwarding without ffi_call for register-only signatures,
 *                  and their closure without libffi (dyn_quick.S)
 *   dyn_bind.c     the GOT entries and data words the audit module does
 *                  not see, led to the stubs by the engine (preload/bind/)
 *   dyn_gate.S     where a stub leads: a nested call to the function, the
 *                  others to the closure
 */
#ifndef DYN_H
#define DYN_H

#include <ffi.h>
#include <stdbool.h>
#include <stddef.h>

#include "spec.h"
#include "apiprof_atomic.h"
#include "apiprof_shim.h"
#include "dyn_link.h"

#define DYN_HIDDEN __attribute__((visibility("hidden")))

/* Why a type could not be mapped: filled by the dyn_type* functions. */
struct dyn_why {
	char msg[400];
};

/* Where a type is used: decides arrays and array-like typedefs. */
enum dyn_use {
	DYN_PARAM,
	DYN_RETURN,
	DYN_MEMBER,
};

/* dyn_types.c */
DYN_HIDDEN ffi_type *dyn_type(const struct spec *s, const struct spec_ctype *t, enum dyn_use use,
                              struct dyn_why *why);
DYN_HIDDEN ffi_type *dyn_type_depth(const struct spec *s, const struct spec_ctype *t,
                                    enum dyn_use use, int depth, struct dyn_why *why);
DYN_HIDDEN void *dyn_alloc(size_t n); /* zeroed, for the life of the process */

/* dyn_record.c: the entry of "types" keyed "struct X", "union X", "enum X" or
 * a typedef name. */
DYN_HIDDEN const struct spec_typedef *dyn_record_find(const struct spec *s, const char *key);
DYN_HIDDEN ffi_type *dyn_record(const struct spec *s, const struct spec_typedef *td, int depth,
                                struct dyn_why *why);

/* One entry point (a function or an alias) and its closure. */
struct dyn_fn;
typedef void (*dyn_fwd)(const struct dyn_fn *f, void *ret, void **args);

struct dyn_fn {
	ffi_cif cif;
	struct dyn_slot *slot; /* the audit module's: real function, stub target */
	struct apiprof_api *api;
	uint32_t row;
	dyn_fwd fwd;
	uint8_t fast_int[6]; /* dyn_fast.c: which args go in which register */
	uint8_t fast_sse[8];
	uint8_t n_int, n_sse;
	uint32_t sym;     /* its symbol's index (the twin's, for a vtwin) */
	unsigned nfixed;  /* vtwin: the fixed parameters */
	ffi_cif twin_cif; /* vtwin: the twin's signature */
	void *twin;       /* vtwin: the twin, found on first use */
	bool sited;       /* dyn_site.c: its calls' sites can be read */
	/* dyn_acct.c: what the spec declares about its calls, and the types
	 * of the values judged (the result, the parameters of "bytes"). */
	struct spec_acct acct;
	ffi_type *rtype;
	ffi_type *btype[2];
};

/* dyn_fn.c: builds f for entry g of spec s; installs its closure in
 * slot.  -1 (after one line on stderr) when the types cannot be mapped. */
DYN_HIDDEN int dyn_fn_build(struct dyn_fn *f, const struct spec *s, const struct spec_func *g,
                            struct dyn_slot *slot);

/* dyn_fast.c: a forwarder that calls the real function directly when
 * every argument travels in a register; NULL when the signature has
 * anything else (stack arguments, structs, long double, variadic). */
DYN_HIDDEN dyn_fwd dyn_fast_pick(struct dyn_fn *f);
/* dyn_fast.c: dyn_quick (dyn_quick.S), the closure without libffi of such
 * a function: the slots' map first, then the code f's calls go to (its
 * forwarder is dyn_fast's; the caller has checked: no vtwin, returns), or
 * NULL for a libffi closure. */
DYN_HIDDEN void dyn_quick_init(const struct dyn_link *l);
DYN_HIDDEN void (*dyn_quick_take(const struct dyn_fn *f))(void);

/* dyn_acct.c: f's declaration of bytes and failures, from entry g with
 * its libffi types; and its record after a call that counted. */
DYN_HIDDEN void dyn_acct_prep(struct dyn_fn *f, const struct spec_func *g, ffi_type *rtype,
                              ffi_type **atypes);
DYN_HIDDEN void dyn_acct_record(const struct dyn_fn *f, const void *ret, void **args);

static inline bool dyn_acct_any(const struct dyn_fn *f)
{
	return f->acct.bytes != SPEC_BYTES_NONE || f->acct.fails != SPEC_FAILS_NONE;
}

/* dyn_vtwin.c: a vtwin function's cifs, its va_list, its twin. */
DYN_HIDDEN bool dyn_vtwin_works(void);
DYN_HIDDEN int dyn_vtwin_prep(struct dyn_fn *f, ffi_type *rtype, ffi_type **fixed, unsigned n);
DYN_HIDDEN void dyn_vtwin_va(const struct dyn_fn *f, void **args, void *va);
DYN_HIDDEN void *dyn_vtwin_real(struct dyn_fn *f);

/* dyn_site.c: measures where libffi's closures find the caller's return
 * address (once, before any closure is made); whether a function returning
 * rtype can have its call sites read; the site of f's call whose result
 * buffer is ret, 0 when none. */
DYN_HIDDEN void dyn_site_init(void);
DYN_HIDDEN bool dyn_site_known(const ffi_type *rtype);
DYN_HIDDEN uintptr_t dyn_site(const struct dyn_fn *f, void *ret);

/* dyn_init.c: p, or the function behind it if p is one of the stubs. */
DYN_HIDDEN void *dyn_unstub(void *p);

/* dyn_bind.c: binds every slot of the profiled symbols to their stubs
 * (GOT, data words, objects loaded later); the real function the engine
 * found for s when the audit module's slot has none, else 0. */
DYN_HIDDEN void dyn_bind_slots(struct dyn_link *l);
DYN_HIDDEN uintptr_t dyn_bound_real(const struct dyn_slot *s);

static inline uintptr_t dyn_real(const struct dyn_slot *s)
{
	uintptr_t p = apiprof_load_acquire(&s->real);

	return apiprof_likely(p != 0) ? p : dyn_bound_real(s);
}

/* dyn_api.c */
DYN_HIDDEN struct apiprof_api *dyn_api_new(const struct spec *s);

/* dyn_init.c: the audit module's slot for an entry, NULL if it has none. */
DYN_HIDDEN struct dyn_slot *dyn_slot_for(const struct spec_func *g);

DYN_HIDDEN void dyn_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What every process of the run would say alike: said when apiprof_say()
 * is at least level (APIPROF_SAY_ERRORS, or APIPROF_SAY_ALL for a note). */
DYN_HIDDEN void dyn_tell(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* DYN_H */
