// SPDX-License-Identifier: MIT
/*
 * dyn_init.c - start-up of libapiprof-dyn.so.
 *
 * The constructor finds the audit module's table, loads every spec of
 * APIPROF_SPEC (spec.json[:spec2.json...]) with the generator's loader,
 * registers one api per spec with the runtime, and builds and installs a
 * closure per function and alias.  A spec that does not load is reported
 * (in the generator's words, or "not a regular file") and skipped, as are
 * the specs past the runtime's api ids (one line for them all); a function whose types cannot
 * be mapped is reported and left unprofiled; the rest goes on.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "dyn.h"
#include "dyn_spec.h"
#include "spec_diag.h"

static struct dyn_link *link_table;

/* What the dlsym below finds when the audit module is absent: its
 * presence is exactly that the module answers this lookup instead. */
__attribute__((visibility("default"))) struct dyn_link *apiprof_dyn_link(void)
{
	return NULL;
}

static void vsay(const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "apiprof: %s\n", msg);
}

void dyn_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void dyn_tell(int level, const char *fmt, ...)
{
	va_list ap;

	if (apiprof_say() < level)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

static struct dyn_link *find_link(void)
{
	void *p = dlsym(RTLD_DEFAULT, DYN_LINK_SYMBOL);
	dyn_link_fn fn;

	if (p == NULL)
		return NULL;
	memcpy(&fn, &p, sizeof(fn));
	struct dyn_link *l = fn();
	if (l == NULL || l->magic != DYN_LINK_MAGIC || l->version != DYN_LINK_VERSION)
		return NULL;
	return l;
}

/* The same (symbol, version) rule as the audit module's slots. */
struct dyn_slot *dyn_slot_for(const struct spec_func *g)
{
	const char *ver = g->vtwin ? NULL : g->version;

	for (uint32_t i = 0; link_table && i < link_table->nslots; i++) {
		struct dyn_slot *s = &link_table->slots[i];

		if (strcmp(s->symbol, g->symbol) == 0 &&
		    (s->version == ver || (s->version && ver && strcmp(s->version, ver) == 0)))
			return s;
	}
	return NULL;
}

void *dyn_unstub(void *p)
{
	for (uint32_t i = 0; p && link_table && i < link_table->nslots; i++)
		if (link_table->slots[i].stub == (uintptr_t)p)
			return (void *)apiprof_load_acquire(&link_table->slots[i].real);
	return p;
}

static void build_entry(struct dyn_fn *f, struct apiprof_api *api, const struct spec *s,
                        const struct spec_func *g)
{
	struct dyn_slot *slot = dyn_slot_for(g);

	if (slot == NULL)
		return;
	f->api = api;
	dyn_fn_build(f, s, g, slot);
}

static void load_spec(const char *name, void *arg)
{
	char *path = strdup(name); /* the spec keeps its path */
	const char *why;
	struct spec *s = path ? dyn_spec_load(path, &why) : NULL;

	(void)arg;
	if (s == NULL) {
		if (path != NULL && why != NULL)
			dyn_tell(APIPROF_SAY_ERRORS, "%s: %s; not profiled", path, why);
		free(path);
		return;
	}
	struct apiprof_api *api = dyn_api_new(s);
	struct dyn_fn *fns = dyn_alloc((s->nfuncs + s->naliases) * sizeof(*fns));
	for (size_t i = 0; i < s->nfuncs; i++)
		build_entry(&fns[i], api, s, &s->funcs[i]);
	for (size_t i = 0; i < s->naliases; i++)
		build_entry(&fns[s->nfuncs + i], api, s, &s->aliases[i]);
}

_Static_assert(DYN_MAX_SPECS == APIPROF_MAX_APIS - 1, "one api id per spec");

static void load_specs(const char *specs)
{
	size_t n = dyn_spec_each(specs, load_spec, NULL);

	if (n > DYN_MAX_SPECS)
		dyn_tell(APIPROF_SAY_ERRORS,
		         "APIPROF_SPEC names %zu specs and at most %d apis can be profiled: "
		         "the first %d are, the last %zu are not",
		         n, DYN_MAX_SPECS, DYN_MAX_SPECS, n - DYN_MAX_SPECS);
}

__attribute__((constructor)) static void dyn_init(void)
{
	const char *specs = secure_getenv("APIPROF_SPEC");

	if (getauxval(AT_SECURE))
		return; /* the runtime says once that APIPROF_* is ignored (apiprof_env.c) */
	if (specs == NULL || *specs == '\0') {
		dyn_tell(APIPROF_SAY_ERRORS,
		         "libapiprof-dyn.so: APIPROF_SPEC is not set: nothing to profile");
		return;
	}
	link_table = find_link();
	if (link_table == NULL) {
		dyn_tell(APIPROF_SAY_ERRORS,
		         "libapiprof-dyn.so needs its audit module "
		         "(LD_AUDIT=libapiprof-dyn-audit.so, as apiprof-run --dynamic sets): "
		         "nothing is profiled");
		return;
	}
	apiprof_set_mode(APIPROF_PROC_MODE_DYNAMIC);
	dyn_site_init();
	dyn_quick_init(link_table);
	/* the spec's notes and errors are the same in every process of a run */
	int say = apiprof_say();
	spec_diag_mute(say == APIPROF_SAY_ALL      ? SPEC_MUTE_NONE
	               : say == APIPROF_SAY_ERRORS ? SPEC_MUTE_NOTES
	                                           : SPEC_MUTE_ALL);
	load_specs(specs);
	dyn_bind_slots(link_table);
}
