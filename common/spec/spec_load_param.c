// SPDX-License-Identifier: MIT
/*
 * spec_load_param.c - validation of types and parameter lists.
 */
#include <stdio.h>
#include <string.h>

#include "spec_field.h"
#include "spec_ident.h"
#include "spec_load.h"

int spec_load_ident(struct spec_ctx *c, const char *what, const char *s, size_t max)
{
	enum spec_name_err e = spec_check_ident(s, max);
	struct spec_quoted q;

	if (e == SPEC_NAME_OK)
		return 0;
	if (e == SPEC_NAME_SYNTAX)
		return spec_err(c, "%s %s is not a C identifier", what, spec_quote(&q, s));
	if (e == SPEC_NAME_TOO_LONG)
		return spec_err(c, "%s %s is longer than %zu characters", what, spec_quote(&q, s),
		                max);
	return spec_err(c, "%s %s %s", what, spec_quote(&q, s), spec_name_err_str(e));
}

int spec_load_type(struct spec_ctx *c, const char *s, struct spec_ctype **out)
{
	struct spec_ctype_err err;

	*out = spec_ctype_parse(s, &err);
	if (*out == NULL)
		return spec_err_in(c, err.offset, "%s", err.msg);
	return 0;
}

static const char *const spec_param_keys[] = {"type", "name", NULL};

/* A parameter's name: given, or p<i>. */
static int spec_load_param_name(struct spec_ctx *c, json_t *pj, const char *owner, size_t i,
                                struct spec_param *p)
{
	int rc = spec_field_str(c, pj, "name", owner, false, &p->name);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		snprintf(p->defname, sizeof p->defname, "p%zu", i);
		p->name = p->defname;
		return 0;
	}
	spec_path_key(&c->at, "name");
	rc = spec_load_ident(c, "parameter name", p->name, SPEC_FUNC_NAME_MAX);
	spec_path_pop(&c->at);
	return rc;
}

static int spec_load_param(struct spec_ctx *c, json_t *pj, size_t i, struct spec_param *p)
{
	char owner[32];
	const char *type;

	snprintf(owner, sizeof owner, "params[%zu]", i);
	if (!json_is_object(pj))
		return spec_err(c, "%s must be an object", owner);
	if (spec_check_keys(c, pj, spec_param_keys, owner) < 0 ||
	    spec_field_str(c, pj, "type", owner, true, &type) < 0 ||
	    spec_load_param_name(c, pj, owner, i, p) < 0)
		return -1;
	spec_path_key(&c->at, "type");
	if (spec_load_type(c, type, &p->type) < 0)
		goto fail;
	if (p->type->is_void) {
		spec_err(c, "a parameter cannot have type void (use \"params\": [] for none)");
		goto fail;
	}
	spec_path_pop(&c->at);
	return 0;
fail:
	spec_path_pop(&c->at);
	return -1;
}

/* Parameter names must differ, including the p<i> defaults. */
static int spec_check_param_names(struct spec_ctx *c, const struct spec_func *f)
{
	struct spec_quoted q;

	for (size_t i = 1; i < f->nparams; i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(f->params[i].name, f->params[j].name) != 0)
				continue;
			spec_path_index(&c->at, i);
			spec_err(c, "parameter name %s is already used by params[%zu]",
			         spec_quote(&q, f->params[i].name), j);
			spec_path_pop(&c->at);
			return -1;
		}
	}
	return 0;
}

int spec_load_params(struct spec_ctx *c, json_t *arr, struct spec_func *f)
{
	int rc = 0;

	f->params = spec_xcalloc(json_array_size(arr), sizeof *f->params);
	for (size_t i = 0; i < json_array_size(arr) && rc == 0; i++) {
		spec_path_index(&c->at, i);
		rc = spec_load_param(c, json_array_get(arr, i), i, &f->params[i]);
		spec_path_pop(&c->at);
		f->nparams = i + 1;
	}
	return rc < 0 ? -1 : spec_check_param_names(c, f);
}
