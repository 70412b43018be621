/* SPDX-License-Identifier: MIT */
/*
 * abi_diff.h - the libffi differential test of a generated shim.
 *
 * Every function of abilib.json is called twice with the same seeded
 * random arguments, both times through ffi_call: once as the real function
 * (dlsym on a dlopen handle of the library) and once as the preloaded
 * program sees it (dlsym(RTLD_DEFAULT), the shim's wrapper).  Results,
 * errno, out-parameters and memory written must agree bit for bit, and the
 * shim must have counted exactly the calls made through it.
 *
 *   abi_kinds.c   argument and result kinds: ffi types, generators, comparison
 *   abi_cases.c   the functions of the spec, fixed-arity and variadic
 *   abi_flow.c    noreturn, longjmp, versions, C++: the non-random scenarios
 *   abi_diff.c    main: the call loop and the expected counts
 */
#ifndef ABI_DIFF_H
#define ABI_DIFF_H

#include <ffi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ABI_MAX_ARGS 20
#define ABI_SLOT     64 /* bytes of storage per argument or result */

enum abi_kind {
	K_VOID,
	K_I8,
	K_U8,
	K_I16,
	K_U16,
	K_I32,
	K_U32,
	K_I64,
	K_U64,
	K_BOOL,
	K_FLOAT,
	K_DOUBLE,
	K_LDOUBLE,
	K_CDOUBLE,
	K_PTR,       /* any bits, never dereferenced */
	K_OUTINT,    /* int * to a buffer of its own, or NULL */
	K_OUTINT_NN, /* int * to a buffer of its own */
	K_OUTBUF,    /* char * to a 64-byte buffer of its own */
	K_LEN64,     /* size_t 0..64 */
	K_ERRNUM,    /* int 0..199 */
	K_CB,        /* int (*)(int, void *) */
	K_S_SMALL,
	K_S_TWO,
	K_S_FF,
	K_S_ARR,
	K_U_U,
	K_S_BIG,
	K_S_NESTED,
	K_S_LDT,
	K_S_PACKED,
	K_COUNT
};

struct abi_rng {
	uint64_t s;
};

uint64_t abi_rand(struct abi_rng *r);

ffi_type *abi_ffi_type(enum abi_kind k);
size_t abi_size(enum abi_kind k);
/* Fills slot with a value of kind k: an edge value about one time in
 * four (0, -1, min, max, NaN, ±inf, denormals, NULL), random bits else. */
void abi_gen(enum abi_kind k, struct abi_rng *r, void *slot);
/* Whether a and b hold the same value of kind k, bit for bit, padding
 * excluded (long double: its 10 value bytes). */
bool abi_same(enum abi_kind k, const void *a, const void *b);
/* Kinds that point at a buffer each side gets a copy of. */
bool abi_is_outbuf(enum abi_kind k);

struct abi_case {
	const char *name;    /* row in the spec */
	const char *symbol;  /* NULL: name */
	const char *version; /* dlvsym on both sides */
	enum abi_kind ret;
	enum abi_kind args[ABI_MAX_ARGS];
	unsigned nargs;
};

extern const struct abi_case abi_cases[];
extern const size_t abi_ncases;

/* The two sides of a function. */
struct abi_fn {
	void (*real)(void);
	void (*shim)(void);
};
int abi_lookup(void *lib, const char *name, const char *symbol, const char *version,
               struct abi_fn *fn);

/* Expected counts, by spec row; a call made through the shim while no
 * other call of the api is in progress adds one. */
void abi_expect(const char *row, uint64_t n);
extern bool abi_in_shim;                          /* a shim call is in progress */
extern int32_t (*abi_shim_i32)(int32_t, int32_t); /* for callbacks */
int abi_cb_plain(int x, void *ctx);
int abi_cb_nested(int x, void *ctx);

/* One differential call: the result (compared as kind ret) and errno
 * (set to err0 before each side) must agree; 0 when they do. */
int abi_call_both(const char *what, ffi_cif *cif, const struct abi_fn *fn, enum abi_kind ret,
                  void **real_args, void **shim_args, int err0);

int abi_run_variadic(void *lib, struct abi_rng *r, unsigned calls);
int abi_run_flows(void *lib, struct abi_rng *r, unsigned calls);
int abi_run_exit(int code);

int abi_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ABI_DIFF_H */
