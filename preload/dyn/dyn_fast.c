// SPDX-License-Identifier: MIT
/*
 * dyn_fast.c - forwarding without ffi_call when every argument travels in
 * a register.
 *
 * ffi_call re-classifies every argument on every call.  When a signature
 * has at most six integer-class arguments (integers, pointers) and at most
 * eight floats or doubles, and returns one of those or nothing, the x86-64
 * psABI puts each argument in a register fixed by its position among its
 * class.  The real function is then called as
 *	uint64_t fn(6 x uint64_t, 8 x double)   (or double fn(...))
 * with each argument's register copied whole from the closure's save area
 * (libffi's `args` point into it, 8 bytes for an integer, 16 for an SSE
 * register).  The callee therefore sees exactly the registers the program
 * passed, upper bits included, and the whole return register goes back.
 * Variadic functions stay on ffi_call, which sets %al as they need.
 */
#include <string.h>

#include "dyn.h"
#include "dyn_gate.h"

typedef uint64_t (*fast_int_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double,
                                double, double, double, double, double, double, double);
typedef uint64_t (*gpr_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
typedef double (*fast_sse_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double,
                              double, double, double, double, double, double, double);

enum { K_OTHER, K_INT, K_SSE, K_VOID };

static int kind(const ffi_type *t)
{
	switch (t->type) {
	case FFI_TYPE_UINT8:
	case FFI_TYPE_SINT8:
	case FFI_TYPE_UINT16:
	case FFI_TYPE_SINT16:
	case FFI_TYPE_UINT32:
	case FFI_TYPE_SINT32:
	case FFI_TYPE_INT:
	case FFI_TYPE_UINT64:
	case FFI_TYPE_SINT64:
	case FFI_TYPE_POINTER:
		return K_INT;
	case FFI_TYPE_FLOAT:
	case FFI_TYPE_DOUBLE:
		return K_SSE;
	case FFI_TYPE_VOID:
		return K_VOID;
	default:
		return K_OTHER;
	}
}

static void load(const struct dyn_fn *f, void **args, uint64_t r[6], double x[8])
{
	for (unsigned i = 0; i < f->n_int; i++)
		memcpy(&r[i], args[f->fast_int[i]], sizeof(r[i]));
	for (unsigned i = 0; i < f->n_sse; i++)
		memcpy(&x[i], args[f->fast_sse[i]], sizeof(x[i]));
}

static void *real_ptr(const struct dyn_fn *f)
{
	return (void *)dyn_real(f->slot);
}

static void fwd_int(const struct dyn_fn *f, void *ret, void **args)
{
	uint64_t r[6] = {0}, v;
	double x[8] = {0};
	fast_int_fn fn;
	void *p = real_ptr(f);

	memcpy(&fn, &p, sizeof(fn));
	load(f, args, r, x);
	v = fn(r[0], r[1], r[2], r[3], r[4], r[5], x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
	memcpy(ret, &v, sizeof(v));
}

static void fwd_sse(const struct dyn_fn *f, void *ret, void **args)
{
	uint64_t r[6] = {0};
	double x[8] = {0}, v;
	fast_sse_fn fn;
	void *p = real_ptr(f);

	memcpy(&fn, &p, sizeof(fn));
	load(f, args, r, x);
	v = fn(r[0], r[1], r[2], r[3], r[4], r[5], x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
	memcpy(ret, &v, f->cif.rtype->size);
}

dyn_fwd dyn_fast_pick(struct dyn_fn *f)
{
	int rk = kind(f->cif.rtype);

	f->n_int = f->n_sse = 0;
	if (rk == K_OTHER)
		return NULL;
	for (unsigned i = 0; i < f->cif.nargs; i++) {
		int k = kind(f->cif.arg_types[i]);

		if (k == K_INT && f->n_int < 6)
			f->fast_int[f->n_int++] = (uint8_t)i;
		else if (k == K_SSE && f->n_sse < 8)
			f->fast_sse[f->n_sse++] = (uint8_t)i;
		else
			return NULL;
	}
	return rk == K_SSE ? fwd_sse : fwd_int;
}

/* --- dyn_quick: the same calls without libffi's closure ------------------ */

/* What dyn_quick.S saves and reads back: the argument registers in order,
 * the result registers. */
struct dyn_quick_frame {
	uint64_t gpr[6];                /* %rdi %rsi %rdx %rcx %r8 %r9 */
	uint64_t ret[2];                /* %rax %rdx */
	_Alignas(16) double xmm[8][2];  /* %xmm0-7 */
	_Alignas(16) double xret[2][2]; /* %xmm0 %xmm1 */
};
_Static_assert(sizeof(struct dyn_quick_frame) == DYN_QUICK_FRAME, "dyn_gate.h");
_Static_assert(offsetof(struct dyn_quick_frame, ret) == 48, "dyn_quick.S");
_Static_assert(offsetof(struct dyn_quick_frame, xmm) == 64, "dyn_quick.S");
_Static_assert(offsetof(struct dyn_quick_frame, xret) == 192, "dyn_quick.S");

/* Which function a slot's quick closure stands for, by the slot's index. */
static const struct dyn_fn **quick_map;
static const struct dyn_slot *quick_base;
static uint32_t quick_n;

void dyn_quick_init(const struct dyn_link *l)
{
	quick_map = dyn_alloc((l->nslots + 1) * sizeof(*quick_map));
	quick_base = l->slots;
	quick_n = l->nslots;
}

static bool gpr_only(const struct dyn_fn *f)
{
	return f->fwd == fwd_int && f->n_sse == 0;
}

void (*dyn_quick_take(const struct dyn_fn *f))(void)
{
	size_t i = (size_t)(f->slot - quick_base);

	if (quick_map == NULL || i >= quick_n || (f->fwd != fwd_int && f->fwd != fwd_sse))
		return NULL;
	__atomic_store_n(&quick_map[i], f, __ATOMIC_RELEASE);
	return gpr_only(f) ? dyn_quick_gpr : dyn_quick;
}

static void quick_fwd(const struct dyn_fn *f, struct dyn_quick_frame *fr)
{
	const uint64_t *r = fr->gpr;
	void *p = real_ptr(f);

	if (gpr_only(f)) {
		gpr_fn fn;

		memcpy(&fn, &p, sizeof(fn));
		fr->ret[0] = fn(r[0], r[1], r[2], r[3], r[4], r[5]);
	} else if (f->fwd == fwd_sse) {
		fast_sse_fn fn;

		memcpy(&fn, &p, sizeof(fn));
		fr->xret[0][0] = fn(r[0], r[1], r[2], r[3], r[4], r[5], fr->xmm[0][0],
		                    fr->xmm[1][0], fr->xmm[2][0], fr->xmm[3][0], fr->xmm[4][0],
		                    fr->xmm[5][0], fr->xmm[6][0], fr->xmm[7][0]);
	} else {
		fast_int_fn fn;

		memcpy(&fn, &p, sizeof(fn));
		fr->ret[0] = fn(r[0], r[1], r[2], r[3], r[4], r[5], fr->xmm[0][0], fr->xmm[1][0],
		                fr->xmm[2][0], fr->xmm[3][0], fr->xmm[4][0], fr->xmm[5][0],
		                fr->xmm[6][0], fr->xmm[7][0]);
	}
}

/* The declared bytes and failures, with libffi's view of the call: a
 * pointer to each argument and to the result. */
static void quick_acct(const struct dyn_fn *f, struct dyn_quick_frame *fr)
{
	void *args[14];

	for (unsigned i = 0; i < f->n_int; i++)
		args[f->fast_int[i]] = &fr->gpr[i];
	for (unsigned i = 0; i < f->n_sse; i++)
		args[f->fast_sse[i]] = fr->xmm[i];
	dyn_acct_record(f, f->fwd == fwd_sse ? (void *)fr->xret : (void *)fr->ret, args);
}

/* dyn_fn.c's handler, for the frame dyn_quick.S saved. */
DYN_HIDDEN void dyn_quick_call(const struct dyn_slot *slot, struct dyn_quick_frame *fr,
                               uintptr_t site)
{
	const struct dyn_fn *f = __atomic_load_n(&quick_map[slot - quick_base], __ATOMIC_ACQUIRE);
	struct apiprof_call c;
	unsigned route = apiprof_enter_any(f->api, &c, f->row, site);

	if (route == APIPROF_CALL_TIMED) {
		apiprof_start(f->api, &c, f->row);
		quick_fwd(f, fr);
		apiprof_leave(f->api, &c, f->row);
	} else {
		quick_fwd(f, fr);
		apiprof_leave_other(f->api, &c, route, f->row);
	}
	if (apiprof_unlikely(dyn_acct_any(f)) && route != APIPROF_CALL_FORWARD)
		quick_acct(f, fr);
}
