/* SPDX-License-Identifier: MIT */
/*
 * spec.h - a validated spec.
 *
 * Everything in here has passed the checks of spec_load.c: names are C
 * identifiers, types parsed, allow-listed strings are allow-listed.  The
 * emitter relies on that and does no checking of its own.
 */
#ifndef SPEC_H
#define SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "spec_ctype.h"
#include "spec_locate.h"

#define SPEC_VERSION       1
#define SPEC_API_NAME_MAX  31 /* fits APIPROF_API_NAME_MAX with its NUL */
#define SPEC_FUNC_NAME_MAX 63 /* fits APIPROF_NAME_MAX with its NUL */

struct spec_param {
	const char *name; /* given, or defname */
	struct spec_ctype *type;
	char defname[24]; /* p0, p1, ... */
};

/* How a wrapper is exported when the real symbol is versioned. */
enum spec_symver {
	SPEC_SYMVER_NONE,    /* unversioned: binds references to any version */
	SPEC_SYMVER_DEFAULT, /* SYMBOL@@VERSION */
	SPEC_SYMVER_OLD,     /* SYMBOL@VERSION: only objects bound to that version */
};

/* Where a call's work is counted, in bytes ("bytes"). */
enum spec_bytes {
	SPEC_BYTES_NONE,
	SPEC_BYTES_RETURN,  /* the return value, when the call did not fail and it is >= 0 */
	SPEC_BYTES_PARAM,   /* a parameter's value */
	SPEC_BYTES_PRODUCT, /* the product of two parameters' values */
};

/* When a call failed, judged on its return value ("fails"). */
enum spec_fails {
	SPEC_FAILS_NONE,
	SPEC_FAILS_NEGATIVE,
	SPEC_FAILS_NONPOSITIVE,
	SPEC_FAILS_MINUS_ONE,
	SPEC_FAILS_NULL,
	SPEC_FAILS_NONZERO,
	SPEC_FAILS_ZERO,
	SPEC_FAILS_NOT, /* every value but those of `ok` */
};

/* What a function declares about its calls' work and failures (issue 24);
 * an alias has its row's. */
struct spec_acct {
	enum spec_bytes bytes;
	const char *bname[2]; /* the parameters named by "bytes" */
	size_t bparam[2];     /* their indices in the function's (or alias's) params */
	enum spec_fails fails;
	long long *ok; /* SPEC_FAILS_NOT: the values that are not failures (the row's) */
	size_t nok;
	bool err_no; /* "errno": true */
};

/* A function (a statistics row) or an alias entry point of one. */
struct spec_func {
	const char *name;    /* display name (an alias: its row's), C name of the wrapper */
	const char *cname;   /* stem of the generated identifiers: name, or apiprof_aN */
	const char *symbol;  /* the exported linker name; == name unless "symbol" */
	const char *lookup;  /* what is resolved: symbol, or the v-twin */
	const char *version; /* NULL: unversioned dlsym */
	enum spec_symver symver;
	struct spec_ctype *ret;
	struct spec_param *params;
	size_t nparams;
	struct spec_ctype **extra; /* "variadic": {"extra": [...]} */
	size_t nextra;
	size_t row; /* the statistics row it counts into */
	size_t sym; /* its index in the symbol tables */
	bool variadic;
	bool vtwin; /* "variadic": {"vtwin": ...} */
	bool noreturn;
	bool deprecated;      /* informational: the header marks it deprecated */
	bool asm_label;       /* exported under an __asm__ label (or .symver) */
	bool alias;           /* an entry of "aliases" */
	bool borrowed_ret;    /* an alias without its own "returns": ret is the row's */
	bool borrowed_params; /* ... without its own "params": params and extra are */
	struct spec_pos pos;  /* of the function's object in the spec */
	struct spec_acct acct;
	char cbuf[32]; /* cname of an alias */
};

/* A member of a "types" entry: the layout of a struct or union passed by
 * value, for modes that build calls without the headers (libffi). */
struct spec_member {
	const char *name; /* NULL: unnamed (padding bit-field, anonymous member) */
	struct spec_ctype *type;
	int bits; /* a bit-field's width, 0 otherwise */
};

enum spec_type_kind {
	SPEC_TYPE_STRUCT,
	SPEC_TYPE_UNION,
	SPEC_TYPE_TYPEDEF, /* a typedef name and its canonical type */
	SPEC_TYPE_ENUM,    /* "enum X" and its integer type */
};

/* An entry of "types": what modes without headers need of a type passed
 * by value. */
struct spec_typedef {
	const char *name; /* as parameters spell it: "struct tl_pair", "pair_t", "enum e" */
	enum spec_type_kind kind;
	struct spec_member *members; /* struct, union */
	size_t nmembers;
	struct spec_ctype *type; /* typedef, enum */
	struct spec_pos pos;
};

struct spec {
	const char *path;
	const char *api;
	const char *library;
	const char **headers;
	size_t nheaders;
	const char **include_dirs; /* "include_dirs": each becomes -IDIR when a shim is built */
	size_t ninclude_dirs;
	const char **defines; /* "defines": NAME or NAME=VALUE, #defined before the headers */
	size_t ndefines;
	struct spec_func *funcs; /* the rows */
	size_t nfuncs;
	struct spec_func *aliases; /* symbol nfuncs + i */
	size_t naliases;
	struct spec_typedef *types; /* "types", in document order */
	size_t ntypes;
	void *json; /* owns the strings above */
};

/* Reads and validates a spec; prints one "path:line:col: message" line on
 * stderr and returns NULL when it is not valid. */
struct spec *spec_load(const char *path);
/* The same from an open descriptor (read to its end, not closed); path
 * names it in messages and is kept in the spec. */
struct spec *spec_load_fd(int fd, const char *path);
void spec_free(struct spec *spec);

#endif /* SPEC_H */
