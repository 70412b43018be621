// SPDX-License-Identifier: MIT
/*
 * spec_load_types.c - validation of the top-level "types" section.
 *
 *   "types": {"struct tl_pair": {"kind": "struct",
 *                                "members": [{"type": "int", "name": "a"}, ...]},
 *             "xmlChar": {"kind": "typedef", "type": "unsigned char"},
 *             "enum tl_color": {"kind": "enum", "type": "unsigned int"}}
 *
 * Generated shims take types from the real headers and ignore this
 * section; it is for callers that build calls without headers (libffi
 * dynamic mode), and `apiprof-gen import` fills it in for every struct,
 * union, typedef and enum passed by value.  It is validated like the rest
 * of the spec, so a spec that --check accepts is one such callers can
 * rely on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_field.h"
#include "spec_load.h"

#define SPEC_MAX_TYPES   1024
#define SPEC_MAX_MEMBERS 1024

static const char *const spec_record_keys[] = {"kind", "members", NULL};
static const char *const spec_alias_keys[] = {"kind", "type", NULL};
static const char *const spec_member_keys[] = {"type", "name", "bits", NULL};

/* A bit-field's width: 1..64 (the widest integer type). */
static int spec_load_bits(struct spec_ctx *c, json_t *mj, struct spec_member *m)
{
	json_t *v = json_object_get(mj, "bits");

	if (v == NULL)
		return 0;
	spec_path_key(&c->at, "bits");
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 64)
		return spec_pop_rc(c, spec_err(c, "\"bits\" must be an integer from 1 to 64"));
	m->bits = (int)json_integer_value(v);
	return spec_pop_rc(c, 0);
}

static int spec_check_member_type(struct spec_ctx *c, const struct spec_ctype *t)
{
	if (t->is_void)
		return spec_err(c, "a member cannot have type void");
	if (t->kind == SPEC_CT_FUNCTION)
		return spec_err(c, "a member cannot be a function (use a pointer)");
	return 0;
}

static int spec_load_member(struct spec_ctx *c, json_t *mj, size_t i, struct spec_member *m)
{
	char owner[32];
	const char *type;
	int rc;

	snprintf(owner, sizeof owner, "members[%zu]", i);
	if (!json_is_object(mj))
		return spec_err(c, "%s must be an object", owner);
	if (spec_check_keys(c, mj, spec_member_keys, owner) < 0 ||
	    spec_field_str(c, mj, "type", owner, true, &type) < 0 ||
	    (rc = spec_field_str(c, mj, "name", owner, false, &m->name)) < 0)
		return -1;
	if (rc > 0 &&
	    SPEC_AT_KEY(c, "name", spec_load_ident(c, "member name", m->name, SPEC_FUNC_NAME_MAX)) <
	            0)
		return -1;
	if (SPEC_AT_KEY(c, "type", spec_load_type(c, type, &m->type)) < 0 ||
	    SPEC_AT_KEY(c, "type", spec_check_member_type(c, m->type)) < 0)
		return -1;
	return spec_load_bits(c, mj, m);
}

static int spec_load_members(struct spec_ctx *c, json_t *arr, struct spec_typedef *t)
{
	size_t n = json_array_size(arr);
	int rc = 0;

	if (n == 0)
		return spec_err(c, "\"members\" must not be empty");
	if (n > SPEC_MAX_MEMBERS)
		return spec_err(c, "more than %d members", SPEC_MAX_MEMBERS);
	t->members = spec_xcalloc(n, sizeof *t->members);
	for (size_t i = 0; i < n && rc == 0; i++) {
		spec_path_index(&c->at, i);
		rc = spec_pop_rc(c, spec_load_member(c, json_array_get(arr, i), i, &t->members[i]));
		t->nmembers = i + 1;
	}
	return rc;
}

/* The key names the type as parameters spell it: a struct, union or
 * typedef name, nothing with a declarator. */
static int spec_load_typedef_name(struct spec_ctx *c, const char *name)
{
	struct spec_ctype_err err;
	struct spec_quoted q;
	struct spec_ctype *t = spec_ctype_parse(name, &err);
	int rc = 0;

	if (t == NULL)
		return spec_err_key(c, "type %s: %s", spec_quote(&q, name), err.msg);
	if (t->kind != SPEC_CT_BASE || t->is_void)
		rc = spec_err_key(c, "type %s must be a struct, union or typedef name",
		                  spec_quote(&q, name));
	spec_ctype_free(t);
	return rc;
}

static int spec_load_kind(struct spec_ctx *c, json_t *tj, struct spec_typedef *t)
{
	static const char *const kinds[] = {"struct", "union", "typedef", "enum"};
	const char *kind;

	if (spec_field_str(c, tj, "kind", "a type", true, &kind) < 0)
		return -1;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kind, kinds[i]) == 0) {
			t->kind = (enum spec_type_kind)i;
			return 0;
		}
	return SPEC_AT_KEY(c, "kind",
	                   spec_err(c, "\"kind\" must be \"struct\", \"union\", \"typedef\" or "
	                               "\"enum\""));
}

static bool spec_is_int_word(const struct spec_tok *k)
{
	static const char *const words[] = {"signed", "unsigned", "char", "short", "int", "long"};

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (k->n == strlen(words[i]) && memcmp(k->s, words[i], k->n) == 0)
			return true;
	return false;
}

/* An enum's type: builtin integer keywords only ("unsigned int"). */
static int spec_check_enum_type(struct spec_ctx *c, const struct spec_ctype *t)
{
	bool ok = t->kind == SPEC_CT_BASE;

	for (size_t i = 0; ok && i < t->ntoks; i++)
		ok = spec_is_int_word(&t->toks[i]);
	return ok ? 0 : spec_err(c, "the type of an enum must be an integer type");
}

/* "xmlChar": {"kind": "typedef", "type": ...}, "enum X": {"kind": "enum", ...} */
static int spec_load_alias(struct spec_ctx *c, const char *name, json_t *tj, struct spec_typedef *t)
{
	struct spec_quoted q;
	const char *type;
	bool is_enum = t->kind == SPEC_TYPE_ENUM;
	const char *id = is_enum && strncmp(name, "enum ", 5) == 0 ? name + 5 : name;

	if ((is_enum && id == name) || spec_check_ident(id, SPEC_FUNC_NAME_MAX) != SPEC_NAME_OK)
		return spec_err_key(c, "type %s of kind \"%s\" must be %s", spec_quote(&q, name),
		                    is_enum ? "enum" : "typedef",
		                    is_enum ? "\"enum NAME\"" : "a typedef name");
	if (spec_check_keys(c, tj, spec_alias_keys, "a typedef or enum") < 0 ||
	    spec_field_str(c, tj, "type", "a typedef or enum", true, &type) < 0 ||
	    SPEC_AT_KEY(c, "type", spec_load_type(c, type, &t->type)) < 0)
		return -1;
	return is_enum ? SPEC_AT_KEY(c, "type", spec_check_enum_type(c, t->type)) : 0;
}

static int spec_load_typedef(struct spec_ctx *c, const char *name, json_t *tj,
                             struct spec_typedef *t)
{
	json_t *members;

	t->name = name;
	t->pos = spec_locate(c->text, c->len, &c->at, true);
	if (spec_load_typedef_name(c, name) < 0)
		return -1;
	if (!json_is_object(tj))
		return spec_err(c, "type %s must be an object", name);
	if (spec_load_kind(c, tj, t) < 0)
		return -1;
	if (t->kind == SPEC_TYPE_TYPEDEF || t->kind == SPEC_TYPE_ENUM)
		return spec_load_alias(c, name, tj, t);
	if (spec_check_keys(c, tj, spec_record_keys, "a struct or union") < 0 ||
	    spec_field_array(c, tj, "members", "a struct or union", true, &members) < 0)
		return -1;
	return SPEC_AT_KEY(c, "members", spec_load_members(c, members, t));
}

int spec_load_types(struct spec_ctx *c, json_t *root, struct spec *s)
{
	const char *name;
	json_t *obj, *tj;
	int rc = spec_field_object(c, root, "types", "the spec", &obj);

	if (rc <= 0)
		return rc;
	spec_path_key(&c->at, "types");
	if (json_object_size(obj) > SPEC_MAX_TYPES)
		return spec_pop_rc(c, spec_err(c, "more than %d types", SPEC_MAX_TYPES));
	s->types = spec_xcalloc(json_object_size(obj) + 1, sizeof *s->types);
	json_object_foreach(obj, name, tj)
	{
		spec_path_key(&c->at, name);
		rc = spec_pop_rc(c, spec_load_typedef(c, name, tj, &s->types[s->ntypes]));
		s->ntypes++;
		if (rc < 0)
			return spec_pop_rc(c, -1);
	}
	return spec_pop_rc(c, 0);
}

void spec_types_free(struct spec *s)
{
	for (size_t i = 0; i < s->ntypes; i++) {
		for (size_t j = 0; j < s->types[i].nmembers; j++)
			spec_ctype_free(s->types[i].members[j].type);
		free(s->types[i].members);
		spec_ctype_free(s->types[i].type);
	}
	free(s->types);
}
