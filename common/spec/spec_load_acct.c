// SPDX-License-Identifier: MIT
/*
 * spec_load_acct.c - what a function declares about its calls' work and
 * failures: "bytes", "fails" and "errno" (issue 24).
 *
 * The declaration is checked against the function's prototype: a
 * parameter named by "bytes" must exist and be an integer, "return"
 * needs an integer return, and each "fails" rule needs the return type it
 * can judge.  An alias has its row's declaration; one that restates its
 * prototype is checked again against its own (spec_acct_check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_field.h"
#include "spec_load.h"

struct fails_rule {
	const char *word;
	enum spec_fails rule;
	bool pointer; /* judges a pointer (else an integer) */
	bool is_signed;
};

static const struct fails_rule fails_rules[] = {
        {"negative", SPEC_FAILS_NEGATIVE, false, true},
        {"nonpositive", SPEC_FAILS_NONPOSITIVE, false, true},
        {"minus_one", SPEC_FAILS_MINUS_ONE, false, false},
        {"null", SPEC_FAILS_NULL, true, false},
        {"nonzero", SPEC_FAILS_NONZERO, false, false},
        {"zero", SPEC_FAILS_ZERO, false, false},
};

static int bytes_name(struct spec_ctx *c, json_t *v, struct spec_acct *a, size_t k)
{
	if (!json_is_string(v))
		return spec_err(c,
		                "\"bytes\" must be \"return\", a parameter name or a list of two "
		                "parameter names");
	a->bname[k] = json_string_value(v);
	return 0;
}

static int load_bytes(struct spec_ctx *c, json_t *v, struct spec_acct *a)
{
	if (json_is_string(v) && strcmp(json_string_value(v), "return") == 0) {
		a->bytes = SPEC_BYTES_RETURN;
		return 0;
	}
	if (!json_is_array(v)) {
		a->bytes = SPEC_BYTES_PARAM;
		return bytes_name(c, v, a, 0);
	}
	if (json_array_size(v) != 2)
		return spec_err(c,
		                "\"bytes\" as a list names two parameters (their product), not "
		                "%zu",
		                json_array_size(v));
	a->bytes = SPEC_BYTES_PRODUCT;
	for (size_t k = 0; k < 2; k++) {
		spec_path_index(&c->at, k);
		if (spec_pop_rc(c, bytes_name(c, json_array_get(v, k), a, k)) < 0)
			return -1;
	}
	return 0;
}

/* {"not": [0, 100, 101]}: the values that are not failures. */
static int load_not(struct spec_ctx *c, json_t *v, struct spec_acct *a)
{
	static const char *const keys[] = {"not", NULL};
	json_t *arr;

	if (spec_check_keys(c, v, keys, "\"fails\"") < 0 ||
	    spec_field_array(c, v, "not", "\"fails\"", true, &arr) < 0)
		return -1;
	if (json_array_size(arr) == 0)
		return SPEC_AT_KEY(c, "not", spec_err(c, "\"not\" must list at least one value"));
	a->fails = SPEC_FAILS_NOT;
	a->ok = spec_xcalloc(json_array_size(arr), sizeof *a->ok);
	for (size_t i = 0; i < json_array_size(arr); i++) {
		json_t *x = json_array_get(arr, i);
		if (!json_is_integer(x)) {
			spec_path_key(&c->at, "not");
			spec_path_index(&c->at, i);
			int rc = spec_err(c, "\"not\" must list integers");
			spec_path_pop(&c->at);
			return spec_pop_rc(c, rc);
		}
		a->ok[a->nok++] = json_integer_value(x);
	}
	return 0;
}

static int load_fails(struct spec_ctx *c, json_t *v, struct spec_acct *a)
{
	if (json_is_object(v))
		return load_not(c, v, a);
	for (size_t i = 0; json_is_string(v) && i < sizeof fails_rules / sizeof fails_rules[0]; i++)
		if (strcmp(json_string_value(v), fails_rules[i].word) == 0) {
			a->fails = fails_rules[i].rule;
			return 0;
		}
	return spec_err(c,
	                "\"fails\" must be \"negative\", \"nonpositive\", \"minus_one\", \"null\", "
	                "\"nonzero\", \"zero\" or {\"not\": [values]}");
}

int spec_load_acct(struct spec_ctx *c, json_t *fj, const char *owner, struct spec_func *f)
{
	struct spec_acct *a = &f->acct;
	json_t *v;

	if (spec_field_bool(c, fj, "errno", owner, &a->err_no) < 0)
		return -1;
	if ((v = json_object_get(fj, "bytes")) != NULL &&
	    SPEC_AT_KEY(c, "bytes", load_bytes(c, v, a)) < 0)
		return -1;
	if ((v = json_object_get(fj, "fails")) != NULL &&
	    SPEC_AT_KEY(c, "fails", load_fails(c, v, a)) < 0)
		return -1;
	if (f->noreturn && (a->bytes != SPEC_BYTES_NONE || a->fails != SPEC_FAILS_NONE))
		return spec_err(c, "a noreturn function has no return to judge: it cannot "
		                   "declare \"bytes\" or \"fails\"");
	if (a->err_no && a->fails == SPEC_FAILS_NONE)
		return SPEC_AT_KEY(c, "errno",
		                   spec_err(c,
		                            "\"errno\" needs \"fails\": errno is read only when a "
		                            "call failed"));
	return spec_acct_check(c, f, "bytes", "fails");
}

static void type_text(const struct spec_ctype *t, struct spec_buf *b)
{
	spec_buf_init(b);
	spec_ctype_format(t, NULL, b);
}

/* "f", or "alias f64 of f" */
static const char *who(const struct spec_func *f, struct spec_buf *b)
{
	spec_buf_init(b);
	if (f->alias)
		spec_buf_printf(b, "alias %s of ", f->symbol);
	spec_buf_puts(b, f->name);
	return spec_buf_str(b);
}

/* The index of the parameter that "bytes" names, which must be an integer. */
static int check_param(struct spec_ctx *c, const struct spec_func *f, size_t k, size_t *out)
{
	const char *name = f->acct.bname[k];
	struct spec_buf b, w;

	for (size_t i = 0; i < f->nparams; i++) {
		if (strcmp(f->params[i].name, name) != 0)
			continue;
		if (f->params[i].type->may_be_int) {
			*out = i;
			return 0;
		}
		type_text(f->params[i].type, &b);
		int rc = spec_err(c, "\"bytes\": parameter \"%s\" of %s is '%s', not an integer",
		                  name, who(f, &w), spec_buf_str(&b));
		spec_buf_free(&b);
		spec_buf_free(&w);
		return rc;
	}
	int rc = spec_err(c, "\"bytes\": %s has no parameter \"%s\"", who(f, &w), name);
	spec_buf_free(&w);
	return rc;
}

static int check_bytes(struct spec_ctx *c, struct spec_func *f)
{
	struct spec_acct *a = &f->acct;
	struct spec_buf b;

	if (a->bytes == SPEC_BYTES_PARAM || a->bytes == SPEC_BYTES_PRODUCT)
		for (size_t k = 0; k < (a->bytes == SPEC_BYTES_PRODUCT ? 2u : 1u); k++)
			if (check_param(c, f, k, &a->bparam[k]) < 0)
				return -1;
	if (a->bytes != SPEC_BYTES_RETURN || f->ret->may_be_int)
		return 0;
	type_text(f->ret, &b);
	int rc = spec_err(c, "\"bytes\": \"return\" needs an integer return type, not '%s'",
	                  spec_buf_str(&b));
	spec_buf_free(&b);
	return rc;
}

static int check_fails(struct spec_ctx *c, const struct spec_func *f)
{
	const struct spec_ctype *r = f->ret;
	const char *need = "an integer";
	char word[32] = "{\"not\": [...]}";
	bool ok = r->may_be_int;
	struct spec_buf b;

	for (size_t i = 0; i < sizeof fails_rules / sizeof fails_rules[0]; i++) {
		if (fails_rules[i].rule != f->acct.fails)
			continue;
		snprintf(word, sizeof word, "\"%s\"", fails_rules[i].word);
		if (fails_rules[i].pointer) {
			ok = r->kind == SPEC_CT_POINTER;
			need = "a pointer";
		} else if (fails_rules[i].is_signed) {
			ok = r->is_signed_int;
			need = "a signed integer";
		}
	}
	if (f->acct.fails == SPEC_FAILS_NONE || ok)
		return 0;
	type_text(r, &b);
	int rc = spec_err(c, "\"fails\": %s needs %s return type, not '%s'", word, need,
	                  spec_buf_str(&b));
	spec_buf_free(&b);
	return rc;
}

int spec_acct_check(struct spec_ctx *c, struct spec_func *f, const char *bytes_key,
                    const char *fails_key)
{
	if (f->acct.bytes != SPEC_BYTES_NONE &&
	    (bytes_key ? SPEC_AT_KEY(c, bytes_key, check_bytes(c, f)) : check_bytes(c, f)) < 0)
		return -1;
	if (f->acct.fails == SPEC_FAILS_NONE)
		return 0;
	return fails_key ? SPEC_AT_KEY(c, fails_key, check_fails(c, f)) : check_fails(c, f);
}
