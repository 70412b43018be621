/* SPDX-License-Identifier: MIT */
/*
 * gen_diag.h - compiler-style error messages about a spec.
 *
 * Every error is one line, "SPEC:LINE:COL: message", so editors and CI logs
 * can jump to it.  Strings from the spec are quoted through gen_quote(),
 * which escapes anything unprintable: a message stays one line no matter
 * what the spec contains.
 */
#ifndef GEN_DIAG_H
#define GEN_DIAG_H

#include <stddef.h>

#include "gen_locate.h"

struct gen_ctx {
	const char *path; /* the spec as named on the command line */
	const char *text; /* its contents */
	size_t len;
	struct gen_path at; /* the value being validated */
};

struct gen_quoted {
	char s[96];
};

const char *gen_quote(struct gen_quoted *q, const char *s);

void gen_diag_at(const char *path, int line, int col, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* Report at the value of ctx->at (gen_err), at the key of its last step
 * (gen_err_key), or at a byte offset inside that string value (gen_err_in).
 * All return -1 so a check can `return gen_err(...)`. */
int gen_err(struct gen_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gen_err_key(struct gen_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gen_err_in(struct gen_ctx *c, size_t offset, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int gen_err_pos(struct gen_ctx *c, struct gen_pos pos, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif /* GEN_DIAG_H */
