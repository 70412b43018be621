// SPDX-License-Identifier: MIT
/*
 * dyn_audit_slots.c - the symbols the audit module intercepts.
 *
 * It reads the same specs as the profiler, with the generator's own
 * loader, because it must know the names before the program's objects are
 * relocated, which is before any constructor of the profiler runs.  It
 * stays quiet about errors: the profiler loads the same files and reports
 * each problem once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_audit.h"
#include "dyn_spec.h"

#define DYN_MAX_SLOTS 65536

/* Always answered, even empty: the profiler then reports the specs'
 * errors itself instead of a missing audit module. */
static struct dyn_link table = {DYN_LINK_MAGIC, DYN_LINK_VERSION, 0, NULL};
static uint32_t *hash; /* slot index + 1; 0 = empty */
static size_t hash_mask;

struct dyn_audit_list {
	struct dyn_slot *v;
	size_t n, cap;
};

struct dyn_link *dyn_audit_table(void)
{
	return &table;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static bool same_slot(const struct dyn_slot *a, const char *sym, const char *ver)
{
	return strcmp(a->symbol, sym) == 0 &&
	       (a->version == ver || (a->version && ver && strcmp(a->version, ver) == 0));
}

/* The symbol a caller binds: the exported name, in the version the real
 * function has (a v-twin's version is the twin's, not the caller's). */
static void add_func(struct dyn_audit_list *l, const struct spec_func *f)
{
	const char *ver = f->vtwin ? NULL : f->version;

	for (size_t i = 0; i < l->n; i++)
		if (same_slot(&l->v[i], f->symbol, ver))
			return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (l->v == NULL)
			abort();
	}
	l->v[l->n].symbol = strdup(f->symbol);
	l->v[l->n].version = ver ? strdup(ver) : NULL;
	l->n++;
}

static void add_spec(const char *path, void *arg)
{
	struct dyn_audit_list *l = arg;
	const char *why;
	struct spec *s = dyn_spec_load(path, &why);

	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nfuncs && l->n < DYN_MAX_SLOTS; i++)
		add_func(l, &s->funcs[i]);
	for (size_t i = 0; i < s->naliases && l->n < DYN_MAX_SLOTS; i++)
		add_func(l, &s->aliases[i]);
	spec_free(s);
}

static void build_hash(void)
{
	size_t cap = 16;

	while (cap < 2 * (size_t)table.nslots)
		cap *= 2;
	hash = calloc(cap, sizeof(*hash));
	if (hash == NULL)
		abort();
	hash_mask = cap - 1;
	for (uint32_t i = 0; i < table.nslots; i++) {
		size_t h = name_hash(table.slots[i].symbol) & hash_mask;

		while (hash[h] != 0)
			h = (h + 1) & hash_mask;
		hash[h] = i + 1;
	}
}

/* The specs are parsed with stderr pointed at /dev/null: this copy of
 * libc's stderr is the audit namespace's own, the program's is untouched. */
/* The specs are parsed with stderr pointed at /dev/null: this copy of
 * libc's stderr is the audit namespace's own, the program's is untouched. */
static void load_quietly(struct dyn_audit_list *l, const char *specs)
{
	FILE *saved = stderr, *null = fopen("/dev/null", "we");

	if (null != NULL)
		stderr = null;
	dyn_spec_each(specs, add_spec, l);
	stderr = saved;
	if (null != NULL)
		fclose(null);
}

int dyn_audit_load(const char *specs)
{
	struct dyn_audit_list l = {0};
	struct dyn_slot *slots;

	load_quietly(&l, specs);
	if (l.n == 0 || (slots = dyn_audit_stubs(l.n)) == NULL)
		return -1;
	for (size_t i = 0; i < l.n; i++) {
		slots[i].symbol = l.v[i].symbol;
		slots[i].version = l.v[i].version;
	}
	free(l.v);
	table.slots = slots;
	table.nslots = (uint32_t)l.n;
	build_hash();
	return 0;
}

/* An unversioned slot takes the definition an unversioned reference
 * would get (the default version, or no version); a versioned one only
 * that version. */
static bool version_ok(const struct dyn_slot *s, const char *ver, bool hidden)
{
	if (s->version == NULL)
		return !hidden;
	return ver != NULL && strcmp(ver, s->version) == 0;
}

struct dyn_slot *dyn_audit_find(const char *name, struct link_map *def, unsigned ndx)
{
	const char *ver = NULL;
	bool hidden = false, looked = false;

	for (size_t h = name_hash(name) & hash_mask; hash[h] != 0; h = (h + 1) & hash_mask) {
		struct dyn_slot *s = &table.slots[hash[h] - 1];

		if (strcmp(s->symbol, name) != 0)
			continue;
		if (!looked) {
			ver = dyn_audit_version(def, ndx, &hidden);
			looked = true;
		}
		if (version_ok(s, ver, hidden))
			return s;
	}
	return NULL;
}
