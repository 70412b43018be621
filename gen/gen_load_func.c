// SPDX-License-Identifier: MIT
/*
 * gen_load_func.c - validation of one entry of "functions".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_field.h"
#include "gen_ident.h"
#include "gen_load.h"

static const char *const gen_func_keys[] = {
        "name",   "returns", "params",     "noreturn", "variadic", "version",
        "symbol", "symver",  "deprecated", "aliases",  NULL,
};
/* What an "unsupported" entry may say besides why: what the importer
 * knew about it, for people reading the spec. */
static const char *const gen_unsupported_keys[] = {
        "name",   "returns", "params",     "noreturn",    "variadic", "version",
        "symbol", "symver",  "deprecated", "unsupported", NULL,
};
static const char *const gen_variadic_keys[] = {"vtwin", "extra", NULL};

/* The shim itself calls these to find the real functions: a wrapper for
 * one of them would recurse into itself. */
static const char *const gen_unprofilable[] = {"dlsym", "dlvsym", NULL};

/* With a "symbol", "name" is only displayed, so it may read like C++
 * (`operator new(size_t)`); the generated identifiers then use the
 * reserved stem apiprof_fN, which no spec name can take. */
static int gen_load_display(struct gen_ctx *c, json_t *fj, size_t idx, struct gen_func *f)
{
	struct gen_quoted q;
	enum gen_name_err e;

	if (json_object_get(fj, "symbol") == NULL || gen_check_ident(f->name, 1024) == GEN_NAME_OK)
		return GEN_AT_KEY(c, "name",
		                  gen_load_ident(c, "function name", f->name, GEN_FUNC_NAME_MAX));
	e = gen_check_display(f->name, GEN_FUNC_NAME_MAX);
	if (e != GEN_NAME_OK)
		return GEN_AT_KEY(c, "name",
		                  gen_err(c, "display name %s %s", gen_quote(&q, f->name),
		                          gen_name_err_str(e)));
	snprintf(f->cbuf, sizeof f->cbuf, "apiprof_f%zu", idx);
	f->cname = f->cbuf;
	return 0;
}

static int gen_load_name(struct gen_ctx *c, json_t *fj, size_t idx, struct gen_func *f)
{
	char owner[32];
	size_t i;

	snprintf(owner, sizeof owner, "functions[%zu]", idx);
	f->cname = NULL;
	if (gen_field_str(c, fj, "name", owner, true, &f->name) < 0 ||
	    gen_load_display(c, fj, idx, f) < 0)
		return -1;
	for (i = 0; gen_unprofilable[i] != NULL; i++)
		if (strcmp(f->name, gen_unprofilable[i]) == 0)
			return GEN_AT_KEY(c, "name",
			                  gen_err(c,
			                          "function \"%s\" cannot be profiled: the shim "
			                          "itself calls it",
			                          f->name));
	return 0;
}

int gen_load_returns(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f)
{
	const char *s;

	if (gen_field_str(c, fj, "returns", owner, true, &s) < 0 ||
	    GEN_AT_KEY(c, "returns", gen_load_type(c, s, &f->ret)))
		return -1;
	if (f->ret->kind == GEN_CT_ARRAY)
		return GEN_AT_KEY(c, "returns", gen_err(c, "a function cannot return an array"));
	if (f->ret->kind == GEN_CT_FUNCTION)
		return GEN_AT_KEY(
		        c, "returns",
		        gen_err(c, "a function cannot return a function (use a pointer)"));
	return 0;
}

/* One type of "extra": it must survive va_arg unchanged. */
static int gen_load_extra_type(struct gen_ctx *c, const char *s, struct gen_ctype **out)
{
	if (gen_load_type(c, s, out) < 0)
		return -1;
	if ((*out)->is_void)
		return gen_err(c, "a variadic argument cannot have type void");
	if ((*out)->promotes)
		return gen_err(c,
		               "va_arg cannot read '%s': it is promoted when passed through '...' "
		               "(use int or double)",
		               s);
	if ((*out)->kind == GEN_CT_ARRAY || (*out)->kind == GEN_CT_FUNCTION)
		return gen_err(c, "a variadic argument cannot be an array or a function (use a "
		                  "pointer)");
	return 0;
}

static int gen_load_extra(struct gen_ctx *c, json_t *arr, struct gen_func *f)
{
	size_t i, n = json_array_size(arr);
	json_t *v;
	int rc = 0;

	if (n == 0)
		return gen_err(c, "\"extra\" must list at least one type");
	f->extra = gen_xcalloc(n, sizeof *f->extra);
	for (i = 0; i < n && rc == 0; i++) {
		v = json_array_get(arr, i);
		gen_path_index(&c->at, i);
		if (!json_is_string(v))
			rc = gen_err(c, "extra[%zu] must be a type string", i);
		else
			rc = gen_load_extra_type(c, json_string_value(v), &f->extra[i]);
		gen_path_pop(&c->at);
		f->nextra = i + 1;
	}
	return rc;
}

static int gen_load_vtwin(struct gen_ctx *c, const char *vtwin, struct gen_func *f)
{
	if (gen_load_ident(c, "vtwin", vtwin, GEN_FUNC_NAME_MAX) < 0)
		return -1;
	if (strcmp(vtwin, f->name) == 0)
		return gen_err(c, "the vtwin of %s must be another function (taking a va_list)",
		               f->name);
	f->vtwin = true;
	f->lookup = vtwin;
	return 0;
}

static int gen_load_variadic_body(struct gen_ctx *c, json_t *vj, struct gen_func *f)
{
	const char *vtwin = NULL;
	json_t *extra = NULL;
	int hv, he;

	if (gen_check_keys(c, vj, gen_variadic_keys, "\"variadic\"") < 0)
		return -1;
	hv = gen_field_str(c, vj, "vtwin", "\"variadic\"", false, &vtwin);
	he = gen_field_array(c, vj, "extra", "\"variadic\"", false, &extra);
	if (hv < 0 || he < 0)
		return -1;
	if (hv + he != 1)
		return gen_err(c, "\"variadic\" must have exactly one of \"vtwin\" or \"extra\"");
	if (f->nparams == 0)
		return gen_err(c, "a variadic function needs at least one named parameter");
	f->variadic = true;
	if (hv)
		return GEN_AT_KEY(c, "vtwin", gen_load_vtwin(c, vtwin, f));
	return GEN_AT_KEY(c, "extra", gen_load_extra(c, extra, f));
}

int gen_load_variadic(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f)
{
	json_t *vj;
	int rc = gen_field_object(c, fj, "variadic", owner, &vj);

	if (rc <= 0)
		return rc;
	return GEN_AT_KEY(c, "variadic", gen_load_variadic_body(c, vj, f));
}

int gen_load_allowlisted(struct gen_ctx *c, json_t *fj, const char *key, const char *owner,
                         enum gen_name_err (*check)(const char *), const char **out)
{
	struct gen_quoted q;
	enum gen_name_err e;
	int rc = gen_field_str(c, fj, key, owner, false, out);

	if (rc <= 0)
		return rc;
	e = check(*out);
	if (e == GEN_NAME_OK)
		return 1;
	return GEN_AT_KEY(
	        c, key, gen_err(c, "\"%s\" %s %s", key, gen_quote(&q, *out), gen_name_err_str(e)));
}

/* "symver": export the wrapper under the real symbol's version, so that
 * objects bound to an old version reach that version through the shim. */
int gen_load_symver(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f)
{
	struct gen_quoted q;
	const char *v;
	int rc = gen_field_str(c, fj, "symver", owner, false, &v);

	if (rc <= 0)
		return rc;
	if (strcmp(v, "default") == 0)
		f->symver = GEN_SYMVER_DEFAULT;
	else if (strcmp(v, "old") == 0)
		f->symver = GEN_SYMVER_OLD;
	else
		return GEN_AT_KEY(c, "symver",
		                  gen_err(c, "\"symver\" must be \"default\" or \"old\", not %s",
		                          gen_quote(&q, v)));
	if (f->version == NULL)
		return GEN_AT_KEY(c, "symver",
		                  gen_err(c, "\"symver\" needs the \"version\" to export under"));
	f->asm_label = true;
	return 0;
}

static int gen_load_options(struct gen_ctx *c, json_t *fj, const char *owner, struct gen_func *f)
{
	int rc;

	if (gen_field_bool(c, fj, "noreturn", owner, &f->noreturn) < 0 ||
	    gen_field_bool(c, fj, "deprecated", owner, &f->deprecated) < 0 ||
	    gen_load_variadic(c, fj, owner, f) < 0 ||
	    gen_load_allowlisted(c, fj, "version", owner, gen_check_version, &f->version) < 0)
		return -1;
	rc = gen_load_allowlisted(c, fj, "symbol", owner, gen_check_symbol, &f->symbol);
	if (rc < 0)
		return -1;
	f->asm_label = rc > 0;
	if (!f->asm_label)
		f->symbol = f->name;
	if (!f->vtwin)
		f->lookup = f->symbol;
	return gen_load_symver(c, fj, owner, f);
}

int gen_load_func(struct gen_ctx *c, json_t *fj, size_t idx, struct gen_func *f)
{
	struct gen_quoted q;
	char owner[96];
	json_t *params;

	f->pos = gen_locate(c->text, c->len, &c->at, false);
	f->row = f->sym = idx;
	if (!json_is_object(fj))
		return gen_err(c, "functions[%zu] must be an object", idx);
	if (gen_load_name(c, fj, idx, f) < 0)
		return -1;
	if (f->cname == NULL)
		f->cname = f->name;
	snprintf(owner, sizeof owner, "function %s", gen_quote(&q, f->name));
	if (gen_check_keys(c, fj, gen_func_keys, owner) < 0 ||
	    gen_load_returns(c, fj, owner, f) < 0 ||
	    gen_field_array(c, fj, "params", owner, true, &params) < 0 ||
	    GEN_AT_KEY(c, "params", gen_load_params(c, params, f)) < 0)
		return -1;
	return gen_load_options(c, fj, owner, f);
}

/* "unsupported": the importer found no safe way to forward the function
 * (variadic without a va_list twin, a type the grammar cannot spell).
 * The entry stays in the spec so that people see why it is missing. */
int gen_load_unsupported(struct gen_ctx *c, json_t *fj, size_t idx)
{
	const char *name, *why;
	struct gen_quoted qn, qw;
	struct gen_pos pos;
	char owner[32];

	if (!json_is_object(fj) || json_object_get(fj, "unsupported") == NULL)
		return 0;
	snprintf(owner, sizeof owner, "functions[%zu]", idx);
	if (gen_check_keys(c, fj, gen_unsupported_keys, owner) < 0 ||
	    gen_field_str(c, fj, "name", owner, true, &name) < 0 ||
	    gen_field_str(c, fj, "unsupported", owner, true, &why) < 0)
		return -1;
	pos = gen_locate(c->text, c->len, &c->at, false);
	gen_diag_at(c->path, pos.line, pos.col, "note: %s skipped: %s", gen_quote(&qn, name),
	            gen_quote(&qw, why));
	return 1;
}

void gen_func_free(struct gen_func *f)
{
	size_t i;

	if (!f->borrowed_ret)
		gen_ctype_free(f->ret);
	if (f->borrowed_params)
		return;
	for (i = 0; i < f->nparams; i++)
		gen_ctype_free(f->params[i].type);
	free(f->params);
	for (i = 0; i < f->nextra; i++)
		gen_ctype_free(f->extra[i]);
	free(f->extra);
}
