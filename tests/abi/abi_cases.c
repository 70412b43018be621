// SPDX-License-Identifier: MIT
/*
 * abi_cases.c - the fixed-arity functions of abilib.json as libffi sees
 * them, and the variadic ones (printf-, open- and fcntl-like), whose
 * argument lists change from call to call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "abi_diff.h"
#include "abilib.h"

#define A(...) {__VA_ARGS__}, sizeof((enum abi_kind[]){__VA_ARGS__}) / sizeof(enum abi_kind)

const struct abi_case abi_cases[] = {
        {"ab_i8", NULL, NULL, K_I8, A(K_I8, K_I8)},
        {"ab_u8", NULL, NULL, K_U8, A(K_U8, K_U8)},
        {"ab_i16", NULL, NULL, K_I16, A(K_I16, K_I16)},
        {"ab_u16", NULL, NULL, K_U16, A(K_U16, K_U16)},
        {"ab_i32", NULL, NULL, K_I32, A(K_I32, K_I32)},
        {"ab_u32", NULL, NULL, K_U32, A(K_U32, K_U32)},
        {"ab_i64", NULL, NULL, K_I64, A(K_I64, K_I64)},
        {"ab_u64", NULL, NULL, K_U64, A(K_U64, K_U64)},
        {"ab_char", NULL, NULL, K_I8, A(K_I8, K_I8, K_U8)},
        {"ab_bool", NULL, NULL, K_BOOL, A(K_BOOL, K_BOOL, K_I32)},
        {"ab_short", NULL, NULL, K_I16, A(K_I16, K_U16)},
        {"ab_long", NULL, NULL, K_I64, A(K_I64, K_U64)},
        {"ab_llong", NULL, NULL, K_I64, A(K_I64, K_U64)},
        {"ab_size", NULL, NULL, K_U64, A(K_U64, K_I64)},
        {"ab_ssize", NULL, NULL, K_I64, A(K_I64, K_I64)},
        {"ab_off", NULL, NULL, K_I64, A(K_I64, K_I32)},
        {"ab_float", NULL, NULL, K_FLOAT, A(K_FLOAT, K_FLOAT)},
        {"ab_double", NULL, NULL, K_DOUBLE, A(K_DOUBLE, K_DOUBLE)},
        {"ab_ldouble", NULL, NULL, K_LDOUBLE, A(K_LDOUBLE, K_LDOUBLE)},
        {"ab_complex", NULL, NULL, K_CDOUBLE, A(K_CDOUBLE, K_DOUBLE)},
        {"ab_ptr", NULL, NULL, K_PTR, A(K_PTR, K_U64)},
        {"ab_mix", NULL, NULL, K_DOUBLE,
         A(K_I8, K_U16, K_I32, K_U64, K_FLOAT, K_DOUBLE, K_I8, K_BOOL)},
        {"ab_div", NULL, NULL, K_I32, A(K_I32, K_I32, K_OUTINT)},
        {"ab_fill", NULL, NULL, K_VOID, A(K_OUTBUF, K_LEN64, K_I32)},
        {"ab_fail", NULL, NULL, K_I32, A(K_ERRNUM)},
        {"ab_keep", NULL, NULL, K_I32, A(K_I32)},
        {"ab_root", NULL, NULL, K_DOUBLE, A(K_DOUBLE)},
        {"ab_apply", NULL, NULL, K_I32, A(K_CB, K_PTR, K_I32)},
        {"ab_small_op", NULL, NULL, K_S_SMALL, A(K_S_SMALL, K_S_SMALL)},
        {"ab_two_op", NULL, NULL, K_S_TWO, A(K_S_TWO, K_I32)},
        {"ab_ff_op", NULL, NULL, K_S_FF, A(K_S_FF, K_FLOAT)},
        {"ab_arr_op", NULL, NULL, K_S_ARR, A(K_S_ARR)},
        {"ab_union_op", NULL, NULL, K_U_U, A(K_U_U, K_I32)},
        {"ab_big_op", NULL, NULL, K_S_BIG, A(K_S_BIG, K_S_BIG)},
        {"ab_nested_op", NULL, NULL, K_S_NESTED, A(K_S_NESTED)},
        {"ab_ldt_op", NULL, NULL, K_S_LDT, A(K_S_LDT, K_LDOUBLE)},
        {"ab_packed_op", NULL, NULL, K_S_PACKED, A(K_S_PACKED, K_I32)},
        {"ab_zero", NULL, NULL, K_I32, {K_VOID}, 0},
        {"ab_void", NULL, NULL, K_VOID, A(K_OUTINT_NN, K_I32)},
        {"ab_many", NULL, NULL, K_DOUBLE,
         A(K_I32, K_DOUBLE, K_I8, K_FLOAT, K_I64, K_DOUBLE, K_U16, K_FLOAT, K_I32, K_DOUBLE, K_U64,
           K_FLOAT, K_I8, K_DOUBLE, K_I32, K_FLOAT, K_I64, K_DOUBLE, K_I16, K_LDOUBLE)},
        {"ab_many_int", NULL, NULL, K_U64,
         A(K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64,
           K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64, K_U64)},
        {"ab_many_dbl", NULL, NULL, K_DOUBLE,
         A(K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE,
           K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE, K_DOUBLE,
           K_DOUBLE, K_DOUBLE)},
        {"ab_ver", NULL, "AB_2", K_I32, A(K_I32)},
        {"ab_ver_old", "ab_ver", "AB_1", K_I32, A(K_I32)},
        {"cxx_scale", "_ZN2ab5scaleEid", NULL, K_DOUBLE, A(K_I32, K_DOUBLE)},
};
const size_t abi_ncases = sizeof abi_cases / sizeof abi_cases[0];

/* ------------------------------------------------------------------ */
/* Variadic functions: a different argument list each call. */

struct abi_var {
	ffi_type *rtype;
	ffi_type *types[8];
	enum abi_kind kinds[8];
	unsigned nfixed, ntotal;
};

static int var_call(const char *what, const struct abi_fn *fn, const struct abi_var *v, void **ra,
                    void **sa, int err0)
{
	ffi_cif cif;

	if (ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, v->nfixed, v->ntotal, v->rtype,
	                     (ffi_type **)v->types) != FFI_OK)
		return abi_fail("%s: ffi_prep_cif_var failed", what);
	return abi_call_both(what, &cif, fn, v->kinds[7], ra, sa, err0);
}

/* ab_fmt(out, n, fmt, ...) with conversions drawn at random; the shim
 * forwards to ab_vfmt, so both output buffers must match. */
static int run_fmt(const struct abi_fn *fn, struct abi_rng *r)
{
	static const char *const fmts[] = {"%d|%g|%s|%ld", "%a %x", "%.17g %p", "%s%s", "", "%Lg"};
	static char rbuf[65], sbuf[65];
	uint64_t pick = abi_rand(r) % 6, n = abi_rand(r) % 65;
	unsigned char vals[4][ABI_SLOT];
	char *rp = rbuf, *sp = sbuf;
	const char *f = fmts[pick], *strs[] = {"", "abc", "%d", "\xff\x01"};
	struct abi_var v = {&ffi_type_sint32,
	                    {&ffi_type_pointer, &ffi_type_uint64, &ffi_type_pointer},
	                    {K_OUTBUF, K_LEN64, K_PTR, [7] = K_I32},
	                    3,
	                    3};
	void *ra[7] = {&rp, &n, &f}, *sa[7] = {&sp, &n, &f};
	const char *s0 = strs[abi_rand(r) % 4], *s1 = strs[abi_rand(r) % 4];

	memset(rbuf, 0x5a, sizeof rbuf);
	memset(sbuf, 0x5a, sizeof sbuf);
	abi_gen(K_I32, r, vals[0]);
	abi_gen(K_DOUBLE, r, vals[1]);
	abi_gen(K_I64, r, vals[2]);
	abi_gen(K_LDOUBLE, r, vals[3]);
	switch (pick) {
	case 0:
		v.types[3] = &ffi_type_sint32, v.types[4] = &ffi_type_double;
		v.types[5] = &ffi_type_pointer, v.types[6] = &ffi_type_sint64;
		ra[3] = sa[3] = vals[0], ra[4] = sa[4] = vals[1];
		ra[5] = sa[5] = &s0, ra[6] = sa[6] = vals[2];
		v.ntotal = 7;
		break;
	case 1:
		v.types[3] = &ffi_type_double, v.types[4] = &ffi_type_uint32;
		ra[3] = sa[3] = vals[1], ra[4] = sa[4] = vals[0];
		v.ntotal = 5;
		break;
	case 2:
		v.types[3] = &ffi_type_double, v.types[4] = &ffi_type_pointer;
		ra[3] = sa[3] = vals[1], ra[4] = sa[4] = vals[2];
		v.ntotal = 5;
		break;
	case 3:
		v.types[3] = v.types[4] = &ffi_type_pointer;
		ra[3] = sa[3] = &s0, ra[4] = sa[4] = &s1;
		v.ntotal = 5;
		break;
	case 5:
		v.types[3] = &ffi_type_longdouble;
		ra[3] = sa[3] = vals[3];
		v.ntotal = 4;
		break;
	default:
		break;
	}
	if (var_call("ab_fmt", fn, &v, ra, sa, (int)abi_rand(r)) != 0)
		return -1;
	if (memcmp(rbuf, sbuf, sizeof rbuf) != 0)
		return abi_fail("ab_fmt(\"%s\"): output \"%.64s\" vs \"%.64s\"", f, rbuf, sbuf);
	return 0;
}

/* ab_open(path, flags[, mode]): the mode is passed only when the flags
 * need one, as callers of open do. */
static int run_open(const struct abi_fn *fn, struct abi_rng *r)
{
	static const int flagset[] = {O_RDONLY, O_CREAT | O_WRONLY, O_TMPFILE | O_RDWR, O_DIRECTORY,
	                              O_CREAT | O_EXCL | O_CLOEXEC};
	static const char *const paths[] = {"/tmp/x", "", "rel", NULL};
	const char *path = paths[abi_rand(r) % 4];
	int flags = flagset[abi_rand(r) % 5];
	uint32_t mode = (uint32_t)abi_rand(r) & 07777;
	struct abi_var v = {&ffi_type_sint32,
	                    {&ffi_type_pointer, &ffi_type_sint32, &ffi_type_uint32},
	                    {K_PTR, K_I32, K_U32, [7] = K_I32},
	                    2,
	                    2};
	void *a[3] = {&path, &flags, &mode};

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		v.ntotal = 3;
	return var_call("ab_open", fn, &v, a, a, (int)abi_rand(r));
}

/* Pointers for ab_ctl's SETPTR live above 4 GiB, at a fixed address with
 * bits set in the upper half, so a shim that truncated the argument to
 * 32 bits would write elsewhere (or fault) instead. */
static uint64_t *high_slots(void)
{
	static uint64_t *slots;
	uintptr_t at = 0x7e5a5a5a0000u;

	for (int i = 0; slots == NULL && i < 16; i++, at += 0x10000000u) {
		void *p = mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (p == (void *)at)
			slots = p;
		else if (p != MAP_FAILED)
			munmap(p, 4096); /* a kernel without NOREPLACE put it elsewhere */
	}
	return slots;
}

static int run_ctl(const struct abi_fn *fn, struct abi_rng *r, uint64_t *slots)
{
	int fd = (int)abi_rand(r), cmd = (int)(abi_rand(r) % 4), iv = (int)abi_rand(r);
	uint64_t *rp = &slots[0], *sp = &slots[1];
	struct abi_var v = {&ffi_type_sint64,
	                    {&ffi_type_sint32, &ffi_type_sint32, &ffi_type_sint32},
	                    {K_I32, K_I32, K_I32, [7] = K_I64},
	                    2,
	                    2};
	void *ra[3] = {&fd, &cmd, &iv}, *sa[3] = {&fd, &cmd, &iv};

	if (cmd == AB_CTL_SETINT) {
		v.ntotal = 3;
	} else if (cmd == AB_CTL_SETPTR) {
		v.types[2] = &ffi_type_pointer;
		ra[2] = &rp, sa[2] = &sp, v.ntotal = 3;
		slots[0] = slots[1] = abi_rand(r);
	}
	if (var_call("ab_ctl", fn, &v, ra, sa, (int)abi_rand(r)) != 0)
		return -1;
	if (slots[0] != slots[1])
		return abi_fail("ab_ctl(SETPTR %p): wrote %#lx vs %#lx", (void *)sp,
		                (unsigned long)slots[0], (unsigned long)slots[1]);
	return 0;
}

int abi_run_variadic(void *lib, struct abi_rng *r, unsigned calls)
{
	struct abi_fn fmt, open, ctl;
	uint64_t *slots = high_slots();

	if (slots == NULL)
		return abi_fail("cannot map a page above 4 GiB: %s", strerror(errno));
	if (abi_lookup(lib, "ab_fmt", NULL, NULL, &fmt) ||
	    abi_lookup(lib, "ab_open", NULL, NULL, &open) ||
	    abi_lookup(lib, "ab_ctl", NULL, NULL, &ctl))
		return -1;
	for (unsigned i = 0; i < calls; i++) {
		if (run_fmt(&fmt, r) || run_open(&open, r) || run_ctl(&ctl, r, slots))
			return -1;
	}
	abi_expect("ab_fmt", calls);
	abi_expect("ab_open", calls);
	abi_expect("ab_ctl", calls);
	return 0;
}
