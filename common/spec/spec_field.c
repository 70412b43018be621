// SPDX-License-Identifier: MIT
/*
 * spec_field.c - typed member access with located errors.
 */
#include <string.h>

#include "spec_field.h"

static const char *spec_json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "a value";
}

/* The member, or NULL after reporting it missing when required. */
static json_t *spec_member(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                           bool required, int *rc)
{
	json_t *v = json_object_get(obj, key);

	*rc = 0;
	if (v == NULL && required)
		*rc = spec_err(c, "%s has no \"%s\"", owner, key);
	return v;
}

static int spec_wrong_type(struct spec_ctx *c, const char *key, const char *want, const json_t *v)
{
	spec_path_key(&c->at, key);
	spec_err(c, "\"%s\" must be %s, not %s", key, want, spec_json_kind(v));
	spec_path_pop(&c->at);
	return -1;
}

int spec_field_str(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                   bool required, const char **out)
{
	int rc;
	json_t *v = spec_member(c, obj, key, owner, required, &rc);

	if (v == NULL)
		return rc;
	if (!json_is_string(v))
		return spec_wrong_type(c, key, "a string", v);
	*out = json_string_value(v);
	return 1;
}

int spec_field_bool(struct spec_ctx *c, json_t *obj, const char *key, const char *owner, bool *out)
{
	int rc;
	json_t *v = spec_member(c, obj, key, owner, false, &rc);

	if (v == NULL)
		return rc;
	if (!json_is_boolean(v))
		return spec_wrong_type(c, key, "true or false", v);
	*out = json_is_true(v);
	return 1;
}

int spec_field_array(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                     bool required, json_t **out)
{
	int rc;
	json_t *v = spec_member(c, obj, key, owner, required, &rc);

	if (v == NULL)
		return rc;
	if (!json_is_array(v))
		return spec_wrong_type(c, key, "an array", v);
	*out = v;
	return 1;
}

int spec_field_object(struct spec_ctx *c, json_t *obj, const char *key, const char *owner,
                      json_t **out)
{
	int rc;
	json_t *v = spec_member(c, obj, key, owner, false, &rc);

	if (v == NULL)
		return rc;
	if (!json_is_object(v))
		return spec_wrong_type(c, key, "an object", v);
	*out = v;
	return 1;
}

static bool spec_allowed(const char *key, const char *const *allowed)
{
	for (; *allowed != NULL; allowed++)
		if (strcmp(key, *allowed) == 0)
			return true;
	return false;
}

int spec_check_keys(struct spec_ctx *c, json_t *obj, const char *const *allowed, const char *owner)
{
	struct spec_quoted q;
	const char *key;
	json_t *v;

	json_object_foreach(obj, key, v)
	{
		if (spec_allowed(key, allowed))
			continue;
		spec_path_key(&c->at, key);
		spec_err_key(c, "unknown key %s in %s", spec_quote(&q, key), owner);
		spec_path_pop(&c->at);
		return -1;
	}
	return 0;
}
