// SPDX-License-Identifier: MIT
/*
 * spec_load_func.c - validation of one entry of "functions".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_field.h"
#include "spec_ident.h"
#include "spec_load.h"

static const char *const spec_func_keys[] = {
        "name",   "returns",    "params",  "noreturn", "variadic", "version", "symbol",
        "symver", "deprecated", "aliases", "bytes",    "fails",    "errno",   NULL,
};
/* What an "unsupported" entry may say besides why: what the importer
 * knew about it, for people reading the spec. */
static const char *const spec_unsupported_keys[] = {
        "name",   "returns", "params",     "noreturn",    "variadic", "version",
        "symbol", "symver",  "deprecated", "unsupported", NULL,
};
static const char *const spec_variadic_keys[] = {"vtwin", "extra", NULL};

/* The shim itself calls these to find the real functions: a wrapper for
 * one of them would recurse into itself. */
static const char *const spec_unprofilable[] = {"dlsym", "dlvsym", NULL};

/* With a "symbol", "name" is only displayed, so it may read like C++
 * (`operator new(size_t)`); the generated identifiers then use the
 * reserved stem apiprof_fN, which no spec name can take. */
static int spec_load_display(struct spec_ctx *c, json_t *fj, size_t idx, struct spec_func *f)
{
	struct spec_quoted q;

	if (json_object_get(fj, "symbol") == NULL ||
	    spec_check_ident(f->name, 1024) == SPEC_NAME_OK)
		return SPEC_AT_KEY(
		        c, "name",
		        spec_load_ident(c, "function name", f->name, SPEC_FUNC_NAME_MAX));
	enum spec_name_err e = spec_check_display(f->name, SPEC_FUNC_NAME_MAX);
	if (e != SPEC_NAME_OK)
		return SPEC_AT_KEY(c, "name",
		                   spec_err(c, "display name %s %s", spec_quote(&q, f->name),
		                            spec_name_err_str(e)));
	snprintf(f->cbuf, sizeof f->cbuf, "apiprof_f%zu", idx);
	f->cname = f->cbuf;
	return 0;
}

static int spec_load_name(struct spec_ctx *c, json_t *fj, size_t idx, struct spec_func *f)
{
	char owner[32];

	snprintf(owner, sizeof owner, "functions[%zu]", idx);
	f->cname = NULL;
	if (spec_field_str(c, fj, "name", owner, true, &f->name) < 0 ||
	    spec_load_display(c, fj, idx, f) < 0)
		return -1;
	for (size_t i = 0; spec_unprofilable[i] != NULL; i++)
		if (strcmp(f->name, spec_unprofilable[i]) == 0)
			return SPEC_AT_KEY(c, "name",
			                   spec_err(c,
			                            "function \"%s\" cannot be profiled: the shim "
			                            "itself calls it",
			                            f->name));
	return 0;
}

int spec_load_returns(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f)
{
	const char *s;

	if (spec_field_str(c, fj, "returns", owner, true, &s) < 0 ||
	    SPEC_AT_KEY(c, "returns", spec_load_type(c, s, &f->ret)))
		return -1;
	if (f->ret->kind == SPEC_CT_ARRAY)
		return SPEC_AT_KEY(c, "returns", spec_err(c, "a function cannot return an array"));
	if (f->ret->kind == SPEC_CT_FUNCTION)
		return SPEC_AT_KEY(
		        c, "returns",
		        spec_err(c, "a function cannot return a function (use a pointer)"));
	return 0;
}

/* One type of "extra": it must survive va_arg unchanged. */
static int spec_load_extra_type(struct spec_ctx *c, const char *s, struct spec_ctype **out)
{
	if (spec_load_type(c, s, out) < 0)
		return -1;
	if ((*out)->is_void)
		return spec_err(c, "a variadic argument cannot have type void");
	if ((*out)->promotes)
		return spec_err(c,
		                "va_arg cannot read '%s': it is promoted when passed through '...' "
		                "(use int or double)",
		                s);
	if ((*out)->kind == SPEC_CT_ARRAY || (*out)->kind == SPEC_CT_FUNCTION)
		return spec_err(c, "a variadic argument cannot be an array or a function (use a "
		                   "pointer)");
	return 0;
}

static int spec_load_extra(struct spec_ctx *c, json_t *arr, struct spec_func *f)
{
	size_t n = json_array_size(arr);
	int rc = 0;

	if (n == 0)
		return spec_err(c, "\"extra\" must list at least one type");
	f->extra = spec_xcalloc(n, sizeof *f->extra);
	for (size_t i = 0; i < n && rc == 0; i++) {
		json_t *v = json_array_get(arr, i);
		spec_path_index(&c->at, i);
		if (!json_is_string(v))
			rc = spec_err(c, "extra[%zu] must be a type string", i);
		else
			rc = spec_load_extra_type(c, json_string_value(v), &f->extra[i]);
		spec_path_pop(&c->at);
		f->nextra = i + 1;
	}
	return rc;
}

static int spec_load_vtwin(struct spec_ctx *c, const char *vtwin, struct spec_func *f)
{
	if (spec_load_ident(c, "vtwin", vtwin, SPEC_FUNC_NAME_MAX) < 0)
		return -1;
	if (strcmp(vtwin, f->name) == 0)
		return spec_err(c, "the vtwin of %s must be another function (taking a va_list)",
		                f->name);
	f->vtwin = true;
	f->lookup = vtwin;
	return 0;
}

static int spec_load_variadic_body(struct spec_ctx *c, json_t *vj, struct spec_func *f)
{
	const char *vtwin = NULL;
	json_t *extra = NULL;

	if (spec_check_keys(c, vj, spec_variadic_keys, "\"variadic\"") < 0)
		return -1;
	int hv = spec_field_str(c, vj, "vtwin", "\"variadic\"", false, &vtwin);
	int he = spec_field_array(c, vj, "extra", "\"variadic\"", false, &extra);
	if (hv < 0 || he < 0)
		return -1;
	if (hv + he != 1)
		return spec_err(c, "\"variadic\" must have exactly one of \"vtwin\" or \"extra\"");
	if (f->nparams == 0)
		return spec_err(c, "a variadic function needs at least one named parameter");
	f->variadic = true;
	if (hv)
		return SPEC_AT_KEY(c, "vtwin", spec_load_vtwin(c, vtwin, f));
	return SPEC_AT_KEY(c, "extra", spec_load_extra(c, extra, f));
}

int spec_load_variadic(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f)
{
	json_t *vj;
	int rc = spec_field_object(c, fj, "variadic", owner, &vj);

	if (rc <= 0)
		return rc;
	return SPEC_AT_KEY(c, "variadic", spec_load_variadic_body(c, vj, f));
}

int spec_load_allowlisted(struct spec_ctx *c, json_t *fj, const char *key, const char *owner,
                          enum spec_name_err (*check)(const char *), const char **out)
{
	struct spec_quoted q;
	int rc = spec_field_str(c, fj, key, owner, false, out);

	if (rc <= 0)
		return rc;
	enum spec_name_err e = check(*out);
	if (e == SPEC_NAME_OK)
		return 1;
	return SPEC_AT_KEY(
	        c, key,
	        spec_err(c, "\"%s\" %s %s", key, spec_quote(&q, *out), spec_name_err_str(e)));
}

/* "symver": export the wrapper under the real symbol's version, so that
 * objects bound to an old version reach that version through the shim. */
int spec_load_symver(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f)
{
	struct spec_quoted q;
	const char *v;
	int rc = spec_field_str(c, fj, "symver", owner, false, &v);

	if (rc <= 0)
		return rc;
	if (strcmp(v, "default") == 0)
		f->symver = SPEC_SYMVER_DEFAULT;
	else if (strcmp(v, "old") == 0)
		f->symver = SPEC_SYMVER_OLD;
	else
		return SPEC_AT_KEY(c, "symver",
		                   spec_err(c, "\"symver\" must be \"default\" or \"old\", not %s",
		                            spec_quote(&q, v)));
	if (f->version == NULL)
		return SPEC_AT_KEY(c, "symver",
		                   spec_err(c, "\"symver\" needs the \"version\" to export under"));
	f->asm_label = true;
	return 0;
}

static int spec_load_options(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f)
{
	if (spec_field_bool(c, fj, "noreturn", owner, &f->noreturn) < 0 ||
	    spec_field_bool(c, fj, "deprecated", owner, &f->deprecated) < 0 ||
	    spec_load_variadic(c, fj, owner, f) < 0 ||
	    spec_load_allowlisted(c, fj, "version", owner, spec_check_version, &f->version) < 0)
		return -1;
	int rc = spec_load_allowlisted(c, fj, "symbol", owner, spec_check_symbol, &f->symbol);
	if (rc < 0)
		return -1;
	f->asm_label = rc > 0;
	if (!f->asm_label)
		f->symbol = f->name;
	if (!f->vtwin)
		f->lookup = f->symbol;
	if (spec_load_symver(c, fj, owner, f) < 0)
		return -1;
	return spec_load_acct(c, fj, owner, f);
}

int spec_load_func(struct spec_ctx *c, json_t *fj, size_t idx, struct spec_func *f)
{
	struct spec_quoted q;
	char owner[96];
	json_t *params;

	f->pos = spec_locate(c->text, c->len, &c->at, false);
	f->row = f->sym = idx;
	if (!json_is_object(fj))
		return spec_err(c, "functions[%zu] must be an object", idx);
	if (spec_load_name(c, fj, idx, f) < 0)
		return -1;
	if (f->cname == NULL)
		f->cname = f->name;
	snprintf(owner, sizeof owner, "function %s", spec_quote(&q, f->name));
	if (spec_check_keys(c, fj, spec_func_keys, owner) < 0 ||
	    spec_load_returns(c, fj, owner, f) < 0 ||
	    spec_field_array(c, fj, "params", owner, true, &params) < 0 ||
	    SPEC_AT_KEY(c, "params", spec_load_params(c, params, f)) < 0)
		return -1;
	return spec_load_options(c, fj, owner, f);
}

/* "unsupported": the importer found no safe way to forward the function
 * (variadic without a va_list twin, a type the grammar cannot spell).
 * The entry stays in the spec so that people see why it is missing. */
int spec_load_unsupported(struct spec_ctx *c, json_t *fj, size_t idx)
{
	const char *name, *why;
	struct spec_quoted qn, qw;
	char owner[32];

	if (!json_is_object(fj) || json_object_get(fj, "unsupported") == NULL)
		return 0;
	snprintf(owner, sizeof owner, "functions[%zu]", idx);
	if (spec_check_keys(c, fj, spec_unsupported_keys, owner) < 0 ||
	    spec_field_str(c, fj, "name", owner, true, &name) < 0 ||
	    spec_field_str(c, fj, "unsupported", owner, true, &why) < 0)
		return -1;
	struct spec_pos pos = spec_locate(c->text, c->len, &c->at, false);
	spec_note_at(c->path, pos.line, pos.col, "note: %s skipped: %s", spec_quote(&qn, name),
	             spec_quote(&qw, why));
	return 1;
}

void spec_func_free(struct spec_func *f)
{
	if (!f->alias)
		free(f->acct.ok);
	if (!f->borrowed_ret)
		spec_ctype_free(f->ret);
	if (f->borrowed_params)
		return;
	for (size_t i = 0; i < f->nparams; i++)
		spec_ctype_free(f->params[i].type);
	free(f->params);
	for (size_t i = 0; i < f->nextra; i++)
		spec_ctype_free(f->extra[i]);
	free(f->extra);
}
