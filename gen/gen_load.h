/* SPDX-License-Identifier: MIT */
/*
 * gen_load.h - internal interfaces of the spec validator.
 *
 * gen_load.c checks the top level, gen_load_func.c one function,
 * gen_load_param.c types and parameters.  All of them report through
 * gen_diag with ctx->at pointing at what they are looking at.
 */
#ifndef GEN_LOAD_H
#define GEN_LOAD_H

#include <jansson.h>

#include "gen_diag.h"
#include "gen_ident.h"
#include "gen_spec.h"

int gen_load_func(struct gen_ctx *c, json_t *fj, size_t idx, struct gen_func *f);
void gen_func_free(struct gen_func *f);

/* The parts of a function an alias may restate (gen_load_func.c). */
int gen_load_returns(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f);
int gen_load_variadic(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f);
int gen_load_symver(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f);
int gen_load_allowlisted(struct gen_ctx *c, json_t *fj, const char *key, const char *owner,
                         enum gen_name_err (*check)(const char *), const char **out);

/* "aliases" of function s->funcs[row], appended to s->aliases
 * (gen_load_alias.c); ctx->at is at the function. */
int gen_load_aliases(struct gen_ctx *c, json_t *fj, struct gen_spec *s, size_t row);

/* "types" (gen_load_types.c): struct and union layouts. */
int gen_load_types(struct gen_ctx *c, json_t *root, struct gen_spec *s);
void gen_types_free(struct gen_spec *s);

/* An entry with "unsupported" (gen_load_func.c): its name and reason are
 * checked, a note is printed and it is left out.  1 when skipped, 0 when
 * it is an ordinary function, -1 after an error. */
int gen_load_unsupported(struct gen_ctx *c, json_t *fj, size_t idx);

/* Fails when f's exported symbol is already exported by another entry. */
int gen_check_export(struct gen_ctx *c, const struct gen_spec *s, const struct gen_func *f);

/* Parses the string value at ctx->at as a type. */
int gen_load_type(struct gen_ctx *c, const char *s, struct gen_ctype **out);
int gen_load_params(struct gen_ctx *c, json_t *arr, struct gen_func *f);

static inline int gen_pop_rc(struct gen_ctx *c, int rc)
{
	gen_path_pop(&c->at);
	return rc;
}

/* Evaluates a check with ctx->at extended by one key (the comma operator
 * sequences the push before the check, the call the pop after it). */
#define GEN_AT_KEY(c, key, expr) (gen_path_key(&(c)->at, (key)), gen_pop_rc((c), (expr)))

/* Checks a name with gen_check_ident, reporting at ctx->at. */
int gen_load_ident(struct gen_ctx *c, const char *what, const char *s, size_t max);

#endif /* GEN_LOAD_H */
