/* SPDX-License-Identifier: MIT */
/*
 * rpt_json.c - checked fields of an exit JSON (rpt_json.h).
 */
#include <stdio.h>
#include <string.h>

#include "rpt_json.h"
#include "rpt_model.h"

bool rpt_fail(struct rpt_ctx *c, const char *key, const char *what)
{
	bool at = c->where[0] || key;

	if (c->err[0] == '\0')
		snprintf(c->err, sizeof c->err, "%s: %s%s%s%s%s", c->file, c->where,
		         c->where[0] && key ? "." : "", key ? key : "", at ? ": " : "", what);
	return false;
}

size_t rpt_enter(struct rpt_ctx *c, const char *key, long i)
{
	size_t len = strlen(c->where);

	if (i < 0)
		snprintf(c->where + len, sizeof c->where - len, "%s%s", len ? "." : "", key);
	else
		snprintf(c->where + len, sizeof c->where - len, "%s%s[%ld]", len ? "." : "", key,
		         i);
	return len;
}

void rpt_leave(struct rpt_ctx *c, size_t len)
{
	c->where[len] = '\0';
}

/* The member key of o: NULL and true when absent and opt or when null
 * and nullable; false (an error) otherwise when absent. */
static bool member(struct rpt_ctx *c, json_t *o, const char *key, int flags, json_t **m)
{
	*m = json_object_get(o, key);
	if (*m == NULL && !(flags & RPT_OPT))
		return rpt_fail(c, key, "missing");
	if (*m != NULL && json_is_null(*m)) {
		if (!(flags & RPT_NULLABLE))
			return rpt_fail(c, key, "null where a value is needed");
		*m = NULL;
	}
	return true;
}

bool rpt_u64(struct rpt_ctx *c, json_t *o, const char *key, uint64_t *v, int flags)
{
	json_t *m;

	*v = RPT_NONE;
	if (!member(c, o, key, flags, &m))
		return false;
	if (m == NULL)
		return true;
	if (!json_is_integer(m))
		return rpt_fail(c, key, "not an integer");
	if (json_integer_value(m) < 0)
		return rpt_fail(c, key, "negative");
	if (json_integer_value(m) > RPT_VALUE_MAX && !(flags & RPT_WIDE))
		return rpt_fail(c, key, "too large (over 2^53, past what a report shows exactly)");
	*v = (uint64_t)json_integer_value(m);
	return true;
}

bool rpt_str(struct rpt_ctx *c, json_t *o, const char *key, const char **v, int flags)
{
	json_t *m;

	*v = NULL;
	if (!member(c, o, key, flags, &m))
		return false;
	if (m == NULL)
		return true;
	if (!json_is_string(m))
		return rpt_fail(c, key, "not a string");
	*v = json_string_value(m);
	return true;
}

bool rpt_bool(struct rpt_ctx *c, json_t *o, const char *key, bool *v, int flags)
{
	json_t *m;

	*v = false;
	if (!member(c, o, key, flags, &m))
		return false;
	if (m != NULL && !json_is_boolean(m))
		return rpt_fail(c, key, "not true or false");
	*v = m != NULL && json_is_true(m);
	return true;
}

json_t *rpt_array(struct rpt_ctx *c, json_t *o, const char *key, int flags)
{
	static json_t *empty;
	json_t *m = json_object_get(o, key);

	if (empty == NULL)
		empty = json_array();
	if (m == NULL && (flags & RPT_OPT))
		return empty;
	if (m == NULL)
		return rpt_fail(c, key, "missing"), NULL;
	if (!json_is_array(m))
		return rpt_fail(c, key, "not an array"), NULL;
	return m;
}

json_t *rpt_object_at(struct rpt_ctx *c, json_t *a, size_t i, const char *key)
{
	json_t *e = json_array_get(a, i);

	if (json_is_object(e))
		return e;
	char k[64];
	snprintf(k, sizeof k, "%s[%zu]", key, i);
	rpt_fail(c, k, "not an object");
	return NULL;
}

bool rpt_add(struct rpt_ctx *c, const char *key, uint64_t *sum, uint64_t v)
{
	if (v > INT64_MAX || *sum + v > INT64_MAX)
		return rpt_fail(c, key, "too large: the figures add up past 2^63");
	*sum += v;
	return true;
}
