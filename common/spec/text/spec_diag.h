/* SPDX-License-Identifier: MIT */
/*
 * spec_diag.h - compiler-style error messages about a spec.
 *
 * Every error is one line, "SPEC:LINE:COL: message", so editors and CI logs
 * can jump to it.  Strings from the spec are quoted through spec_quote(),
 * which escapes anything unprintable: a message stays one line no matter
 * what the spec contains.
 */
#ifndef SPEC_DIAG_H
#define SPEC_DIAG_H

#include <stddef.h>

#include "spec_locate.h"

struct spec_ctx {
	const char *path; /* the spec as named on the command line */
	const char *text; /* its contents */
	size_t len;
	struct spec_path at; /* the value being validated */
};

struct spec_quoted {
	char s[96];
};

const char *spec_quote(struct spec_quoted *q, const char *s);

void spec_diag_at(const char *path, int line, int col, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* A note (a function skipped, not an error): muted by SPEC_MUTE_NOTES. */
void spec_note_at(const char *path, int line, int col, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* What is not printed: dynamic mode loads the same specs in every process
 * of a run, and only one of them speaks (apiprof_say). */
enum spec_mute { SPEC_MUTE_NONE, SPEC_MUTE_NOTES, SPEC_MUTE_ALL };
void spec_diag_mute(enum spec_mute what);

/* Report at the value of ctx->at (spec_err), at the key of its last step
 * (spec_err_key), or at a byte offset inside that string value (spec_err_in).
 * All return -1 so a check can `return spec_err(...)`. */
int spec_err(struct spec_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int spec_err_key(struct spec_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int spec_err_in(struct spec_ctx *c, size_t offset, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int spec_err_pos(struct spec_ctx *c, struct spec_pos pos, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif /* SPEC_DIAG_H */
