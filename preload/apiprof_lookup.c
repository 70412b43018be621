/* SPDX-License-Identifier: MIT */
/*
 * apiprof_lookup.c - finding real functions and wrappers beyond the plain
 * dlsym(RTLD_NEXT) of the shims.
 *
 * A library that the program dlopen()ed with RTLD_LOCAL is not in the
 * global scope, so RTLD_NEXT does not see it: the shim then looks in the
 * spec's library by its soname.  And a program that calls through
 * dlsym(handle, "fn") on that library is handed the shim's wrapper (see
 * apiprof_dl.c), which can forward to it for that reason.
 */
#include <dlfcn.h>
#include <string.h>

#include "apiprof_internal.h"

void *apiprof_lookup_in_library(const struct apiprof_api *api, uint32_t idx)
{
	const char *ver = api->versions ? api->versions[idx] : NULL;
	void *h = dlopen(api->library, RTLD_LAZY | RTLD_NOLOAD);
	void *p;

	if (h == NULL)
		return NULL;
	p = ver ? dlvsym(h, api->symbols[idx], ver) : dlsym(h, api->symbols[idx]);
	dlclose(h);
	return p;
}

static bool same_object(const void *a, const void *b)
{
	Dl_info ia, ib;

	return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/* p is what the program's dlsym(handle, name) found.  If it is the spec'd
 * library's own `name` and a shim exports a wrapper of that name, the
 * wrapper is returned instead.  Lookups the runtime makes for itself
 * (busy) are never redirected. */
static void *redirect_api(struct apiprof_api *api, const char *name, void *p)
{
	void *w, *h, *q;

	for (uint32_t i = 0; i < apiprof_api_nsyms(api); i++) {
		if (strcmp(api->symbols[i], name) != 0)
			continue;
		w = dlsym(RTLD_DEFAULT, name);
		if (w == NULL || w == p || !same_object(w, api))
			return p;
		h = dlopen(api->library, RTLD_LAZY | RTLD_NOLOAD);
		q = h ? dlsym(h, name) : NULL;
		if (h != NULL)
			dlclose(h);
		return q == p ? w : p;
	}
	return p;
}

void *apiprof_api_redirect(const char *name, void *p)
{
	uint64_t busy;

	if (apiprof_busy())
		return p;
	busy = apiprof_busy_enter();
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);
		void *r = api ? redirect_api(api, name, p) : p;

		if (r != p) {
			p = r;
			break;
		}
	}
	apiprof_busy_leave(busy);
	return p;
}
