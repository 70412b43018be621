/* SPDX-License-Identifier: MIT */
/*
 * spec_load.h - internal interfaces of the spec validator.
 *
 * spec_load.c checks the top level, spec_load_func.c one function,
 * spec_load_param.c types and parameters.  All of them report through
 * spec_diag with ctx->at pointing at what they are looking at.
 */
#ifndef SPEC_LOAD_H
#define SPEC_LOAD_H

#include <jansson.h>

#include "spec_diag.h"
#include "spec_ident.h"
#include "spec.h"

int spec_load_func(struct spec_ctx *c, json_t *fj, size_t idx, struct spec_func *f);
void spec_func_free(struct spec_func *f);

/* The parts of a function an alias may restate (spec_load_func.c). */
int spec_load_returns(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f);
int spec_load_variadic(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f);
int spec_load_symver(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f);
int spec_load_allowlisted(struct spec_ctx *c, json_t *fj, const char *key, const char *owner,
                          enum spec_name_err (*check)(const char *), const char **out);

/* "bytes", "fails" and "errno" of a function (spec_load_acct.c), and
 * their check against f's prototype, located at the keys (or, with NULL
 * keys, at ctx->at: an alias that restates its prototype). */
int spec_load_acct(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f);
int spec_acct_check(struct spec_ctx *c, struct spec_func *f, const char *bytes_key,
                    const char *fails_key);

/* "aliases" of function s->funcs[row], appended to s->aliases
 * (spec_load_alias.c); ctx->at is at the function. */
int spec_load_aliases(struct spec_ctx *c, json_t *fj, struct spec *s, size_t row);

/* "types" (spec_load_types.c): struct and union layouts. */
int spec_load_types(struct spec_ctx *c, json_t *root, struct spec *s);
void spec_types_free(struct spec *s);

/* An entry with "unsupported" (spec_load_func.c): its name and reason are
 * checked, a note is printed and it is left out.  1 when skipped, 0 when
 * it is an ordinary function, -1 after an error. */
int spec_load_unsupported(struct spec_ctx *c, json_t *fj, size_t idx);

/* Fails when f's exported symbol is already exported by another entry. */
int spec_check_export(struct spec_ctx *c, const struct spec *s, const struct spec_func *f);

/* Parses the string value at ctx->at as a type. */
int spec_load_type(struct spec_ctx *c, const char *s, struct spec_ctype **out);
int spec_load_params(struct spec_ctx *c, json_t *arr, struct spec_func *f);

static inline int spec_pop_rc(struct spec_ctx *c, int rc)
{
	spec_path_pop(&c->at);
	return rc;
}

/* Evaluates a check with ctx->at extended by one key (the comma operator
 * sequences the push before the check, the call the pop after it). */
#define SPEC_AT_KEY(c, key, expr) (spec_path_key(&(c)->at, (key)), spec_pop_rc((c), (expr)))

/* Checks a name with spec_check_ident, reporting at ctx->at. */
int spec_load_ident(struct spec_ctx *c, const char *what, const char *s, size_t max);

#endif /* SPEC_LOAD_H */
