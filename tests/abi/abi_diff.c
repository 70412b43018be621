// SPDX-License-Identifier: MIT
/*
 * abi_diff.c - the differential test's main loop (see abi_diff.h).
 *
 *   abi_diff LIB EXPECTED [CALLS [SEED]]   run; write the expected counts
 *   abi_diff LIB --exit CODE               call ab_exit(CODE) (noreturn)
 *
 * ABI_DYNAMIC=1 checks interposition the dynamic mode's way (abi_lookup),
 * ABI_SKIP=fn,... leaves out the functions a mode refuses.
 *
 * Run with the shim preloaded and APIPROF_OUTPUT set; abi_diff.sh then
 * compares the shim's counts with EXPECTED.  The real functions come from
 * dlopen(LIB): a lookup on the library's own handle never sees the shim
 * (which is preloaded ahead of it, not loaded as its dependency).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../preload/dyn/dyn_link.h"
#include "abi_diff.h"

#define MAX_ROWS 64

static struct {
	const char *row;
	uint64_t n;
} expected[MAX_ROWS];
static size_t nexpected;

bool abi_in_shim;
int32_t (*abi_shim_i32)(int32_t, int32_t);

int abi_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("abi_diff: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void abi_expect(const char *row, uint64_t n)
{
	size_t i;

	for (i = 0; i < nexpected && strcmp(expected[i].row, row) != 0; i++)
		;
	if (i == nexpected && nexpected < MAX_ROWS)
		expected[nexpected++].row = row;
	if (i < MAX_ROWS)
		expected[i].n += n;
}

/* The callbacks ab_apply calls back.  The nested one calls into the api
 * again: inside a call through the shim that call is nested, so not
 * counted; inside a call of the real function it is a call of its own. */
int abi_cb_plain(int x, void *ctx)
{
	return (int)((unsigned)x ^ (unsigned)(uintptr_t)ctx);
}

int abi_cb_nested(int x, void *ctx)
{
	if (!abi_in_shim)
		abi_expect("ab_i32", 1);
	return abi_shim_i32(x, (int32_t)(uintptr_t)ctx);
}

static void *sym(void *h, const char *s, const char *version)
{
	return version ? dlvsym(h, s, version) : dlsym(h, s);
}

/* Dynamic mode binds every lookup, dlsym on the library's own handle
 * included, to a stub of its audit module (preload/dyn/dyn_link.h); the
 * real function is the definition that stub's slot recorded. */
static void *unstub(void *p)
{
	void *q = dlsym(RTLD_DEFAULT, DYN_LINK_SYMBOL);
	dyn_link_fn fn;
	struct dyn_link *l;

	if (q == NULL || getenv("ABI_DYNAMIC") == NULL)
		return p;
	memcpy(&fn, &q, sizeof(fn));
	l = fn();
	for (uint32_t i = 0; l != NULL && i < l->nslots; i++)
		if (l->slots[i].stub == (uintptr_t)p)
			return (void *)l->slots[i].real;
	return p;
}

/* The shim's wrapper must be what the program sees, not the library's. */
int abi_lookup(void *lib, const char *name, const char *symbol, const char *version,
               struct abi_fn *fn)
{
	const char *s = symbol ? symbol : name;
	void *w = sym(RTLD_DEFAULT, s, version), *r = unstub(sym(lib, s, version));
	Dl_info dr, dw;

	if (r == NULL || w == NULL)
		return abi_fail("%s: not found (%s)", name, dlerror());
	/* Dynamic mode hands out stubs in anonymous memory, which no object
	 * owns: there "interposed" just means "not the library's address". */
	if (getenv("ABI_DYNAMIC") != NULL
	            ? w == r
	            : !dladdr(r, &dr) || !dladdr(w, &dw) || strcmp(dr.dli_fname, dw.dli_fname) == 0)
		return abi_fail("%s: not interposed by a shim", name);
	memcpy(&fn->real, &r, sizeof r);
	memcpy(&fn->shim, &w, sizeof w);
	return 0;
}

int abi_call_both(const char *what, ffi_cif *cif, const struct abi_fn *fn, enum abi_kind ret,
                  void **real_args, void **shim_args, int err0)
{
	_Alignas(16) unsigned char rv[2][ABI_SLOT];
	int err[2];

	memset(rv, 0xa5, sizeof rv);
	errno = err0;
	ffi_call(cif, fn->real, rv[0], real_args);
	err[0] = errno;
	errno = err0;
	abi_in_shim = true;
	ffi_call(cif, fn->shim, rv[1], shim_args);
	abi_in_shim = false;
	err[1] = errno;
	if (ret != K_VOID && !abi_same(ret, rv[0], rv[1]))
		return abi_fail("%s: results differ", what);
	if (err[0] != err[1])
		return abi_fail("%s: errno %d vs %d (was %d)", what, err[0], err[1], err0);
	return 0;
}

/* Out-buffers: each side gets its own copy of the same random bytes. */
struct sides {
	_Alignas(16) unsigned char slot[ABI_MAX_ARGS][ABI_SLOT];
	_Alignas(16) unsigned char buf[2][ABI_MAX_ARGS][ABI_SLOT];
	void *ptr[2][ABI_MAX_ARGS];
	void *args[2][ABI_MAX_ARGS];
};

static void make_args(const struct abi_case *c, struct abi_rng *r, struct sides *s)
{
	for (unsigned i = 0; i < c->nargs; i++) {
		enum abi_kind k = c->args[i];

		abi_gen(k == K_CB || abi_is_outbuf(k) ? K_PTR : k, r, s->slot[i]);
		s->args[0][i] = s->args[1][i] = s->slot[i];
		if (k == K_CB) {
			int (*cb)(int, void *) = abi_rand(r) & 1 ? abi_cb_nested : abi_cb_plain;
			memcpy(s->slot[i], &cb, sizeof cb);
		} else if (abi_is_outbuf(k)) {
			bool null = k == K_OUTINT && abi_rand(r) % 8 == 0;
			for (int side = 0; side < 2; side++) {
				memcpy(s->buf[side][i], s->slot[i], ABI_SLOT);
				s->ptr[side][i] = null ? NULL : s->buf[side][i];
				s->args[side][i] = &s->ptr[side][i];
			}
		}
	}
}

static int run_case(void *lib, const struct abi_case *c, struct abi_rng *r, unsigned calls)
{
	ffi_type *types[ABI_MAX_ARGS];
	struct abi_fn fn;
	struct sides s;
	ffi_cif cif;

	if (abi_lookup(lib, c->name, c->symbol, c->version, &fn) < 0)
		return -1;
	for (unsigned i = 0; i < c->nargs; i++)
		types[i] = abi_ffi_type(c->args[i]);
	if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, c->nargs, abi_ffi_type(c->ret), types) != FFI_OK)
		return abi_fail("%s: ffi_prep_cif failed", c->name);
	for (unsigned n = 0; n < calls; n++) {
		make_args(c, r, &s);
		if (abi_call_both(c->name, &cif, &fn, c->ret, s.args[0], s.args[1],
		                  (int)abi_rand(r)) < 0)
			return -1;
		for (unsigned i = 0; i < c->nargs; i++)
			if (abi_is_outbuf(c->args[i]) &&
			    memcmp(s.buf[0][i], s.buf[1][i], ABI_SLOT) != 0)
				return abi_fail("%s: memory written through argument %u differs",
				                c->name, i);
	}
	abi_expect(c->name, calls);
	return 0;
}

static int write_expected(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return abi_fail("%s: %s", path, strerror(errno));
	for (size_t i = 0; i < nexpected; i++)
		if (expected[i].n)
			fprintf(f, "abilib.%s %llu\n", expected[i].row,
			        (unsigned long long)expected[i].n);
	return fclose(f) == 0 ? 0 : abi_fail("%s: %s", path, strerror(errno));
}

/* ABI_SKIP=fn,fn: functions a mode refuses to profile (dynamic mode and
 * a packed struct): not called, so not expected. */
static bool skipped(const char *name)
{
	const char *list = getenv("ABI_SKIP");
	size_t n = strlen(name);

	for (const char *p = list; p != NULL && *p;
	     p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static int run_all(void *lib, const char *out, unsigned calls, uint64_t seed)
{
	struct abi_rng r = {seed};
	void *p = dlsym(RTLD_DEFAULT, "ab_i32");

	memcpy(&abi_shim_i32, &p, sizeof p);
	for (size_t i = 0; i < abi_ncases; i++)
		if (!skipped(abi_cases[i].name) && run_case(lib, &abi_cases[i], &r, calls) < 0)
			return 1;
	if (abi_run_variadic(lib, &r, calls) < 0 || abi_run_flows(lib, &r, calls) < 0)
		return 1;
	printf("abi_diff: %zu functions x %u calls (seed %llu) agree\n", abi_ncases, calls,
	       (unsigned long long)seed);
	return write_expected(out) < 0;
}

int main(int argc, char **argv)
{
	void *lib;

	if (argc < 3)
		return fprintf(stderr, "usage: abi_diff LIB EXPECTED [CALLS [SEED]]\n"), 2;
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		return fprintf(stderr, "abi_diff: %s\n", dlerror()), 1;
	if (strcmp(argv[2], "--exit") == 0 && argc == 4)
		return abi_run_exit(atoi(argv[3]));
	return run_all(lib, argv[2], argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 2000,
	               argc > 4 ? strtoull(argv[4], NULL, 0) : 1);
}
