/* SPDX-License-Identifier: MIT */
/*
 * apiprof_unload.c - a library that dlclose unloads takes the shims'
 * cached pointers into it along.
 *
 * A generated shim resolves each real function once and keeps the pointer
 * (apiprof_self.real_NAME).  Once the loader has unmapped the library, that
 * pointer points at nothing, or, after the library is dlopen()ed again
 * elsewhere, at whatever is mapped there now.  So the dlclose hook
 * (apiprof_dl.c) calls apiprof_unload_forget when the loader's count of
 * removed objects moved during the real dlclose, and every cached pointer
 * that no longer lies in a loaded object goes back to NULL: the next call
 * takes the wrapper's out-of-line path, which resolves it again.  Nothing
 * is added to the wrapper's fast path.
 *
 * No lock: a wrapper loads its pointer once, so a thread calling while it
 * is reset either calls the old function (the program calling a library
 * it is closing at that very moment, which is its own use after dlclose,
 * bare too) or resolves again.  An object that appears while the pointers
 * are checked (another thread's dlopen, a destructor's) may be mapped
 * where the unloaded one was, and dladdr would take a stale pointer for a
 * live one: then every remaining pointer is checked against what its
 * symbol resolves to in the object it points into.
 */
#include <dlfcn.h>
#include <errno.h>

#include "apiprof_internal.h"

/* True when p is still what symbol i of api resolves to in the object
 * that holds p. */
static bool still_resolves(const struct apiprof_api *api, uint32_t i, void *p)
{
	const char *ver = api->syms[i].version;
	Dl_info in;

	if (!dladdr(p, &in) || in.dli_fname == NULL)
		return false;
	void *h = dlopen(in.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL)
		return false;
	void *q = ver ? dlvsym(h, api->syms[i].symbol, ver) : dlsym(h, api->syms[i].symbol);
	dlclose(h);
	return q == p;
}

/* Resets the pointers of api that no longer lie in a loaded object; with
 * `exact`, also those that no longer resolve to themselves.  Pointers into
 * the shim itself (the missing-function stubs) stay. */
static void forget_api(const struct apiprof_api *api, bool exact)
{
	void **reals = apiprof_api_reals(api);
	Dl_info shim, in;

	if (reals == NULL || !dladdr(api, &shim))
		return;
	for (uint32_t i = 0; i < apiprof_api_nsyms(api); i++) {
		void *p = apiprof_read_once(&reals[i]);

		if (p == NULL)
			continue;
		bool live = dladdr(p, &in) != 0;
		if (live && in.dli_fbase == shim.dli_fbase)
			continue;
		if (live && (!exact || still_resolves(api, i, p)))
			continue;
		apiprof_cas_relaxed(&reals[i], &p, NULL);
	}
}

static void forget_all(bool exact)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		if (api != NULL)
			forget_api(api, exact);
	}
}

/* adds_before: the loader's count of added objects before the dlclose.
 * An object added since then is seen by dladdr only after it was counted
 * (both under the loader's lock), so reading the count after the first
 * pass tells whether that pass could have been misled. */
void apiprof_unload_forget(uint64_t adds_before)
{
	uint64_t busy = apiprof_busy_enter(), adds, subs;
	int saved = errno;

	forget_all(false);
	apiprof_unload_counts(&adds, &subs);
	if (adds != adds_before) {
		forget_all(true);
		/* the lookups above may have left an error; bare, a successful
		 * dlclose leaves none */
		apiprof_dl_clear_error();
	}
	errno = saved;
	apiprof_busy_leave(busy);
}
