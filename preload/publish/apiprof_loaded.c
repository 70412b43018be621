/* SPDX-License-Identifier: MIT */
/*
 * apiprof_loaded.c - whether each api's library has been loaded.
 *
 * A spec whose library the program never loads (a program linked
 * statically against it, as Debian's zstd is against libzstd, or a spec
 * naming the library wrongly) gets no calls, and would say nothing.  So
 * the flusher asks, at every flush while a viewer watches (and the
 * program's dlclose before it closes anything), whether the library of
 * each api not yet seen is loaded now, and marks the api's
 * function entries in the segment APIPROF_FUNC_UNLOADED until it is; the
 * end of the image asks once more, says which were never loaded, and the
 * JSON has "loaded": false for them.  Not a process that forked: a shell,
 * make or timeout, whose children are what the spec is for, and which
 * would otherwise say so once per process of a build.
 *
 * The question is apiprof_library_open's (apiprof_lookup.c): a dlopen
 * with RTLD_NOLOAD, and a walk of the loaded objects, both of which take
 * the loader's lock.  So it is asked off the program's threads' way (the
 * flusher, the end of the image), never on a call, and once an api's
 * library has been seen it is not asked about again: the libraries of
 * most apis are loaded before their first flush, and cost one lookup.
 * Nor is a library found absent asked about again while the loader has
 * added no object since (dl_iterate_phdr's count of additions): for a name
 * the loader does not know, the question searches the loader cache and
 * opens the library's file, and a program that never loads it (a shell
 * under a sqlite3 spec) would pay that at its start (the shim's
 * constructor asks, apiprof_api.c), at every flush and at its end.
 */
#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include "apiprof_internal.h"

/* Per api id, 1 once its library was seen loaded.  A fork child keeps
 * it: it has the parent's libraries. */
static uint32_t seen[APIPROF_MAX_APIS];

/* Per api id, the loader's count of added objects when its library was
 * last found absent, plus one (0: never found absent). */
static uint64_t absent_at[APIPROF_MAX_APIS];

/* This image has forked (pthread_atfork, apiprof_init.c). */
static uint32_t forked;

void apiprof_loaded_forked(bool yes)
{
	apiprof_write_once(&forked, yes);
}

static bool library_there(const struct apiprof_api *api)
{
	void *h = apiprof_library_open(api);

	if (h != NULL)
		dlclose(h);
	return h != NULL;
}

/* Whether api's library is loaded now; asked again only when the loader
 * has added objects since it was last found absent.  The answer of an api
 * without an id (not registered) is not kept. */
bool apiprof_loaded_ask(const struct apiprof_api *api)
{
	uint32_t id = apiprof_load_acquire(&api->id);
	uint64_t adds, subs;

	if (id == 0 || id >= APIPROF_MAX_APIS)
		return library_there(api);
	if (apiprof_load_acquire(&seen[id]))
		return true;
	apiprof_unload_counts(&adds, &subs);
	if (apiprof_read_once(&absent_at[id]) == adds + 1)
		return false;
	bool there = library_there(api);
	if (there)
		apiprof_store_release(&seen[id], 1);
	else
		apiprof_write_once(&absent_at[id], adds + 1);
	return there;
}

bool apiprof_loaded_check(void)
{
	bool all = true;

	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api == NULL || apiprof_load_acquire(&seen[id]))
			continue;
		bool there = apiprof_loaded_ask(api);
		apiprof_segment_api_unloaded(api, !there);
		all = all && there;
	}
	return all;
}

bool apiprof_loaded(uint32_t id)
{
	return id < APIPROF_MAX_APIS && apiprof_load_acquire(&seen[id]);
}

/* Before a dlclose, from the program's thread: a library it loaded and
 * now closes was loaded, whether a flush saw it or not. */
void apiprof_loaded_before_close(void)
{
	uint64_t busy = apiprof_busy_enter(); /* our dlclose is not hooked again */
	int saved = errno;

	apiprof_loaded_check();
	errno = saved;
	apiprof_busy_leave(busy);
}

/* The hint is the whole run's (apiprof_say): under apiprof-run, the
 * process it started says it once, at its end, and its children say
 * nothing, which a shell running 50 processes made 50 lines of.  When that
 * process forked, its children's libraries are not known to it, and the
 * line says so.  Without apiprof-run, a process that forked says nothing:
 * its children are what the spec is for. */
void apiprof_loaded_warn(void)
{
	int say = apiprof_say();
	bool fork = apiprof_read_once(&forked);

	if (say != APIPROF_SAY_ALL || (fork && apiprof_cfg.hints_pid == 0))
		return;
	for (uint32_t id = 1; id <= apiprof_api_count(); id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api == NULL || apiprof_loaded(id))
			continue;
		if (fork)
			apiprof_warn("%s: %s was never loaded by %s (pid %d), which started other "
			             "processes (they do not say); is the program static, or the "
			             "library named differently?",
			             api->name, api->library, program_invocation_short_name,
			             (int)getpid());
		else
			apiprof_warn("%s: %s was never loaded; is the program static, or the "
			             "library named differently?",
			             api->name, api->library);
	}
}
