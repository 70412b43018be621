// SPDX-License-Identifier: MIT
/*
 * gen_load_types.c - validation of the top-level "types" section.
 *
 *   "types": {"struct tl_pair": {"kind": "struct",
 *                                "members": [{"type": "int", "name": "a"}, ...]}}
 *
 * Generated shims take layouts from the real headers and ignore this
 * section; it is for callers that build calls without headers (libffi
 * dynamic mode), and `apiprof-gen import` fills it in for every struct or
 * union passed by value.  It is validated like the rest of the spec, so a
 * spec that --check accepts is one such callers can rely on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_field.h"
#include "gen_load.h"

#define GEN_MAX_TYPES   1024
#define GEN_MAX_MEMBERS 1024

static const char *const gen_typedef_keys[] = {"kind", "members", NULL};
static const char *const gen_member_keys[] = {"type", "name", "bits", NULL};

/* A bit-field's width: 1..64 (the widest integer type). */
static int gen_load_bits(struct gen_ctx *c, json_t *mj, struct gen_member *m)
{
	json_t *v = json_object_get(mj, "bits");

	if (v == NULL)
		return 0;
	gen_path_key(&c->at, "bits");
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 64)
		return gen_pop_rc(c, gen_err(c, "\"bits\" must be an integer from 1 to 64"));
	m->bits = (int)json_integer_value(v);
	return gen_pop_rc(c, 0);
}

static int gen_check_member_type(struct gen_ctx *c, const struct gen_ctype *t)
{
	if (t->is_void)
		return gen_err(c, "a member cannot have type void");
	if (t->kind == GEN_CT_FUNCTION)
		return gen_err(c, "a member cannot be a function (use a pointer)");
	return 0;
}

static int gen_load_member(struct gen_ctx *c, json_t *mj, size_t i, struct gen_member *m)
{
	char owner[32];
	const char *type;
	int rc;

	snprintf(owner, sizeof owner, "members[%zu]", i);
	if (!json_is_object(mj))
		return gen_err(c, "%s must be an object", owner);
	if (gen_check_keys(c, mj, gen_member_keys, owner) < 0 ||
	    gen_field_str(c, mj, "type", owner, true, &type) < 0 ||
	    (rc = gen_field_str(c, mj, "name", owner, false, &m->name)) < 0)
		return -1;
	if (rc > 0 &&
	    GEN_AT_KEY(c, "name", gen_load_ident(c, "member name", m->name, GEN_FUNC_NAME_MAX)) < 0)
		return -1;
	if (GEN_AT_KEY(c, "type", gen_load_type(c, type, &m->type)) < 0 ||
	    GEN_AT_KEY(c, "type", gen_check_member_type(c, m->type)) < 0)
		return -1;
	return gen_load_bits(c, mj, m);
}

static int gen_load_members(struct gen_ctx *c, json_t *arr, struct gen_typedef *t)
{
	size_t i, n = json_array_size(arr);
	int rc = 0;

	if (n == 0)
		return gen_err(c, "\"members\" must not be empty");
	if (n > GEN_MAX_MEMBERS)
		return gen_err(c, "more than %d members", GEN_MAX_MEMBERS);
	t->members = gen_xcalloc(n, sizeof *t->members);
	for (i = 0; i < n && rc == 0; i++) {
		gen_path_index(&c->at, i);
		rc = gen_pop_rc(c, gen_load_member(c, json_array_get(arr, i), i, &t->members[i]));
		t->nmembers = i + 1;
	}
	return rc;
}

/* The key names the type as parameters spell it: a struct, union or
 * typedef name, nothing with a declarator. */
static int gen_load_typedef_name(struct gen_ctx *c, const char *name)
{
	struct gen_ctype_err err;
	struct gen_quoted q;
	struct gen_ctype *t = gen_ctype_parse(name, &err);
	int rc = 0;

	if (t == NULL)
		return gen_err_key(c, "type %s: %s", gen_quote(&q, name), err.msg);
	if (t->kind != GEN_CT_BASE || t->is_void)
		rc = gen_err_key(c, "type %s must be a struct, union or typedef name",
		                 gen_quote(&q, name));
	gen_ctype_free(t);
	return rc;
}

static int gen_load_kind(struct gen_ctx *c, json_t *tj, struct gen_typedef *t)
{
	const char *kind;

	if (gen_field_str(c, tj, "kind", "a type", true, &kind) < 0)
		return -1;
	if (strcmp(kind, "union") == 0)
		t->is_union = true;
	else if (strcmp(kind, "struct") != 0)
		return GEN_AT_KEY(c, "kind",
		                  gen_err(c, "\"kind\" must be \"struct\" or \"union\""));
	return 0;
}

static int gen_load_typedef(struct gen_ctx *c, const char *name, json_t *tj, struct gen_typedef *t)
{
	json_t *members;

	t->name = name;
	t->pos = gen_locate(c->text, c->len, &c->at, true);
	if (gen_load_typedef_name(c, name) < 0)
		return -1;
	if (!json_is_object(tj))
		return gen_err(c, "type %s must be an object", name);
	if (gen_check_keys(c, tj, gen_typedef_keys, "a type") < 0 || gen_load_kind(c, tj, t) < 0 ||
	    gen_field_array(c, tj, "members", "a type", true, &members) < 0)
		return -1;
	return GEN_AT_KEY(c, "members", gen_load_members(c, members, t));
}

int gen_load_types(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	const char *name;
	json_t *obj, *tj;
	int rc = gen_field_object(c, root, "types", "the spec", &obj);

	if (rc <= 0)
		return rc;
	gen_path_key(&c->at, "types");
	if (json_object_size(obj) > GEN_MAX_TYPES)
		return gen_pop_rc(c, gen_err(c, "more than %d types", GEN_MAX_TYPES));
	s->types = gen_xcalloc(json_object_size(obj) + 1, sizeof *s->types);
	json_object_foreach(obj, name, tj)
	{
		gen_path_key(&c->at, name);
		rc = gen_pop_rc(c, gen_load_typedef(c, name, tj, &s->types[s->ntypes]));
		s->ntypes++;
		if (rc < 0)
			return gen_pop_rc(c, -1);
	}
	return gen_pop_rc(c, 0);
}

void gen_types_free(struct gen_spec *s)
{
	size_t i, j;

	for (i = 0; i < s->ntypes; i++) {
		for (j = 0; j < s->types[i].nmembers; j++)
			gen_ctype_free(s->types[i].members[j].type);
		free(s->types[i].members);
	}
	free(s->types);
}
