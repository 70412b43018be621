// SPDX-License-Identifier: MIT
/*
 * dyn_site.c - the call site of a call into a closure: the return address
 * its caller pushed, which libffi does not hand to the handler.
 *
 * libffi's closure code keeps the buffer for the result (the handler's
 * `ret`) in its own frame, at a fixed distance below the return address
 * of the call into the closure; libffi does not say how far.  So the
 * distance is measured once, as dyn_vtwin.c checks the register save
 * area: a closure of seven integer parameters is called from here, and
 * its seventh argument, the first passed on the stack, lies right above
 * the return address, where libffi's pointer to it (args[6]) shows.  The
 * distance is kept only if the word found there is a return address into
 * the calling function; otherwise dynamic mode records no call sites,
 * and says so in one line.
 *
 * A result returned in memory (a struct) is written to the caller's own
 * buffer, which `ret` then points to: those functions get no site.
 */
#include <string.h>

#include "dyn.h"

/* ret + site_off: where a closure's return address is; 0 until measured. */
static ptrdiff_t site_off;

struct measure {
	ptrdiff_t off;   /* from ret to the word below args[6] */
	uintptr_t found; /* that word */
};

static void measure_handler(ffi_cif *cif, void *ret, void **args, void *user)
{
	struct measure *m = user;
	char *above = args[6];

	(void)cif;
	m->off = (above - sizeof(uintptr_t)) - (char *)ret;
	memcpy(&m->found, above - sizeof(uintptr_t), sizeof(m->found));
	*(ffi_arg *)ret = 0;
}

typedef long (*measure_fn)(long, long, long, long, long, long, long);

/* The call whose return address the closure must find: not a tail call
 * (the addition), and not inlined (its address bounds the return's). */
static __attribute__((noinline)) long measure_call(measure_fn fn)
{
	return fn(1, 2, 3, 4, 5, 6, 7) + 1;
}

void dyn_site_init(void)
{
	static ffi_type *params[7] = {&ffi_type_slong, &ffi_type_slong, &ffi_type_slong,
	                              &ffi_type_slong, &ffi_type_slong, &ffi_type_slong,
	                              &ffi_type_slong};
	struct measure m = {0, 0};
	ffi_cif cif;
	void *code;
	measure_fn fn;
	ffi_closure *cl = ffi_closure_alloc(sizeof(ffi_closure), &code);

	if (cl == NULL) {
		dyn_say("no memory for a libffi closure: dynamic mode records no call sites");
		return;
	}
	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 7, &ffi_type_slong, params) == FFI_OK &&
	    ffi_prep_closure_loc(cl, &cif, measure_handler, &m, code) == FFI_OK) {
		memcpy(&fn, &code, sizeof(fn));
		measure_call(fn);
		/* the call instruction is within measure_call's first bytes */
		if (m.off != 0 && m.found - (uintptr_t)measure_call < 64)
			site_off = m.off;
	}
	ffi_closure_free(cl);
	if (site_off == 0)
		dyn_say("libffi's closures do not keep the return address where dyn_site.c "
		        "measures it: dynamic mode records no call sites");
}

bool dyn_site_known(const ffi_type *rtype)
{
	return site_off != 0 && rtype->type != FFI_TYPE_STRUCT && rtype->type != FFI_TYPE_COMPLEX;
}

uintptr_t dyn_site(const struct dyn_fn *f, void *ret)
{
	uintptr_t site;

	if (!f->sited)
		return 0;
	memcpy(&site, (char *)ret + site_off, sizeof(site));
	return site;
}
