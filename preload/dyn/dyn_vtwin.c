// SPDX-License-Identifier: MIT
/*
 * dyn_vtwin.c - variadic functions forwarded to their va_list twin
 * (`"variadic": {"vtwin": "tl_vsum"}`), as the generated wrapper does.
 *
 * A closure cannot see `...` through libffi, so the handler builds the
 * va_list itself.  On x86-64 a va_list is {gp_offset, fp_offset,
 * overflow_arg_area, reg_save_area}, the save area being the six integer
 * argument registers followed by the eight SSE registers, 16 bytes each:
 * the layout in which libffi's closure entry saves them, and where its
 * `args` point.  The closure's cif is the fixed parameters plus two hidden
 * ones that are never read: a double, which makes libffi save the SSE
 * registers and whose address locates the save area, and a 24-byte struct,
 * which always travels on the stack, so its address is where the
 * variadic arguments passed on the stack begin.
 *
 * That leans on libffi's internals, so it is checked once, by calling a
 * closure built this way with integers and doubles in registers and on the
 * stack; if the check fails, vtwin functions are refused.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>

#include "dyn.h"

struct dyn_va {
	unsigned gp_offset, fp_offset;
	void *overflow_arg_area, *reg_save_area;
};

static ffi_type *hidden_mem_elems[] = {&ffi_type_uint64, &ffi_type_uint64, &ffi_type_uint64, NULL};
static ffi_type hidden_mem = {24, 8, FFI_TYPE_STRUCT, hidden_mem_elems};

static int arg_class(const ffi_type *t)
{
	if (t->type == FFI_TYPE_FLOAT || t->type == FFI_TYPE_DOUBLE)
		return 2;
	return t->type == FFI_TYPE_STRUCT || t->type == FFI_TYPE_LONGDOUBLE ||
	                       t->type == FFI_TYPE_COMPLEX
	               ? 0
	               : 1;
}

/* Registers the fixed parameters take; -1 when one is not a scalar. */
static int count_regs(ffi_type **at, unsigned n, unsigned *ngp, unsigned *nsse)
{
	*ngp = *nsse = 0;
	for (unsigned i = 0; i < n; i++) {
		int c = arg_class(at[i]);

		if (c == 0)
			return -1;
		if (c == 1 && *ngp < 6)
			(*ngp)++;
		else if (c == 2 && *nsse < 8)
			(*nsse)++;
	}
	return *nsse < 8 ? 0 : -1; /* the hidden double needs a register */
}

void dyn_vtwin_va(const struct dyn_fn *f, void **args, void *va)
{
	struct dyn_va *v = va;

	v->gp_offset = 8 * f->n_int;
	v->fp_offset = 48 + 16 * f->n_sse;
	v->reg_save_area = (char *)args[f->nfixed] - 16 * f->n_sse - 48;
	v->overflow_arg_area = args[f->nfixed + 1];
}

/* The closure's cif (fixed + hidden) and the twin's (fixed + va_list). */
int dyn_vtwin_prep(struct dyn_fn *f, ffi_type *rtype, ffi_type **fixed, unsigned n)
{
	ffi_type **cl = dyn_alloc((n + 3) * sizeof(*cl)), **tw = dyn_alloc((n + 2) * sizeof(*tw));
	unsigned ngp, nsse;

	if (count_regs(fixed, n, &ngp, &nsse) < 0 || rtype->type == FFI_TYPE_STRUCT)
		return -1;
	memcpy(cl, fixed, n * sizeof(*cl));
	memcpy(tw, fixed, n * sizeof(*tw));
	cl[n] = &ffi_type_double;
	cl[n + 1] = &hidden_mem;
	tw[n] = &ffi_type_pointer;
	f->n_int = (uint8_t)ngp;
	f->n_sse = (uint8_t)nsse;
	f->nfixed = n;
	if (ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, n + 2, rtype, cl) != FFI_OK)
		return -1;
	return ffi_prep_cif(&f->twin_cif, FFI_DEFAULT_ABI, n + 1, rtype, tw) == FFI_OK ? 0 : -1;
}

/* --- the self-check --------------------------------------------------- */

static double check_vsum(int n, va_list ap)
{
	double s = 0;

	for (int i = 0; i < n; i++) {
		s += va_arg(ap, int);
		s += va_arg(ap, double) * 1000;
	}
	return s;
}

static void check_handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	const struct dyn_fn *f = user;
	struct dyn_va va[1];
	int n;
	va_list ap;

	(void)cif;
	dyn_vtwin_va(f, args, va);
	memcpy(&n, args[0], sizeof(n));
	memcpy(&ap, &va, sizeof(ap));
	*(double *)ret = check_vsum(n, ap);
}

typedef double (*check_fn)(int, ...);

static bool check_once(void)
{
	static ffi_type *fixed[] = {&ffi_type_sint32};
	struct dyn_fn f = {0};
	void *code;
	ffi_closure *cl = ffi_closure_alloc(sizeof(ffi_closure), &code);
	check_fn fn;

	if (cl == NULL || dyn_vtwin_prep(&f, &ffi_type_double, fixed, 1) < 0 ||
	    ffi_prep_closure_loc(cl, &f.cif, check_handler, &f, code) != FFI_OK)
		return false;
	memcpy(&fn, &code, sizeof(fn));
	/* 10 ints (5 in registers, then the stack), 10 doubles (8 + 2). */
	bool ok = fn(10, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5, 9, 9.5, 10,
	             10.5) == 55 + 60000.0;
	ffi_closure_free(cl);
	return ok;
}

bool dyn_vtwin_works(void)
{
	static int state; /* 0 unknown, 1 works, 2 does not */

	if (state == 0)
		state = check_once() ? 1 : 2;
	return state == 1;
}

/* The twin: looked up like a generated shim's (symbols[sym] is the twin),
 * unwrapped if the lookup met one of our own stubs. */
static void *lookup(const char *symbol, const char *version)
{
	void *p = version ? dlvsym(RTLD_DEFAULT, symbol, version) : dlsym(RTLD_DEFAULT, symbol);

	return dyn_unstub(p);
}

void *dyn_vtwin_real(struct dyn_fn *f)
{
	void *p = apiprof_load_acquire(&f->twin);

	if (p == NULL) {
		p = apiprof_resolve_with(f->api, f->sym, lookup);
		apiprof_store_release(&f->twin, p);
	}
	return p;
}
