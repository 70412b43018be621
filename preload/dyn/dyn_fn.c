// SPDX-License-Identifier: MIT
/*
 * dyn_fn.c - one entry point: its cif, its closure and the handler.
 *
 * The cif is prepared once and serves both directions: libffi decodes the
 * program's call with it into `args`, pointers into the closure's own
 * register and stack save areas, and ffi_call encodes the same `args`
 * for the real function.  Nothing is copied in between, and the real
 * function's result is written straight into the closure's return buffer
 * (both sides widen small integers to ffi_arg the same way).
 *
 * The handler is the generated wrapper's body: apiprof_enter_any decides
 * whether this call is counted and, when sampling, whether it is timed;
 * errno is whatever the real function left, as nothing after it touches
 * errno.
 */
#include <stdio.h>
#include <string.h>

#include "dyn.h"
#include "dyn_gate.h"

_Static_assert(offsetof(struct dyn_slot, real) == DYN_GATE_SLOT_REAL, "dyn_gate.h");
_Static_assert(offsetof(struct dyn_slot, api) == DYN_GATE_SLOT_API, "dyn_gate.h");
_Static_assert(offsetof(struct dyn_slot, closure) == DYN_GATE_SLOT_CLOSURE, "dyn_gate.h");
_Static_assert(offsetof(struct apiprof_api, tls) == DYN_GATE_API_TLS, "dyn_gate.h");
_Static_assert(offsetof(struct apiprof_api, slot) == DYN_GATE_API_SLOT, "dyn_gate.h");
_Static_assert(offsetof(struct apiprof_api, gate) == DYN_GATE_API_GATE, "dyn_gate.h");
_Static_assert(APIPROF_GATE_OFF == DYN_GATE_OFF, "dyn_gate.h");
_Static_assert(APIPROF_SLOT_FRAME == DYN_GATE_FRAME, "dyn_gate.h");
_Static_assert(APIPROF_FRAME_TAGS == DYN_GATE_FRAME_TAGS, "dyn_gate.h");
_Static_assert(APIPROF_FRAME_IDLE == 1, "dyn_gate.S compares with 1");

static void real_of(const struct dyn_fn *f, void (**fn)(void))
{
	uintptr_t p = dyn_real(f->slot);

	memcpy(fn, &p, sizeof(*fn));
}

static void fwd_ffi(const struct dyn_fn *f, void *ret, void **args)
{
	void (*fn)(void);

	real_of(f, &fn);
	ffi_call((ffi_cif *)&f->cif, fn, ret, args);
}

static void handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	const struct dyn_fn *f = user;
	struct apiprof_call c;

	(void)cif;
	unsigned route = apiprof_enter_any(f->api, &c, f->row, dyn_site(f, ret));
	if (route == APIPROF_CALL_TIMED) {
		apiprof_start(f->api, &c, f->row);
		f->fwd(f, ret, args);
		apiprof_leave(f->api, &c, f->row);
	} else {
		f->fwd(f, ret, args);
		apiprof_leave_other(f->api, &c, route, f->row);
	}
	if (apiprof_unlikely(dyn_acct_any(f)) && route != APIPROF_CALL_FORWARD)
		dyn_acct_record(f, ret, args);
}

/* A vtwin: the twin gets the fixed arguments and a va_list of the rest. */
static void handler_vtwin(ffi_cif *cif, void *ret, void **args, void *user)
{
	struct dyn_fn *f = user;
	void **targs = __builtin_alloca((f->nfixed + 1) * sizeof(*targs));
	void (*fn)(void);
	void *twin = dyn_vtwin_real(f), *vp;
	struct apiprof_call c;
	_Alignas(16) unsigned char va[24];

	(void)cif;
	if (twin == NULL) {
		apiprof_missing(f->api, f->sym);
		memset(ret, 0, f->cif.rtype->size > 8 ? f->cif.rtype->size : 8);
		return;
	}
	memcpy(&fn, &twin, sizeof(fn));
	memcpy(targs, args, f->nfixed * sizeof(*targs));
	dyn_vtwin_va(f, args, va);
	vp = va;
	targs[f->nfixed] = &vp;
	unsigned route = apiprof_enter_any(f->api, &c, f->row, dyn_site(f, ret));
	if (route == APIPROF_CALL_TIMED) {
		apiprof_start(f->api, &c, f->row);
		ffi_call(&f->twin_cif, fn, ret, targs);
		apiprof_leave(f->api, &c, f->row);
	} else {
		ffi_call(&f->twin_cif, fn, ret, targs);
		apiprof_leave_other(f->api, &c, route, f->row);
	}
	if (apiprof_unlikely(dyn_acct_any(f)) && route != APIPROF_CALL_FORWARD)
		dyn_acct_record(f, ret, args);
}

/* exit, longjmp: counted before, since they do not come back. */
static void handler_noreturn(ffi_cif *cif, void *ret, void **args, void *user)
{
	const struct dyn_fn *f = user;

	(void)cif;
	apiprof_count_noreturn(f->api, f->row);
	f->fwd(f, ret, args);
}

static void refuse(const struct spec *s, const struct spec_func *g, const char *why)
{
	dyn_tell(APIPROF_SAY_ALL, "%s:%d:%d: %s%s%s: %s; not profiled", s->path, g->pos.line,
	         g->pos.col, g->name, g->alias ? " alias " : "", g->alias ? g->symbol : "", why);
}

static int map_types(struct dyn_fn *f, const struct spec *s, const struct spec_func *g,
                     ffi_type **rtype, ffi_type ***atypes, struct dyn_why *why)
{
	size_t n = g->nparams + g->nextra;
	ffi_type **at = dyn_alloc((n + 1) * sizeof(*at));

	(void)f;
	*rtype = dyn_type(s, g->ret, DYN_RETURN, why);
	if (*rtype == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct spec_ctype *t =
		        i < g->nparams ? g->params[i].type : g->extra[i - g->nparams];

		at[i] = dyn_type(s, t, DYN_PARAM, why);
		if (at[i] == NULL)
			return -1;
	}
	*atypes = at;
	return 0;
}

static int prep(struct dyn_fn *f, const struct spec_func *g, ffi_type *rtype, ffi_type **atypes)
{
	unsigned nfixed = (unsigned)g->nparams, n = (unsigned)(g->nparams + g->nextra);

	if (g->vtwin)
		return dyn_vtwin_prep(f, rtype, atypes, nfixed);
	if (g->variadic)
		return ffi_prep_cif_var(&f->cif, FFI_DEFAULT_ABI, nfixed, n, rtype, atypes) ==
		                       FFI_OK
		               ? 0
		               : -1;
	return ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, n, rtype, atypes) == FFI_OK ? 0 : -1;
}

/* Leads f's stub to its closure through the gate (dyn_gate.S), which
 * sends a call nested in one of f's api straight to the function: the
 * gate's fields first, then the target that leads there. */
static void install(struct dyn_fn *f, uintptr_t code)
{
	apiprof_store_release(&f->slot->api, (const void *)f->api);
	apiprof_store_release(&f->slot->closure, code);
	apiprof_store_release(&f->slot->target, (uintptr_t)&dyn_gate);
}

static int make_closure(struct dyn_fn *f, const struct spec_func *g)
{
	void (*h)(ffi_cif *, void *, void **, void *) = g->vtwin      ? handler_vtwin
	                                                : g->noreturn ? handler_noreturn
	                                                              : handler;
	void (*quick)(void) = h == handler ? dyn_quick_take(f) : NULL;
	void *code;

	if (quick != NULL) {
		install(f, (uintptr_t)quick);
		return 0;
	}
	ffi_closure *cl = ffi_closure_alloc(sizeof(ffi_closure), &code);

	if (cl == NULL)
		return -1;
	if (ffi_prep_closure_loc(cl, &f->cif, h, f, code) != FFI_OK) {
		ffi_closure_free(cl);
		return -1;
	}
	install(f, (uintptr_t)code);
	return 0;
}

int dyn_fn_build(struct dyn_fn *f, const struct spec *s, const struct spec_func *g,
                 struct dyn_slot *slot)
{
	struct dyn_why why = {{0}};
	ffi_type *rtype, **atypes;

	if (g->vtwin && !dyn_vtwin_works()) {
		refuse(s, g,
		       "this libffi does not save registers as dyn_vtwin.c expects, so "
		       "no va_list can be built for the vtwin");
		return -1;
	}
	if (map_types(f, s, g, &rtype, &atypes, &why) < 0) {
		refuse(s, g, why.msg);
		return -1;
	}
	if (prep(f, g, rtype, atypes) < 0) {
		refuse(s, g,
		       g->vtwin ? "a vtwin with a struct or long double parameter or result, or "
		                  "more than seven floating-point parameters"
		                : "libffi cannot prepare this signature");
		return -1;
	}
	dyn_acct_prep(f, g, rtype, atypes);
	f->sited = dyn_site_known(rtype);
	f->slot = slot;
	f->row = (uint32_t)g->row;
	f->sym = (uint32_t)g->sym;
	if (!g->vtwin)
		f->fwd = g->variadic ? NULL : dyn_fast_pick(f);
	if (f->fwd == NULL)
		f->fwd = fwd_ffi;
	if (make_closure(f, g) < 0) {
		refuse(s, g, "no memory for a libffi closure");
		return -1;
	}
	return 0;
}
