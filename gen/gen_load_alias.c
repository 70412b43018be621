// SPDX-License-Identifier: MIT
/*
 * gen_load_alias.c - validation of a function's "aliases".
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

#include "gen_field.h"
#include "gen_load.h"

static const char *const gen_alias_keys[] = {
        "symbol", "returns", "params", "variadic", "version", "symver", NULL,
};

/* A new alias of row `row`, its prototype borrowed until restated. */
static struct gen_func *gen_alias_new(struct gen_ctx *c, struct gen_spec *s, size_t row)
{
	const struct gen_func *f = &s->funcs[row];
	struct gen_func *a;

	s->aliases = realloc(s->aliases, (s->naliases + 1) * sizeof *s->aliases);
	if (s->aliases == NULL) {
		fputs("apiprof-gen: out of memory\n", stderr);
		exit(1);
	}
	a = &s->aliases[s->naliases++];
	memset(a, 0, sizeof *a);
	a->pos = gen_locate(c->text, c->len, &c->at, false);
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
	a->borrowed_ret = a->borrowed_params = true;
	return a;
}

static int gen_alias_symbol(struct gen_ctx *c, struct gen_func *a, const char *sym)
{
	struct gen_quoted q;
	enum gen_name_err e = gen_check_symbol(sym);

	if (e != GEN_NAME_OK)
		return gen_err(c, "alias %s %s", gen_quote(&q, sym), gen_name_err_str(e));
	a->symbol = sym;
	/* A plain identifier names the wrapper itself, so the real header's
	 * declaration of it checks the prototype. */
	a->asm_label = gen_check_ident(sym, 1024) != GEN_NAME_OK;
	return 0;
}

/* "params" and "variadic" go together: an alias restating its
 * parameters is variadic only if it says so. */
static int gen_alias_params(struct gen_ctx *c, json_t *aj, struct gen_func *a, const char *owner)
{
	json_t *params;
	int rc = gen_field_array(c, aj, "params", owner, false, &params);

	if (rc < 0)
		return -1;
	if (rc == 0) {
		if (json_object_get(aj, "variadic") != NULL)
			return GEN_AT_KEY(c, "variadic",
			                  gen_err(c, "an alias with \"variadic\" needs its own "
			                             "\"params\""));
		return 0;
	}
	a->params = NULL;
	a->nparams = a->nextra = 0;
	a->extra = NULL;
	a->variadic = a->vtwin = false;
	a->borrowed_params = false;
	if (GEN_AT_KEY(c, "params", gen_load_params(c, params, a)) < 0)
		return -1;
	return gen_load_variadic(c, aj, owner, a);
}

static int gen_alias_object(struct gen_ctx *c, json_t *aj, struct gen_func *a)
{
	const char *sym, *owner = "alias";
	int rc;

	if (gen_check_keys(c, aj, gen_alias_keys, owner) < 0 ||
	    gen_field_str(c, aj, "symbol", owner, true, &sym) < 0 ||
	    GEN_AT_KEY(c, "symbol", gen_alias_symbol(c, a, sym)) < 0)
		return -1;
	if (json_object_get(aj, "returns") != NULL) {
		a->borrowed_ret = false;
		a->ret = NULL;
		if (gen_load_returns(c, aj, owner, a) < 0)
			return -1;
	}
	if (gen_alias_params(c, aj, a, owner) < 0 ||
	    gen_load_allowlisted(c, aj, "version", owner, gen_check_version, &a->version) < 0)
		return -1;
	rc = gen_load_symver(c, aj, owner, a);
	return rc < 0 ? -1 : 0;
}

static int gen_load_alias(struct gen_ctx *c, json_t *aj, struct gen_spec *s, size_t row)
{
	const struct gen_func *f = &s->funcs[row];
	struct gen_func *a = gen_alias_new(c, s, row);
	int rc;

	if (json_is_string(aj))
		rc = gen_alias_symbol(c, a, json_string_value(aj));
	else if (json_is_object(aj))
		rc = gen_alias_object(c, aj, a);
	else
		rc = gen_err(c, "an alias must be a symbol name or an object");
	if (rc < 0)
		return -1;
	a->lookup = a->vtwin ? (a->borrowed_params ? f->lookup : a->lookup) : a->symbol;
	return json_is_object(aj) ? GEN_AT_KEY(c, "symbol", gen_check_export(c, s, a))
	                          : gen_check_export(c, s, a);
}

int gen_load_aliases(struct gen_ctx *c, json_t *fj, struct gen_spec *s, size_t row)
{
	json_t *arr;
	size_t i;
	int rc = gen_field_array(c, fj, "aliases", "function", false, &arr);

	if (rc <= 0)
		return rc;
	gen_path_key(&c->at, "aliases");
	for (i = 0, rc = 0; i < json_array_size(arr) && rc == 0; i++) {
		gen_path_index(&c->at, i);
		rc = gen_pop_rc(c, gen_load_alias(c, json_array_get(arr, i), s, row));
	}
	return gen_pop_rc(c, rc);
}
