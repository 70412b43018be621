/* SPDX-License-Identifier: MIT */
/*
 * apiprof_api.c - the apis (one per loaded shim): dense ids, real-symbol
 * resolution, the warn-once stub for missing symbols, and the per-api totals
 * of threads that exited long ago.
 */
#include <errno.h>
#include <string.h>

#include "apiprof_internal.h"

static struct apiprof_api *apis[APIPROF_MAX_APIS];
static struct apiprof_tab *folded[APIPROF_MAX_APIS];
static uint32_t next_id = 1;
static uint32_t too_many_warned;

struct apiprof_api *apiprof_api_get(uint32_t id)
{
	if (id == 0 || id >= APIPROF_MAX_APIS)
		return NULL;
	return __atomic_load_n(&apis[id], __ATOMIC_ACQUIRE);
}

uint32_t apiprof_api_count(void)
{
	uint32_t n = __atomic_load_n(&next_id, __ATOMIC_ACQUIRE);

	return n < APIPROF_MAX_APIS ? n - 1 : APIPROF_MAX_APIS - 1;
}

struct apiprof_tab *apiprof_api_folded(uint32_t id)
{
	return id < APIPROF_MAX_APIS ? folded[id] : NULL;
}

/* A table of n rows (see struct apiprof_tab), zeroed word by word with
 * relaxed stores, not memset: when an entry is reset for a new thread the
 * flusher may be reading it (and will discard what it read, seeing the
 * generation change). */
void apiprof_tab_init(struct apiprof_tab *tab, uint32_t n)
{
	apiprof_store(&tab->sink, 0);
	__atomic_store_n(&tab->due, 0, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < n; i++) {
		struct apiprof_cold *c = apiprof_tab_cold(tab, i);
		uint64_t *w = (uint64_t *)c;

		apiprof_store(&tab->calls[i], 0);
		for (size_t k = 0; k < APIPROF_COLD_WORDS; k++)
			apiprof_store(&w[k], 0);
		apiprof_store(&c->min_ticks, UINT64_MAX);
	}
}

/* The cold rows, then the head and the counts.  The arena's blocks are
 * 64-byte aligned and a cold row is 9 lines, so the head starts a line. */
struct apiprof_tab *apiprof_tab_alloc(uint32_t n)
{
	size_t cold = (size_t)n * sizeof(struct apiprof_cold);
	char *p = apiprof_arena_alloc(cold + sizeof(struct apiprof_tab) +
	                              (size_t)n * sizeof(uint64_t));
	struct apiprof_tab *tab = (struct apiprof_tab *)(p + cold);

	_Static_assert(sizeof(struct apiprof_cold) % 64 == 0, "cold rows keep the head aligned");
	if (p == NULL)
		return NULL;
	apiprof_tab_init(tab, n);
	return tab;
}

/* A consistent-enough copy of row i of a table another thread may be
 * updating: every field is read whole (relaxed), calls first (see
 * apiprof_leave), fields may be one call apart, and the next snapshot
 * catches up.  The bucket the owner has noted but not yet counted is
 * counted here. */
void apiprof_tab_read(struct apiprof_fstat *dst, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_cold *c = apiprof_tab_cold(tab, i);
	int64_t due = __atomic_load_n(&tab->due, __ATOMIC_RELAXED);
	int64_t w = due + (int64_t)(i + 1) * (int64_t)APIPROF_COLD_WORDS; /* into row i */

	dst->calls = apiprof_load(&tab->calls[i]);
	dst->ticks = apiprof_load(&c->ticks);
	dst->min_ticks = apiprof_load(&c->min_ticks);
	dst->max_ticks = apiprof_load(&c->max_ticks);
	dst->timed = 0;
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		dst->hist[b] = apiprof_load(&c->hist[b]);
		dst->timed += dst->hist[b];
	}
	/* due is a bucket of some row, or 0 (the sink), which puts w past row i */
	if (w >= (int64_t)APIPROF_HIST_WORD0 && w < (int64_t)APIPROF_COLD_WORDS) {
		dst->hist[w - (int64_t)APIPROF_HIST_WORD0]++;
		dst->timed++;
	}
}

static void atomic_min(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v < cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Adds src into row i of dst; several exiting threads may fold at once. */
void apiprof_tab_fold(struct apiprof_tab *dst, uint32_t i, const struct apiprof_fstat *src)
{
	struct apiprof_cold *c = apiprof_tab_cold(dst, i);

	__atomic_fetch_add(&dst->calls[i], src->calls, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->ticks, src->ticks, __ATOMIC_RELAXED);
	atomic_min(&c->min_ticks, src->min_ticks);
	atomic_max(&c->max_ticks, src->max_ticks);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		__atomic_fetch_add(&c->hist[b], src->hist[b], __ATOMIC_RELAXED);
}

/* A shim generated for another runtime version: its struct may not even
 * have this layout, so nothing but `abi` is read, and it stays
 * unregistered (its calls pass straight through).  Said once per shim. */
static void abi_mismatch(const struct apiprof_api *api)
{
	static const struct apiprof_api *seen[APIPROF_MAX_APIS];

	for (int i = 0; i < APIPROF_MAX_APIS; i++) {
		const struct apiprof_api *cur = __atomic_load_n(&seen[i], __ATOMIC_ACQUIRE);

		if (cur == api)
			return;
		if (cur == NULL && __atomic_compare_exchange_n(&seen[i], &cur, api, false,
		                                               __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
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
	if (__atomic_load_n(&api->tls, __ATOMIC_ACQUIRE) != 0)
		return;
	__atomic_store_n(&api->slot,
	                 (uint64_t)apiprof_tls_off + APIPROF_TLS_API +
	                         id * sizeof(struct apiprof_tls_api),
	                 __ATOMIC_RELEASE);
	__atomic_store_n(&api->tls, (uint64_t)apiprof_tls_off, __ATOMIC_RELEASE);
}

/* Gives api a dense id.  Two threads may race here on first use; the loser
 * of the compare-and-swap simply leaves its id unused. */
void apiprof_register(struct apiprof_api *api)
{
	uint64_t busy;
	uint32_t id, zero = 0;
	struct apiprof_tab *fold;

	if (__atomic_load_n(&api->id, __ATOMIC_ACQUIRE) != 0 || !apiprof_ready() ||
	    !apiprof_tls_ok())
		return;
	if (api->abi != APIPROF_SHIM_ABI) {
		abi_mismatch(api);
		return;
	}
	busy = apiprof_busy_enter();
	id = __atomic_fetch_add(&next_id, 1, __ATOMIC_ACQ_REL);
	fold = id < APIPROF_MAX_APIS ? apiprof_tab_alloc(api->nfuncs) : NULL;
	if (fold == NULL) {
		if (!__atomic_exchange_n(&too_many_warned, 1, __ATOMIC_RELAXED))
			apiprof_warn("%s: more than %d apis or no memory; not profiled", api->name,
			             APIPROF_MAX_APIS - 1);
		apiprof_busy_leave(busy);
		return;
	}
	api->func_base = apiprof_func_reserve(api->nfuncs);
	folded[id] = fold;
	if (__atomic_compare_exchange_n(&api->id, &zero, id, false, __ATOMIC_ACQ_REL,
	                                __ATOMIC_ACQUIRE)) {
		apiprof_api_publish(api, id);
		__atomic_store_n(&apis[id], api, __ATOMIC_RELEASE);
		apiprof_segment_add_api(api);
	}
	apiprof_busy_leave(busy);
}

/* The threads inside a lookup, by thread pointer.  Not TLS: lookups come
 * before the runtime knows where its TLS is, and without any.  Lookups are
 * rare (once per symbol), so a scan is cheap enough; a thread that finds
 * every entry taken goes on unguarded rather than fail the call. */
#define RESOLVERS 64
static char *resolvers[RESOLVERS];

static int resolver_find(const char *tp)
{
	for (int i = 0; i < RESOLVERS; i++)
		if (__atomic_load_n(&resolvers[i], __ATOMIC_RELAXED) == tp)
			return i;
	return -1;
}

static int resolver_claim(char *tp)
{
	for (int i = 0; i < RESOLVERS; i++) {
		char *none = NULL;

		if (__atomic_compare_exchange_n(&resolvers[i], &none, tp, false, __ATOMIC_ACQ_REL,
		                                __ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

void *apiprof_resolve_with(struct apiprof_api *api, uint32_t idx, apiprof_lookup_fn next)
{
	uint64_t busy;
	void *p;
	int saved = errno, me;

	/* dlsym calling back into a shim (glibc's dlerror frees the previous
	 * message with free) must not look up again: that nested dlsym would
	 * free the same message a second time.  The nested call gets NULL,
	 * which apiprof_resolving() marks as "not an answer". */
	if (resolver_find(apiprof_tp()) >= 0 || idx >= apiprof_api_nsyms(api))
		return NULL;
	me = resolver_claim(apiprof_tp());
	busy = apiprof_busy_enter();
	p = next(api->symbols[idx], api->versions ? api->versions[idx] : NULL);
	if (p == NULL)
		p = apiprof_lookup_in_library(api, idx);
	apiprof_busy_leave(busy);
	if (me >= 0)
		__atomic_store_n(&resolvers[me], NULL, __ATOMIC_RELEASE);
	errno = saved;
	return p;
}

/* Shim constructors resolving everything up front: a symbol they do not
 * find then may still come with a library loaded later.  Constructors run
 * one at a time; another thread that sees this too only looks again. */
static int prefetching;

void apiprof_prefetch(int on)
{
	__atomic_add_fetch(&prefetching, on ? 1 : -1, __ATOMIC_RELAXED);
}

int apiprof_resolving(void)
{
	return resolver_find(apiprof_tp()) >= 0 || __atomic_load_n(&prefetching, __ATOMIC_RELAXED);
}

/* Called by a missing function's stub instead of jumping to NULL; idx is
 * the symbol's index, which for an alias is not its row's. */
void apiprof_missing(struct apiprof_api *api, uint32_t idx)
{
	if (resolver_find(apiprof_tp()) < 0 && idx < apiprof_api_nsyms(api) &&
	    !__atomic_exchange_n(&api->missing_warned[idx], 1, __ATOMIC_RELAXED)) {
		const char *ver = api->versions ? api->versions[idx] : NULL;

		apiprof_warn("%s: %s%s%s not found after this shim (is %s loaded?); "
		             "calls fail with ENOSYS",
		             api->name, api->symbols[idx], ver ? "@" : "", ver ? ver : "",
		             api->library);
	}
	errno = ENOSYS;
}

/* exit, abort, longjmp-like functions: counted before the call, since they
 * never come back to be timed. */
void apiprof_count_noreturn(struct apiprof_api *api, uint32_t idx)
{
	struct apiprof_call c;

	if (idx >= api->nfuncs || apiprof_enter_any(api, &c, idx) == APIPROF_CALL_FORWARD)
		return;
	apiprof_leave_counted(api, &c, idx);
}
