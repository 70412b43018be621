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

typedef uint64_t (*fast_int_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, double,
                                double, double, double, double, double, double, double);
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
