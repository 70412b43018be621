/* SPDX-License-Identifier: MIT */
/*
 * apiprof_lookup.c - finding real functions and wrappers beyond the plain
 * dlsym(RTLD_NEXT) of the shims.
 *
 * A library that the program dlopen()ed with RTLD_LOCAL is not in the
 * global scope, so RTLD_NEXT does not see it: the shim then looks in the
 * spec's library itself (apiprof_library_open).  And a program that calls
 * through dlsym(handle, "fn") on that library is handed the shim's wrapper
 * (see apiprof_dl.c), which can forward to it for that reason.
 *
 * The runtime never looks a name up with RTLD_DEFAULT itself: glibc makes
 * the object such a lookup finds a dependency of the caller, and as
 * libapiprof.so is NODELETE, it marks that object NODELETE too
 * (dl-lookup.c, add_dependency): a library the program dlclose()s would
 * then stay mapped.  Lookups in explicit handles add no dependency.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "apiprof_internal.h"

#define NOLOAD (RTLD_LAZY | RTLD_NOLOAD)

static bool same_object(const void *a, const void *b)
{
	Dl_info ia, ib;

	return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/* A loaded object whose file name (the last part of its path) is the
 * spec's library: an address inside it, for dladdr.  Copying its name out
 * here would need a buffer of PATH_MAX, and dlopen may not be called from
 * the callback (dl_iterate_phdr holds a loader lock dlopen takes after its
 * own: a concurrent dlopen would deadlock). */
struct by_file {
	const char *file;
	const void *inside;
};

static int match_file(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct by_file *m = arg;
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *base = slash ? slash + 1 : info->dlpi_name;

	(void)size;
	if (strcmp(base, m->file) != 0)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			m->inside = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
			return 1;
		}
	return 0;
}

/*
 * The spec's library if it is loaded: a handle the caller dlclose()s, or
 * NULL.  Matched as glibc's dlopen(RTLD_NOLOAD) matches (its SONAME, a name
 * it was opened by, or the same file, by device and inode, as the loader's
 * search for the name finds), else by file name: a library without a
 * SONAME, dlopen()ed by a path the loader's search does not know.  The
 * first object of that file name wins.
 */
void *apiprof_library_open(const struct apiprof_api *api)
{
	struct by_file m = {api->library, NULL};
	void *h = dlopen(api->library, NOLOAD);
	Dl_info info;

	if (h != NULL || strchr(api->library, '/') != NULL)
		return h;
	dl_iterate_phdr(match_file, &m);
	/* dli_fname is the loader's own copy of the path, alive while the
	 * object is; one the program dlclose()s at this very moment is a
	 * library it is using after closing it. */
	if (m.inside == NULL || !dladdr(m.inside, &info) || info.dli_fname == NULL)
		return NULL;
	return dlopen(info.dli_fname, NOLOAD);
}

void *apiprof_lookup_in_library(const struct apiprof_api *api, uint32_t idx)
{
	const char *ver = api->syms[idx].version;
	void *h = apiprof_library_open(api);

	if (h == NULL)
		return NULL;
	void *p = ver ? dlvsym(h, api->syms[idx].symbol, ver) : dlsym(h, api->syms[idx].symbol);
	dlclose(h);
	return p;
}

/* A generated shim's api is a static of the shim, and the pointers to its
 * real functions follow it, one per symbol (gen_emit.c, apiprof_shim.h).
 * An api built at run time (dynamic mode) is on the heap and has none. */
_Static_assert(sizeof(struct apiprof_api) % sizeof(void *) == 0,
               "the first real pointer follows the api without padding");

void **apiprof_api_reals(const struct apiprof_api *api)
{
	Dl_info self, in;

	if (!dladdr(api, &in) || !dladdr((const void *)apiprof_api_reals, &self) ||
	    in.dli_fbase == self.dli_fbase || !same_object(api, api->syms))
		return NULL;
	return (void **)((char *)api + sizeof(struct apiprof_api));
}

/* The wrapper of `name` that api's shim exports, or NULL. */
static void *shim_export(const struct apiprof_api *api, const char *name)
{
	Dl_info info;

	if (!dladdr(api, &info) || info.dli_fname == NULL)
		return NULL;
	void *h = dlopen(info.dli_fname, NOLOAD);
	if (h == NULL)
		return NULL;
	void *w = dlsym(h, name);
	dlclose(h);
	return w != NULL && same_object(w, api) ? w : NULL;
}

/* The index of `name` among api's symbols, or -1. */
static int symbol_index(const struct apiprof_api *api, const char *name)
{
	for (uint32_t i = 0; i < apiprof_api_nsyms(api); i++)
		if (strcmp(api->syms[i].symbol, name) == 0)
			return (int)i;
	return -1;
}

/* A wrapper called while its library was absent keeps the missing stub
 * (which lies in the shim); now that the library is there, it resolves
 * again on its next call. */
static void drop_stub(const struct apiprof_api *api, int i)
{
	void **reals = apiprof_api_reals(api);
	void *r = reals ? apiprof_read_once(&reals[i]) : NULL;

	if (r != NULL && same_object(r, api))
		apiprof_cas_relaxed(&reals[i], &r, NULL);
}

/* p is what the program's dlsym(handle, name) found.  If it is the spec'd
 * library's own `name` and a shim exports a wrapper of that name, the
 * wrapper is returned instead. */
static void *redirect_api(struct apiprof_api *api, const char *name, void *p)
{
	int i = symbol_index(api, name);

	if (i < 0)
		return p;
	void *w = shim_export(api, name);
	if (w == NULL || w == p)
		return p;
	void *h = apiprof_library_open(api);
	void *q = h ? dlsym(h, name) : NULL;
	if (h != NULL)
		dlclose(h);
	if (q != p)
		return p;
	drop_stub(api, i);
	return w;
}

/* Lookups the runtime makes for itself (busy) are never redirected. */
void *apiprof_api_redirect(const char *name, void *p)
{
	if (apiprof_busy())
		return p;
	uint64_t busy = apiprof_busy_enter();
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

/* True when a wrapper of api for symbol i stands for nothing: no real
 * function was found for it (none, or the missing stub, which lies in the
 * shim) and the spec's library is not loaded. */
static bool wrapper_empty(const struct apiprof_api *api, int i)
{
	void **reals = apiprof_api_reals(api);

	if (reals == NULL)
		return false;
	void *r = apiprof_read_once(&reals[i]);
	if (r != NULL && !same_object(r, api))
		return false;
	void *h = apiprof_library_open(api);
	if (h != NULL)
		dlclose(h);
	return h == NULL;
}

/* The global scope as a handle: dlsym in it finds what RTLD_DEFAULT finds
 * from the program, without making the result a dependency of the
 * runtime.  Opened once; a handle of the main program is never closed. */
static void *global_scope(void)
{
	static void *main_h;
	void *h = apiprof_load_acquire(&main_h);

	if (h == NULL) {
		h = dlopen(NULL, RTLD_LAZY);
		apiprof_store_release(&main_h, h);
	}
	return h;
}

/* The api whose shim's wrapper dlsym(RTLD_DEFAULT, name) would return
 * although it stands for nothing, or NULL.  Called busy: the dlsym here
 * is not redirected. */
struct apiprof_api *apiprof_api_absent(const char *name)
{
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);
		int i = api ? symbol_index(api, name) : -1;

		if (i < 0 || !wrapper_empty(api, i))
			continue;
		void *scope = global_scope();
		void *w = scope ? dlsym(scope, name) : NULL;
		if (w != NULL && same_object(w, api))
			return api;
	}
	return NULL;
}
