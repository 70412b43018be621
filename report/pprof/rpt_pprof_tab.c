/* SPDX-License-Identifier: MIT */
/*
 * rpt_pprof_tab.c - the tables of a profile being built (rpt_pprof_tab.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpt_pprof_tab.h"

void pb_init(struct pb *b)
{
	memset(b, 0, sizeof *b);
	perftools__profiles__profile__init(&b->prof);
	b->ids = json_object();
	b->oom = b->ids == NULL;
	pb_str(b, ""); /* index 0 */
}

bool pb_push(struct pb *b, struct vec *v, void *p)
{
	if (p == NULL)
		return false;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		void **n = realloc(v->v, cap * sizeof *n);

		if (n == NULL) {
			b->oom = true;
			return false;
		}
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = p;
	return true;
}

void *pb_alloc(struct pb *b, size_t size)
{
	void *p = calloc(1, size);

	if (p == NULL || !pb_push(b, &b->mem, p)) {
		free(p);
		b->oom = true;
		return NULL;
	}
	return p;
}

/* The value kept for key ("s:..."), or -1. */
static json_int_t lookup(struct pb *b, const char *kind, const char *name, char **key)
{
	if (asprintf(key, "%s%s", kind, name) < 0) {
		*key = NULL;
		b->oom = true;
		return -1;
	}
	json_t *v = json_object_get(b->ids, *key);
	return v ? json_integer_value(v) : -1;
}

static void remember(struct pb *b, char *key, json_int_t v)
{
	if (key && json_object_set_new(b->ids, key, json_integer(v)) != 0)
		b->oom = true;
	free(key);
}

int64_t pb_str(struct pb *b, const char *s)
{
	char *key;
	json_int_t i = lookup(b, "s:", s, &key);

	if (i >= 0 || key == NULL) {
		free(key);
		return i < 0 ? 0 : i;
	}
	char *copy = pb_alloc(b, strlen(s) + 1);
	if (copy == NULL || !pb_push(b, &b->strs, strcpy(copy, s))) {
		free(key);
		return 0;
	}
	remember(b, key, (json_int_t)b->strs.n - 1);
	return (int64_t)b->strs.n - 1;
}

uint64_t pb_func(struct pb *b, const char *name)
{
	char *key;
	json_int_t i = lookup(b, "f:", name, &key);
	pb_function *f = i < 0 && key ? pb_alloc(b, sizeof *f) : NULL;

	if (f == NULL) {
		free(key);
		return i < 0 ? 0 : (uint64_t)i;
	}
	perftools__profiles__function__init(f);
	f->id = b->funcs.n + 1;
	f->name = f->system_name = pb_str(b, name);
	pb_push(b, &b->funcs, f);
	remember(b, key, (json_int_t)f->id);
	return f->id;
}

uint64_t pb_map(struct pb *b, const char *module)
{
	char *key;
	json_int_t i = lookup(b, "m:", module, &key);
	pb_mapping *m = i < 0 && key ? pb_alloc(b, sizeof *m) : NULL;

	if (m == NULL) {
		free(key);
		return i < 0 ? 0 : (uint64_t)i;
	}
	perftools__profiles__mapping__init(m);
	m->id = b->maps.n + 1;
	m->filename = pb_str(b, module);
	m->memory_limit = UINT64_MAX;
	m->has_functions = true;
	pb_push(b, &b->maps, m);
	remember(b, key, (json_int_t)m->id);
	return m->id;
}

/* A new location of one line: function fn at line. */
static pb_location *new_loc(struct pb *b, uint64_t fn, int64_t line)
{
	pb_location *l = pb_alloc(b, sizeof *l);
	pb_line *ln = pb_alloc(b, sizeof *ln);
	pb_line **lines = pb_alloc(b, sizeof *lines);

	if (l == NULL || ln == NULL || lines == NULL)
		return NULL;
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(ln);
	ln->function_id = fn;
	ln->line = line;
	lines[0] = ln;
	l->line = lines;
	l->n_line = 1;
	l->id = b->locs.n + 1;
	return pb_push(b, &b->locs, l) ? l : NULL;
}

uint64_t pb_loc_func(struct pb *b, const char *name)
{
	char *key;
	json_int_t i = lookup(b, "l:", name, &key);

	if (i >= 0 || key == NULL) {
		free(key);
		return i < 0 ? 0 : (uint64_t)i;
	}
	pb_location *l = new_loc(b, pb_func(b, name), 0);
	remember(b, key, l ? (json_int_t)l->id : 0);
	return l ? l->id : 0;
}

uint64_t pb_loc_site(struct pb *b, const struct rpt_site *s)
{
	char name[1200], id[2600];
	bool off = s->offset != RPT_NONE;

	snprintf(name, sizeof name, "%s", s->symbol ? s->symbol : "");
	if (s->symbol == NULL)
		snprintf(name, sizeof name, "%s+0x%llx", s->module ? s->module : "(unknown)",
		         off ? (unsigned long long)s->offset : 0ull);
	snprintf(id, sizeof id, "%s|%s|%llx", name, s->module ? s->module : "",
	         off ? (unsigned long long)s->offset : 0ull);
	char *key;
	json_int_t i = lookup(b, "l:site:", id, &key);
	if (i >= 0 || key == NULL) {
		free(key);
		return i < 0 ? 0 : (uint64_t)i;
	}
	pb_location *l = new_loc(b, pb_func(b, name), s->line == RPT_NONE ? 0 : (int64_t)s->line);
	if (l && s->module) {
		l->mapping_id = pb_map(b, s->module);
		l->address = off ? s->offset : 0;
	}
	if (l && s->file)
		((pb_function *)b->funcs.v[l->line[0]->function_id - 1])->filename =
		        pb_str(b, s->file);
	remember(b, key, l ? (json_int_t)l->id : 0);
	return l ? l->id : 0;
}

void pb_finish(struct pb *b)
{
	b->prof.string_table = (char **)b->strs.v;
	b->prof.n_string_table = b->strs.n;
	b->prof.function = (pb_function **)b->funcs.v;
	b->prof.n_function = b->funcs.n;
	b->prof.mapping = (pb_mapping **)b->maps.v;
	b->prof.n_mapping = b->maps.n;
	b->prof.location = (pb_location **)b->locs.v;
	b->prof.n_location = b->locs.n;
	b->prof.sample = (pb_sample **)b->samples.v;
	b->prof.n_sample = b->samples.n;
	b->prof.sample_type = (pb_value_type **)b->types.v;
	b->prof.n_sample_type = b->types.n;
}

void pb_free(struct pb *b)
{
	for (size_t i = 0; i < b->mem.n; i++)
		free(b->mem.v[i]);
	struct vec *all[] = {&b->mem,  &b->strs,    &b->funcs, &b->maps,
	                     &b->locs, &b->samples, &b->types};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		free(all[i]->v);
	json_decref(b->ids);
}
