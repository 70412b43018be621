// SPDX-License-Identifier: MIT
/*
 * gen_load_param.c - validation of types and parameter lists.
 */
#include <stdio.h>
#include <string.h>

#include "gen_field.h"
#include "gen_ident.h"
#include "gen_load.h"

int gen_load_ident(struct gen_ctx *c, const char *what, const char *s, size_t max)
{
	enum gen_name_err e = gen_check_ident(s, max);
	struct gen_quoted q;

	if (e == GEN_NAME_OK)
		return 0;
	if (e == GEN_NAME_SYNTAX)
		return gen_err(c, "%s %s is not a C identifier", what, gen_quote(&q, s));
	if (e == GEN_NAME_TOO_LONG)
		return gen_err(c, "%s %s is longer than %zu characters", what, gen_quote(&q, s),
		               max);
	return gen_err(c, "%s %s %s", what, gen_quote(&q, s), gen_name_err_str(e));
}

int gen_load_type(struct gen_ctx *c, const char *s, struct gen_ctype **out)
{
	struct gen_ctype_err err;

	*out = gen_ctype_parse(s, &err);
	if (*out == NULL)
		return gen_err_in(c, err.offset, "%s", err.msg);
	return 0;
}

static const char *const gen_param_keys[] = {"type", "name", NULL};

/* A parameter's name: given, or p<i>. */
static int gen_load_param_name(struct gen_ctx *c, json_t *pj, const char *owner, size_t i,
                               struct gen_param *p)
{
	int rc = gen_field_str(c, pj, "name", owner, false, &p->name);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(p->defname, sizeof p->defname, "p%zu", i);
		p->name = p->defname;
		return 0;
	}
	gen_path_key(&c->at, "name");
	rc = gen_load_ident(c, "parameter name", p->name, GEN_FUNC_NAME_MAX);
	gen_path_pop(&c->at);
	return rc;
}

static int gen_load_param(struct gen_ctx *c, json_t *pj, size_t i, struct gen_param *p)
{
	char owner[32];
	const char *type;

	snprintf(owner, sizeof owner, "params[%zu]", i);
	if (!json_is_object(pj))
		return gen_err(c, "%s must be an object", owner);
	if (gen_check_keys(c, pj, gen_param_keys, owner) < 0 ||
	    gen_field_str(c, pj, "type", owner, true, &type) < 0 ||
	    gen_load_param_name(c, pj, owner, i, p) < 0)
		return -1;
	gen_path_key(&c->at, "type");
	if (gen_load_type(c, type, &p->type) < 0)
		goto fail;
	if (p->type->is_void) {
		gen_err(c, "a parameter cannot have type void (use \"params\": [] for none)");
		goto fail;
	}
	gen_path_pop(&c->at);
	return 0;
fail:
	gen_path_pop(&c->at);
	return -1;
}

/* Parameter names must differ, including the p<i> defaults. */
static int gen_check_param_names(struct gen_ctx *c, const struct gen_func *f)
{
	struct gen_quoted q;
	size_t i, j;

	for (i = 1; i < f->nparams; i++) {
		for (j = 0; j < i; j++) {
			if (strcmp(f->params[i].name, f->params[j].name) != 0)
				continue;
			gen_path_index(&c->at, i);
			gen_err(c, "parameter name %s is already used by params[%zu]",
			        gen_quote(&q, f->params[i].name), j);
			gen_path_pop(&c->at);
			return -1;
		}
	}
	return 0;
}

int gen_load_params(struct gen_ctx *c, json_t *arr, struct gen_func *f)
{
	size_t i;
	int rc = 0;

	f->params = gen_xcalloc(json_array_size(arr), sizeof *f->params);
	for (i = 0; i < json_array_size(arr) && rc == 0; i++) {
		gen_path_index(&c->at, i);
		rc = gen_load_param(c, json_array_get(arr, i), i, &f->params[i]);
		gen_path_pop(&c->at);
		f->nparams = i + 1;
	}
	return rc < 0 ? -1 : gen_check_param_names(c, f);
}
