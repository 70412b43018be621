/* SPDX-License-Identifier: MIT */
/*
 * apiprof_api.c - the api registry (one api per loaded shim): dense ids,
 * lookup of an api by id, real-symbol resolution, the warn-once stub for
 * missing symbols, and the per-api totals of threads that exited long ago
 * (tables, apiprof_tab.c).
 */
#include <errno.h>
#include <string.h>

#include "apiprof_internal.h"
#include "apiprof_steer.h"
#include "apiprof_loader_calls.h"

/* The threads inside a lookup: see resolver_find. */
#define RESOLVERS 64

/* The registry's state.  A fork child keeps the apis and their ids (it
 * has the same shims loaded); only its totals start again (see
 * apiprof_api_after_fork). */
static struct apiprof_api_state {
	/* The registered apis by id (0 is none); set once, with release. */
	struct apiprof_api *apis[APIPROF_MAX_APIS];
	/* Per-api totals of the threads folded away (apiprof_thread.c);
	 * made with the api's first thread table (apiprof_api_in_use),
	 * set once (release). */
	struct apiprof_tab *folded[APIPROF_MAX_APIS];
	/* The next id to hand out; ids are never reused. */
	uint32_t next_id;
	/* "too many apis" said already. */
	uint32_t too_many_warned;
	/* The shims of another runtime version already warned about. */
	const struct apiprof_api *abi_seen[APIPROF_MAX_APIS];
	/* The thread pointers of the threads inside a lookup, or NULL. */
	char *resolvers[RESOLVERS];
	/* How many shim constructors are resolving up front. */
	int prefetching;
	/* The prefetch's thread (constructors run one at a time, under the
	 * loader's lock), the api it last asked about, and the answer. */
	char *prefetcher;
	const struct apiprof_api *pf_api;
	enum apiprof_lib pf_lib;
} api_state = {.next_id = 1};

struct apiprof_api *apiprof_api_get(uint32_t id)
{
	if (id == 0 || id >= APIPROF_MAX_APIS)
		return NULL;
	return apiprof_load_acquire(&api_state.apis[id]);
}

uint32_t apiprof_api_count(void)
{
	uint32_t n = apiprof_load_acquire(&api_state.next_id);

	return n < APIPROF_MAX_APIS ? n - 1 : APIPROF_MAX_APIS - 1;
}

struct apiprof_tab *apiprof_api_folded(uint32_t id)
{
	return id < APIPROF_MAX_APIS ? apiprof_load_acquire(&api_state.folded[id]) : NULL;
}

/* What an api needs once it has calls: the totals of its exited threads
 * and its wrappers' ranges (apiprof_wrappers.c).  Made by its first
 * thread table (apiprof_thread.c thread_table), not by the registration,
 * so that a process that never calls the api (its library absent) does
 * nothing per function for it (a folded table of 1000 rows is 650 kB,
 * some 170 pages to fault in: issue 35.6).  A thread that exits has a
 * table, so the folded one is there to take its figures.  Where two
 * threads' first calls race, the loser's table stays unused in the arena.
 * Returns the folded table, NULL without memory. */
struct apiprof_tab *apiprof_api_in_use(const struct apiprof_api *api, uint32_t id)
{
	struct apiprof_tab *cur = apiprof_api_folded(id);

	if (cur != NULL || id == 0 || id >= APIPROF_MAX_APIS)
		return cur;
	apiprof_wrappers_ranges(api, id); /* before any call can be in progress */
	struct apiprof_tab *tab = apiprof_tab_alloc(api);
	if (tab == NULL || apiprof_cas_acq_rel(&api_state.folded[id], &cur, tab))
		return tab;
	return cur;
}

/* In a fork child: the apis, their ids and what was resolved stay (the
 * child has the same shims and libraries), but the child's numbers are its
 * own, so the totals of the parent's exited threads are zeroed. */
void apiprof_api_after_fork(void)
{
	for (uint32_t id = 1; id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api != NULL && apiprof_api_folded(id) != NULL)
			apiprof_tab_init(apiprof_api_folded(id), api->nfuncs);
	}
}

/* A shim generated for another runtime version: its struct may not even
 * have this layout, so nothing but `abi` is read, and it stays
 * unregistered (its calls pass straight through).  Said once per shim. */
static void abi_mismatch(const struct apiprof_api *api)
{
	for (int i = 0; i < APIPROF_MAX_APIS; i++) {
		const struct apiprof_api *cur = apiprof_load_acquire(&api_state.abi_seen[i]);

		if (cur == api)
			return;
		if (cur == NULL && apiprof_cas_acq_rel(&api_state.abi_seen[i], &cur, api))
			break;
		if (cur == api)
			return;
	}
	apiprof_warn("a shim built for another apiprof runtime (shim abi %u, runtime %u) is "
	             "not profiled; rebuild it",
	             api->abi, APIPROF_SHIM_ABI);
}

/* The hot path's shortcuts to api's id; until they are set it takes the
 * slow path, which reads the id itself.  In the order the hot path needs
 * them (apiprof_enter): a call that sees the thread's own block (tls) sees
 * its slot.  Every thread stores them before its first call of the api
 * goes on (apiprof_thread_attach), as the way out of a call loads the slot
 * again: the values are the same for all, and a thread that lost the race
 * to register the api does not depend on the winner having got this far. */
void apiprof_api_publish(struct apiprof_api *api, uint32_t id)
{
	if (apiprof_load_acquire(&api->tls) != 0)
		return;
	apiprof_store_release(&api->slot, (uint64_t)apiprof_tls_off + APIPROF_TLS_API +
	                                          id * sizeof(struct apiprof_tls_api));
	apiprof_store_release(&api->tls, (uint64_t)apiprof_tls_off);
}

/* The api's place in the process's function table, reserved once: the
 * first thread to swap its reservation in for APIPROF_FUNC_UNSET sets it
 * for good, and a thread that finds it set reserves nothing.  A thread
 * that lost the swap leaves its reservation unused (no name, no record):
 * a range of the table, as its id is one of the ids. */
static void funcs_reserve(struct apiprof_api *api)
{
	uint32_t unset = APIPROF_FUNC_UNSET;

	if (apiprof_load_acquire(&api->func_base) != APIPROF_FUNC_UNSET)
		return;
	apiprof_cas_acq_rel(&api->func_base, &unset, apiprof_func_reserve(api->nfuncs));
}

/* Gives api a dense id.  Two threads may race here on first use; the loser
 * of the compare-and-swap simply leaves its id unused.  func_base is set
 * (funcs_reserve) before any thread tries to claim the id, so whoever sees
 * the id sees the one func_base there will ever be: the tables' rows, the
 * names published (apiprof_segment_add_api), the records and the call tree
 * all agree, and none of the racing threads waits for another. */
void apiprof_register(struct apiprof_api *api)
{
	uint32_t zero = 0;

	if (apiprof_load_acquire(&api->id) != 0)
		return;
	/* a dormant runtime keeps it for its wake (apiprof_dormant.c) */
	if (!apiprof_ready() && (apiprof_dormant_keep(api) || !apiprof_ready()))
		return;
	if (!apiprof_tls_ok())
		return;
	if (api->abi != APIPROF_SHIM_ABI) {
		abi_mismatch(api);
		return;
	}
	uint64_t held = apiprof_signal_hold(), busy = apiprof_busy_enter();
	uint32_t id = apiprof_fetch_add_acq_rel(&api_state.next_id, 1);
	if (id >= APIPROF_MAX_APIS) {
		if (!apiprof_xchg_relaxed(&api_state.too_many_warned, 1))
			apiprof_warn("%s: more than %d apis; not profiled", api->name,
			             APIPROF_MAX_APIS - 1);
		apiprof_busy_leave(busy);
		apiprof_signal_release(held);
		return;
	}
	funcs_reserve(api); /* first: the tables' rows know their place in it (row_self) */
	if (apiprof_cas_acq_rel(&api->id, &zero, id)) {
		apiprof_wrappers_add(api);
		apiprof_steer_gate(api, id); /* its mode before its offsets */
		apiprof_api_publish(api, id);
		apiprof_store_release(&api_state.apis[id], api);
		apiprof_steer_gate(api, id); /* and a change made meanwhile */
		apiprof_segment_add_api(api);
	}
	apiprof_busy_leave(busy);
	apiprof_signal_release(held);
}

/* The threads inside a lookup, by thread pointer.  Not TLS: lookups come
 * before the runtime knows where its TLS is, and without any.  Lookups are
 * rare (once per symbol), so a scan is cheap enough; a thread that finds
 * every entry taken goes on unguarded rather than fail the call. */
static int resolver_find(const char *tp)
{
	for (int i = 0; i < RESOLVERS; i++)
		if (apiprof_read_once(&api_state.resolvers[i]) == tp)
			return i;
	return -1;
}

static int resolver_claim(char *tp)
{
	for (int i = 0; i < RESOLVERS; i++) {
		char *none = NULL;

		if (apiprof_cas_acq_rel(&api_state.resolvers[i], &none, tp))
			return i;
	}
	return -1;
}

/* Where the prefetch of this thread finds api's functions: asked once per
 * shim (apiprof_loaded_ask), then a lookup of its first symbol when the
 * library is absent (a spec whose library is named differently: its
 * functions are elsewhere, and resolved up front as usual).  APIPROF_LIB_UNKNOWN
 * outside a constructor's prefetch. */
static enum apiprof_lib prefetch_lib(const struct apiprof_api *api, apiprof_lookup_fn next)
{
	if (apiprof_read_once(&api_state.prefetcher) != apiprof_tp())
		return APIPROF_LIB_UNKNOWN;
	if (api_state.pf_api != api) {
		enum apiprof_lib lib =
		        apiprof_loaded_ask(api) ? APIPROF_LIB_THERE : APIPROF_LIB_ABSENT;

		if (lib == APIPROF_LIB_ABSENT &&
		    next(api->syms[0].symbol, api->syms[0].version) != NULL)
			lib = APIPROF_LIB_ELSEWHERE;
		/* the failed lookups left their error for the program's dlerror;
		 * bare, it has none (no lookup follows to clear it) */
		if (lib == APIPROF_LIB_ABSENT)
			apiprof_dl_clear_error();
		api_state.pf_api = api;
		api_state.pf_lib = lib;
	}
	return api_state.pf_lib;
}

/* The lookup itself, guarded.  A constructor's prefetch of a shim whose
 * library is absent resolves nothing but what the loader calls: the rest
 * waits for its first call, if any, so that a process that never loads
 * the library pays one question per shim, not a lookup per function
 * (which searched the loader cache and opened the library each time). */
static void *lookup(struct apiprof_api *api, uint32_t idx, apiprof_lookup_fn next)
{
	enum apiprof_lib lib = prefetch_lib(api, next);

	if (lib == APIPROF_LIB_ABSENT && !apiprof_loader_calls(api->syms[idx].symbol))
		return NULL;
	void *p = next(api->syms[idx].symbol, api->syms[idx].version);
	if (p == NULL && (lib == APIPROF_LIB_UNKNOWN || lib == APIPROF_LIB_THERE))
		p = apiprof_lookup_in_library(api, idx);
	return p;
}

/* A lookup's guard: the thread's place among the resolvers (-1: none
 * free, it goes on unguarded), with the busy bit, which keeps what dlsym
 * calls from being counted. */
struct guard {
	int me;
	uint64_t busy;
};

static struct guard guard_enter(void)
{
	struct guard g = {resolver_claim(apiprof_tp()), 0};

	g.busy = apiprof_busy_enter();
	return g;
}

static void guard_leave(struct guard g)
{
	apiprof_busy_leave(g.busy);
	if (g.me >= 0)
		apiprof_store_release(&api_state.resolvers[g.me], NULL);
}

void *apiprof_resolve_with(struct apiprof_api *api, uint32_t idx, apiprof_lookup_fn next)
{
	int saved = errno;

	/* dlsym calling back into a shim (glibc's dlerror frees the previous
	 * message with free) must not look up again: that nested dlsym would
	 * free the same message a second time.  The nested call gets NULL,
	 * which apiprof_resolving() marks as "not an answer". */
	if (resolver_find(apiprof_tp()) >= 0 || idx >= apiprof_api_nsyms(api))
		return NULL;
	/* A shim an attach dlopen()ed is last: RTLD_NEXT finds nothing */
	if (apiprof_attach_active())
		next = apiprof_attach_next;
	struct guard g = guard_enter();
	void *p = lookup(api, idx, next);
	guard_leave(g);
	errno = saved;
	return p;
}

/* Whether a shim constructor's prefetch looks up every function of api:
 * not where its library is absent (prefetch_lib), when it looks up only
 * what the loader itself calls (the shim knows which: gen_emit.c), so that
 * a process that never loads the library does nothing per function of
 * the spec (issue 35.6).  Outside a constructor's prefetch, or inside a
 * lookup, every function, as before. */
int apiprof_prefetch_all(struct apiprof_api *api, apiprof_lookup_fn next)
{
	int saved = errno;

	if (resolver_find(apiprof_tp()) >= 0)
		return 1;
	if (apiprof_attach_active())
		next = apiprof_attach_next;
	struct guard g = guard_enter();
	enum apiprof_lib lib = prefetch_lib(api, next);
	guard_leave(g);
	errno = saved;
	return lib != APIPROF_LIB_ABSENT;
}

/* Shim constructors resolving everything up front: a symbol they do not
 * find then may still come with a library loaded later.  Constructors run
 * one at a time; another thread that sees this too only looks again. */

void apiprof_prefetch(int on)
{
	if (on && apiprof_add_fetch_relaxed(&api_state.prefetching, 1) == 1) {
		api_state.pf_api = NULL;
		apiprof_write_once(&api_state.prefetcher, apiprof_tp());
	} else if (!on && apiprof_add_fetch_relaxed(&api_state.prefetching, -1) == 0) {
		apiprof_write_once(&api_state.prefetcher, NULL);
	}
}

int apiprof_resolving(void)
{
	return resolver_find(apiprof_tp()) >= 0 || apiprof_read_once(&api_state.prefetching);
}

/* Called by a missing function's stub instead of jumping to NULL; idx is
 * the symbol's index, which for an alias is not its row's. */
void apiprof_missing(struct apiprof_api *api, uint32_t idx)
{
	if (resolver_find(apiprof_tp()) < 0 && idx < apiprof_api_nsyms(api) &&
	    !apiprof_xchg_relaxed(&api->missing_warned[idx], 1)) {
		const char *ver = api->syms[idx].version;

		apiprof_warn("%s: %s%s%s not found after this shim (is %s loaded?); "
		             "calls fail with ENOSYS",
		             api->name, api->syms[idx].symbol, ver ? "@" : "", ver ? ver : "",
		             api->library);
	}
	errno = ENOSYS;
}

/* exit, abort, longjmp-like functions: counted before the call, since they
 * never come back to be timed. */
void apiprof_count_noreturn(struct apiprof_api *api, uint32_t idx)
{
	struct apiprof_call c;

	if (idx >= api->nfuncs)
		return;
	unsigned route = apiprof_enter_any(api, &c, idx, 0);
	if (route == APIPROF_CALL_FORWARD)
		return;
	if (route == APIPROF_CALL_SLOW) /* made the innermost call: its parent back */
		apiprof_leave_slow(api, 0, idx);
	else /* timed calls are made the innermost by apiprof_start, not here */
		apiprof_leave_counted(api, &c, idx);
}
