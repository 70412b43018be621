// SPDX-License-Identifier: MIT
/*
 * abi_flow.c - the scenarios that are not one call in, one result out:
 * ab_vfmt's va_list, longjmp out of a wrapped call (through a callback,
 * and by a noreturn function), objects bound to each version of ab_ver,
 * and the exit-like ab_exit.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>

#include "abi_diff.h"
#include "abilib.h"

/* A reference to the old version, as an object linked against the
 * library before AB_2 existed would hold. */
int ab_ver_at1(int x);
__asm__(".symver ab_ver_at1, ab_ver@AB_1");

/* ab_vfmt through libffi: a va_list exists only inside a variadic
 * function, so this one makes it and passes a copy to each side. */
static int vfmt_both(const struct abi_fn *fn, size_t n, const char *f, ...)
{
	char rbuf[65], sbuf[65], *rp = rbuf, *sp = sbuf;
	ffi_type *t[] = {&ffi_type_pointer, &ffi_type_uint64, &ffi_type_pointer, &ffi_type_pointer};
	va_list ap, rap, sap;
	void *ra[4] = {&rp, &n, &f, NULL}, *sa[4] = {&sp, &n, &f, NULL};
	/* va_list is an array type: it decays to the pointer ffi passes. */
	void *rl, *sl;
	ffi_cif cif;
	int rc;

	memset(rbuf, 0x5a, sizeof rbuf);
	memset(sbuf, 0x5a, sizeof sbuf);
	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 4, &ffi_type_sint32, t) != FFI_OK)
		return abi_fail("ab_vfmt: ffi_prep_cif failed");
	va_start(ap, f);
	va_copy(rap, ap);
	va_copy(sap, ap);
	rl = rap, sl = sap;
	ra[3] = &rl, sa[3] = &sl;
	rc = abi_call_both("ab_vfmt", &cif, fn, K_I32, ra, sa, 0);
	va_end(sap);
	va_end(rap);
	va_end(ap);
	if (rc == 0 && memcmp(rbuf, sbuf, sizeof rbuf) != 0)
		return abi_fail("ab_vfmt(\"%s\"): output differs", f);
	return rc;
}

static int run_vfmt(void *lib, struct abi_rng *r, unsigned calls)
{
	struct abi_fn fn;
	double d;

	if (abi_lookup(lib, "ab_vfmt", NULL, NULL, &fn) < 0)
		return -1;
	for (unsigned i = 0; i < calls; i++) {
		uint64_t v = abi_rand(r);

		memcpy(&d, &v, sizeof d);
		if (vfmt_both(&fn, v % 65, "%d:%s:%a:%lu", (int)v, "s", d, (unsigned long)v) < 0)
			return -1;
	}
	abi_expect("ab_vfmt", calls);
	return 0;
}

static jmp_buf env;

/* Leaves the wrapped ab_apply by longjmp, after a nested call that
 * must not count: the shim never sees ab_apply return. */
static int cb_jump(int x, void *ctx)
{
	(void)abi_shim_i32(x, 1);
	longjmp(env, (int)(uintptr_t)ctx);
}

/* After each escape, calls made by the program are top-level again: the
 * runtime must notice the stale nesting state (apiprof_nest_stale) and
 * count every one of them. */
static int run_longjmp_cb(unsigned rounds)
{
	int (*apply)(int (*)(int, void *), void *, int);
	void *p = dlsym(RTLD_DEFAULT, "ab_apply");
	volatile unsigned escaped = 0;

	memcpy(&apply, &p, sizeof p);
	/* volatile: setjmp returns twice, and i lives across that. */
	for (volatile unsigned i = 0; i < rounds; i++) {
		if (setjmp(env) == 0)
			apply(cb_jump, (void *)(uintptr_t)(i + 1), (int)i);
		else
			escaped++;
		if (abi_shim_i32((int32_t)i, 2) != ab_i32((int32_t)i, 2))
			return abi_fail("ab_i32 after longjmp: wrong result");
	}
	if (escaped != rounds)
		return abi_fail("longjmp: %u of %u calls escaped", escaped, rounds);
	/* Each round: abi_shim_i32 and the direct ab_i32, both through the
	 * shim; ab_apply never returned, so it was never counted. */
	abi_expect("ab_i32", 2ull * rounds);
	return 0;
}

/* A noreturn function that longjmps: counted when called. */
static int run_noreturn_longjmp(unsigned rounds)
{
	volatile unsigned back = 0;

	for (volatile unsigned i = 0; i < rounds; i++) {
		if (setjmp(env) == 0)
			ab_longjmp(env, (int)i + 1);
		back++;
	}
	if (back != rounds)
		return abi_fail("ab_longjmp: came back %u of %u times", back, rounds);
	abi_expect("ab_longjmp", rounds);
	return 0;
}

/* Bound at link time: ab_ver to AB_2 (the default), ab_ver_at1 to AB_1;
 * through the shim each must still reach its own version. */
static int run_versions(unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		if (ab_ver((int)i) != (int)i + 2)
			return abi_fail("ab_ver@@AB_2(%u) = %d", i, ab_ver((int)i));
		if (ab_ver_at1((int)i) != (int)i + 1)
			return abi_fail("ab_ver@AB_1(%u) = %d", i, ab_ver_at1((int)i));
	}
	/* A failing round returns early, so each passing one called each
	 * version once. */
	abi_expect("ab_ver", rounds);
	abi_expect("ab_ver_old", rounds);
	return 0;
}

int abi_run_flows(void *lib, struct abi_rng *r, unsigned calls)
{
	if (run_vfmt(lib, r, calls) < 0 || run_longjmp_cb(100) < 0 ||
	    run_noreturn_longjmp(50) < 0 || run_versions(10) < 0)
		return -1;
	return 0;
}

int abi_run_exit(int code)
{
	ab_exit(code);
}
