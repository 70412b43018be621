// SPDX-License-Identifier: MIT
/*
 * spec_load_alias.c - validation of a function's "aliases".
 *
 * An alias is another entry point of the same operation (open64 and
 * __open_2 for open, __read_chk for read): it gets its own exported wrapper
 * and its own real symbol, but counts into the statistics row of the
 * function it is listed under.  Written as a string it is just a symbol
 * with the function's prototype; as an object it may restate "returns",
 * "params" (with "variadic"), "version" and "symver".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_field.h"
#include "spec_load.h"

static const char *const spec_alias_keys[] = {
        "symbol", "returns", "params", "variadic", "version", "symver", NULL,
};

/* A new alias of row `row`, its prototype borrowed until restated. */
static struct spec_func *spec_alias_new(struct spec_ctx *c, struct spec *s, size_t row)
{
	const struct spec_func *f = &s->funcs[row];

	s->aliases = realloc(s->aliases, (s->naliases + 1) * sizeof *s->aliases);
	if (s->aliases == NULL) {
		fputs("apiprof-gen: out of memory\n", stderr);
		exit(1);
	}
	struct spec_func *a = &s->aliases[s->naliases++];
	memset(a, 0, sizeof *a);
	a->pos = spec_locate(c->text, c->len, &c->at, false);
	a->name = f->name;
	a->row = row;
	a->alias = true;
	a->noreturn = f->noreturn;
	a->ret = f->ret;
	a->params = f->params;
	a->nparams = f->nparams;
	a->extra = f->extra;
	a->nextra = f->nextra;
	a->variadic = f->variadic;
	a->vtwin = f->vtwin;
	a->acct = f->acct;
	a->borrowed_ret = a->borrowed_params = true;
	return a;
}

static int spec_alias_symbol(struct spec_ctx *c, struct spec_func *a, const char *sym)
{
	struct spec_quoted q;
	enum spec_name_err e = spec_check_symbol(sym);

	if (e != SPEC_NAME_OK)
		return spec_err(c, "alias %s %s", spec_quote(&q, sym), spec_name_err_str(e));
	a->symbol = sym;
	/* A plain identifier names the wrapper itself, so the real header's
	 * declaration of it checks the prototype. */
	a->asm_label = spec_check_ident(sym, 1024) != SPEC_NAME_OK;
	return 0;
}

/* "params" and "variadic" go together: an alias restating its
 * parameters is variadic only if it says so. */
static int spec_alias_params(struct spec_ctx *c, json_t *aj, struct spec_func *a, const char *owner)
{
	json_t *params;
	int rc = spec_field_array(c, aj, "params", owner, false, &params);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		if (json_object_get(aj, "variadic") != NULL)
			return SPEC_AT_KEY(c, "variadic",
			                   spec_err(c, "an alias with \"variadic\" needs its own "
			                               "\"params\""));
		return 0;
	}
	a->params = NULL;
	a->nparams = a->nextra = 0;
	a->extra = NULL;
	a->variadic = a->vtwin = false;
	a->borrowed_params = false;
	if (SPEC_AT_KEY(c, "params", spec_load_params(c, params, a)) < 0)
		return -1;
	return spec_load_variadic(c, aj, owner, a);
}

static int spec_alias_object(struct spec_ctx *c, json_t *aj, struct spec_func *a)
{
	const char *sym, *owner = "alias";

	if (spec_check_keys(c, aj, spec_alias_keys, owner) < 0 ||
	    spec_field_str(c, aj, "symbol", owner, true, &sym) < 0 ||
	    SPEC_AT_KEY(c, "symbol", spec_alias_symbol(c, a, sym)) < 0)
		return -1;
	if (json_object_get(aj, "returns") != NULL) {
		a->borrowed_ret = false;
		a->ret = NULL;
		if (spec_load_returns(c, aj, owner, a) < 0)
			return -1;
	}
	if (spec_alias_params(c, aj, a, owner) < 0 ||
	    spec_load_allowlisted(c, aj, "version", owner, spec_check_version, &a->version) < 0)
		return -1;
	if (spec_load_symver(c, aj, owner, a) < 0)
		return -1;
	return a->borrowed_ret && a->borrowed_params ? 0 : spec_acct_check(c, a, NULL, NULL);
}

static int spec_load_alias(struct spec_ctx *c, json_t *aj, struct spec *s, size_t row)
{
	const struct spec_func *f = &s->funcs[row];
	struct spec_func *a = spec_alias_new(c, s, row);
	int rc;

	if (json_is_string(aj))
		rc = spec_alias_symbol(c, a, json_string_value(aj));
	else if (json_is_object(aj))
		rc = spec_alias_object(c, aj, a);
	else
		rc = spec_err(c, "an alias must be a symbol name or an object");
	if (rc < 0)
		return -1;
	a->lookup = a->vtwin ? (a->borrowed_params ? f->lookup : a->lookup) : a->symbol;
	return json_is_object(aj) ? SPEC_AT_KEY(c, "symbol", spec_check_export(c, s, a))
	                          : spec_check_export(c, s, a);
}

int spec_load_aliases(struct spec_ctx *c, json_t *fj, struct spec *s, size_t row)
{
	json_t *arr;
	int rc = spec_field_array(c, fj, "aliases", "function", false, &arr);

	if (rc <= 0)
		return rc;
	spec_path_key(&c->at, "aliases");
	rc = 0;
	for (size_t i = 0; i < json_array_size(arr) && rc == 0; i++) {
		spec_path_index(&c->at, i);
		rc = spec_pop_rc(c, spec_load_alias(c, json_array_get(arr, i), s, row));
	}
	return spec_pop_rc(c, rc);
}
