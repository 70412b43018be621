/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites.c - the owner's half of struct apiprof_sites, out of
 * line: the switch from one run of a row's calls to the next (a call from
 * another site than the run's comes here), the parked run, and the
 * table's memory and its zeroing.  The layout and the protocol:
 * apiprof_sites.h.
 */
#include <errno.h>

#include "apiprof_cct.h"
#include "apiprof_sites.h"

/* s's table, given one from the arena if it has none yet (the runtime's
 * work, under the busy guard: the arena may call mmap); NULL when there
 * is no room.  In an api's folded totals several exiting threads may ask
 * at once: the first pointer stored stays.  The runs that ended while
 * the row had none (the arena was full: switch_bare) are up to the
 * marks, and start its "(other callers)" (a folded row has no marks). */
__attribute__((noinline, cold)) struct apiprof_site_tbl *
apiprof_sites_tbl_get(struct apiprof_sites *s)
{
	struct apiprof_site_tbl *t = tbl_of(s);

	if (t != NULL)
		return t;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	struct apiprof_site_tbl *n = apiprof_arena_alloc(sizeof(*n)); /* zeroed */
	errno = saved;
	apiprof_busy_leave(busy);
	if (n != NULL && apiprof_read_once(&s->mark_calls) != 0)
		n->e[SITE_OTHER] = (struct site_ent){
		        APIPROF_PARENT_UNKNOWN, apiprof_read_once(&s->mark_calls),
		        apiprof_read_once(&s->mark_ticks), apiprof_read_once(&s->mark_timed), 0};
	if (n == NULL || apiprof_cas_acq_rel(&s->tbl, &t, n))
		return n;
	return t;
}

/* Entry k's histogram, given one from the arena if it has none yet
 * (under the busy guard, as apiprof_sites_tbl_get); NULL when there is no room, and its
 * calls count in the row's own.  The first pointer stored stays. */
uint64_t *apiprof_sites_ent_hist(struct apiprof_site_tbl *t, size_t k)
{
	uint64_t *h = apiprof_load_acquire(&t->hist[k]); /* pairs with the release below */

	if (h != NULL)
		return h;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	uint64_t *n = apiprof_arena_alloc(APIPROF_HIST_BUCKETS * sizeof(uint64_t));
	errno = saved;
	apiprof_busy_leave(busy);
	/* release: pairs with the readers' acquire loads; acquire: the
	 * winner's pointer, when this one loses */
	if (n == NULL || apiprof_cas_acq_rel(&t->hist[k], &h, n))
		return n;
	return h;
}

/* Points row idx's timed calls at histogram h, or its own. */
static void hist_target(struct apiprof_tab *tab, uint32_t idx, const uint64_t *h)
{
	struct apiprof_row *c = apiprof_tab_row(tab, idx);

	apiprof_write_once(&c->hist_off, apiprof_hist_off(tab, h ? h : c->hist));
}

/* The entry that the site of key takes in the owner's table: a free one
 * of its set, or the one of the fewest calls + err, evicted.  gen is
 * odd. */
static int site_claim(struct apiprof_tab *tab, uint32_t idx, struct apiprof_site_tbl *t,
                      uint64_t key)
{
	uint64_t h = site_hash(APIPROF_SITE_ADDR(key));
	int v = -1;
	uint64_t low = UINT64_MAX;

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		const struct site_ent *e = &t->e[w];

		if (e->key == 0) {
			apiprof_write_once(&t->e[w].key, key);
			return (int)w;
		}
		if (e->calls + e->err < low) {
			low = e->calls + e->err;
			v = (int)w;
		}
	}
	apiprof_sites_evict(tab, idx, t, v, key);
	return v;
}

/* Whether addr lies in apiprof's own code, and if so, the site of the
 * profiled call the call was made in (the innermost in progress, the
 * key's parent): its run's address, itself replaced if it too lies in
 * apiprof's code (a chain of tail calls).  A library function that
 * tail-calls another api returns from it into its own wrapper. */
static __attribute__((noinline)) uint64_t site_addr_ours(uint64_t key)
{
	uint64_t addr = APIPROF_SITE_ADDR(key);

	for (int depth = 0; depth < 8 && apiprof_wrappers_ours(addr); depth++) {
		uint64_t k = apiprof_parent_run_key(APIPROF_SITE_PARENT(key));

		if (k == 0)
			return addr;
		key = k;
		addr = APIPROF_SITE_ADDR(k);
	}
	return addr;
}

APIPROF_INLINE uint64_t site_addr(uint64_t key)
{
	return apiprof_maybe_ours(APIPROF_SITE_ADDR(key)) ? site_addr_ours(key)
	                                                  : APIPROF_SITE_ADDR(key);
}

/* Whether the owner keeps a run's timed calls (mark_timed): the
 * process's, as the readers take it (apiprof_timing's sample bit, kept
 * once any call was counted and not timed: sampled or count mode). */
static bool own_sampled(void)
{
	return __atomic_load_n(&apiprof_timing, __ATOMIC_RELAXED) & APIPROF_MODE_SAMPLE;
}

/* Adds a run's figures d (calls, ticks, timed) to entry run - 1 of r's
 * table, or to "(other callers)" (run 0, a run with no entry yet, which
 * sampled mode has before its first timed call). */
APIPROF_INLINE void ent_credit(const struct row *r, uint64_t run, const uint64_t d[3])
{
	if (d[0] != 0 && r->t != NULL)
		ent_add_own(run ? &r->t->e[run - 1] : &r->t->e[SITE_OTHER], d[0], d[1], d[2]);
}

/* Adds r's parked run to its entry and, unless a folder closes the row
 * (it read the tree with the runs, apiprof_cct_fold), to its node; then
 * none is parked.  gen is odd. */
static void park_settle(const struct row *r, bool node)
{
	struct apiprof_sites *s = r->s;
	uint64_t pc = s->park_calls;
	const uint64_t d[3] = {pc, s->park_ticks, pc};

	if (s->park_key == 0)
		return;
	ent_credit(r, s->park_run, d);
	if (node)
		apiprof_cct_park_end(d, s->park_self);
	apiprof_write_once(&s->park_key, 0);
	apiprof_write_once(&s->park_calls, 0);
	apiprof_write_once(&s->park_ticks, 0);
	apiprof_write_once(&s->park_run, 0);
}

/* Parks r's run in progress, whose figures are d (none is parked). */
static void park_run(const struct row *r, const uint64_t d[3])
{
	struct apiprof_sites *s = r->s;

	apiprof_write_once(&s->park_calls, d[0]);
	apiprof_write_once(&s->park_ticks, d[1]);
	apiprof_write_once(&s->park_self, apiprof_read_once(&r->c->self));
	apiprof_write_once(&s->park_hoff, apiprof_read_once(&r->c->hist_off));
	apiprof_write_once(&s->park_run, s->run);
	apiprof_write_once(&s->park_key, r->c->last);
}

/* Ends the run in progress of row r at the row's figures calls, ticks
 * and timed: what the row has had since the marks goes to the run's
 * entry (ent_credit) and to its node of the call tree, whose hook also
 * sets the row's self to the node of next, the key of the run that
 * begins (0: none, the run is only closed); or, park, it is parked with
 * those figures (none is parked), and only self is set.  The one place
 * where a run's figures are computed.  gen is odd. */
APIPROF_INLINE void run_end(const struct row *r, uint64_t calls, uint64_t ticks, uint64_t timed,
                            uint64_t next, bool park)
{
	struct apiprof_sites *s = r->s;
	uint64_t run_calls = calls - s->mark_calls; /* the owner's own: plain loads */
	uint64_t run_ticks = ticks - s->mark_ticks;
	/* full timing: every call timed (the inline swap keeps no mark_timed) */
	uint64_t run_timed = r->sampled ? timed - s->mark_timed : run_calls;
	const uint64_t delta[3] = {run_calls, run_ticks, run_timed};

	if (park) {
		park_run(r, delta);
		apiprof_cct_run_end(r->tab, r->idx, NULL, next);
	} else {
		apiprof_cct_run_end(r->tab, r->idx, delta, next);
		ent_credit(r, s->run, delta);
	}
	apiprof_write_once(&s->mark_calls, calls);
	apiprof_write_once(&s->mark_ticks, ticks);
	apiprof_write_once(&s->mark_timed, timed);
}

/* run_end at the row's figures now (the owner's own: its last call has
 * returned).  gen is odd. */
static void run_end_now(const struct row *r, uint64_t next, bool park)
{
	uint64_t calls = apiprof_load(&r->tab->calls[r->idx]);
	uint64_t timed = r->sampled ? row_timed(r->tab, r->idx, true) : calls;

	run_end(r, calls, apiprof_load(&r->c->ticks), timed, next, park);
}

/* Entry k's histogram as hist_off says it, given one first (the owner's
 * table: one table's entries are one thread's). */
static __attribute__((noinline, cold)) int64_t hist_off_new(struct apiprof_tab *tab, uint32_t idx,
                                                            struct apiprof_site_tbl *t, int k)
{
	const uint64_t *h = apiprof_sites_ent_hist(t, (size_t)k);

	if (h == NULL)
		return apiprof_hist_off(tab, apiprof_tab_row(tab, idx)->hist);
	t->hist_off[k] = apiprof_hist_off(tab, h);
	return t->hist_off[k];
}

/* Starts a run of key's calls at entry k of r's table. */
APIPROF_INLINE void run_begin(const struct row *r, int k, uint64_t key, bool sampled)
{
	int64_t off = r->t->hist_off[k];

	apiprof_write_once(&r->s->run, (uint64_t)k + 1);
	apiprof_write_once(&r->c->last, key);
	/* the new run's timed calls count in its entry's histogram */
	apiprof_write_once(&r->c->hist_off, off != 0 ? off : hist_off_new(r->tab, r->idx, r->t, k));
	if (sampled)
		apiprof_write_once(&r->s->mark_timed, row_timed(r->tab, r->idx, true));
}

/* The run that ends and the one of key at entry k, between an odd and an
 * even gen; evict (k < 0): key's site takes an entry first, after the
 * run ends (the run's entry may be the one evicted).  In full timing the
 * run that ends is parked (apiprof_unpark), and the one parked before it
 * is added to its entry and node; not before an eviction, which may take
 * the entry of either: both are added then.  The entry. */
APIPROF_INLINE int run_switch(const struct row *r, int k, uint64_t key, uint64_t ekey)
{
	uint64_t done = gen_open(r);

	park_settle(r, true);
	run_end_now(r, key, k >= 0 && !r->sampled && r->c->last != 0);
	if (k < 0)
		k = site_claim(r->tab, r->idx, r->t, ekey);
	run_begin(r, k, key, r->sampled);
	gen_close(r, done);
	return k;
}

/* A switch to entry k for key: the run in progress ends, and one of key
 * begins, unless k is the run's own entry (the same address with another
 * parent, or an address replaced by the same enclosing site), where key
 * only becomes the run's key: a reader adds the run to the same entry
 * whichever of the two it finds.  Only while key's node of the call tree
 * is the run's too (apiprof_cct_keeps): else the run ends, so that the
 * tree has each node's calls. */
APIPROF_INLINE void switch_to(const struct row *r, int k, uint64_t key)
{
	if (r->s->run == (uint64_t)k + 1 && r->c->last != 0 &&
	    apiprof_cct_keeps(r->tab, r->idx, key))
		apiprof_write_once(&r->c->last, key);
	else
		run_switch(r, k, key, 0);
}

/* The two slots of struct apiprof_site_tbl's cache for run key key (the
 * newer first). */
APIPROF_INLINE struct site_cache *cache_of(struct apiprof_site_tbl *t, uint64_t key)
{
	return &t->cache[2 * ((key * 0x9e3779b97f4a7c15ull) >> (64 - SITE_CACHE_BITS))];
}

/* Whether slot h knows key, and its entry still has the site it had. */
APIPROF_INLINE bool cache_hit(const struct apiprof_site_tbl *t, const struct site_cache *h,
                              uint64_t key)
{
	return h->key == key && apiprof_read_once(&t->e[h->ent].key) == h->ekey;
}

/* A key the cache does not know: its site (its address replaced if it
 * is apiprof's), the site's entry, found or taken, then the switch, and
 * the cache learns it (its slot's older key is kept in the other). */
static __attribute__((noinline)) void switch_slow(struct apiprof_tab *tab, uint32_t idx,
                                                  uint64_t key)
{
	const struct row rr = row_of(tab, idx, own_sampled()), *r = &rr;
	struct apiprof_site_tbl *t = r->t;
	/* the entry's parent is the run key's node's function */
	uint64_t ekey = site_addr(key) << 16 | apiprof_cct_parent_func(APIPROF_SITE_PARENT(key));
	int k = site_probe(t, APIPROF_SITE_ADDR(ekey));

	if (k < 0) {
		k = run_switch(r, -1, key, ekey);
	} else {
		apiprof_write_once(&t->e[k].key, key_merge(t->e[k].key, ekey));
		switch_to(r, k, key);
	}
	if (APIPROF_SITE_ADDR(ekey) != APIPROF_SITE_ADDR(key)) {
		/* replaced: the next call of this key may be made in another
		 * call, so it comes here again, and the cache does not learn it */
		apiprof_write_once(&r->c->last, key | RUN_AGAIN);
		return;
	}
	struct site_cache *h = cache_of(t, key);
	h[1] = h[0];
	h[0] = (struct site_cache){key, t->e[k].key, (uint64_t)k};
}

/* A switch of a row that has no table (the arena had no room for one):
 * the run that ends still goes to its node of the call tree, and the new
 * run's node is found, so that the tree has every run of the row and the
 * calls made inside them their parent; its calls are all in "(other
 * callers)", which a reader makes of the row's own figures
 * (apiprof_sites_read_srec). */
static __attribute__((noinline, cold)) void switch_bare(const struct row *r, uint64_t key)
{
	uint64_t done = gen_open(r);

	run_end_now(r, key, false);
	apiprof_write_once(&r->c->last, key);
	gen_close(r, done);
}

/* The owner's half, as a call of key (its run key: return address and
 * parent) is about to start: the run that ends is the row's figures since
 * the marks.  The common case, a key seen before (an interpreter's malloc
 * whose callers take turns), is a look or two at the cache: its entry
 * there still has the site it had. */
void apiprof_site_switch(struct apiprof_tab *tab, uint32_t idx, uint64_t key)
{
	struct row r = row_of(tab, idx, own_sampled());

	if (r.t == NULL && (r.t = apiprof_sites_tbl_get(r.s)) == NULL) {
		switch_bare(&r, key);
		return;
	}
	if (key == r.s->park_key) { /* the monotonic clock's calls, swapped in */
		apiprof_unpark(tab, idx, r.s);
		return;
	}
	const struct site_cache *h = cache_of(r.t, key);
	const struct site_cache *hit = cache_hit(r.t, &h[0], key)   ? &h[0]
	                               : cache_hit(r.t, &h[1], key) ? &h[1]
	                                                            : NULL;
	if (hit != NULL)
		switch_to(&r, (int)hit->ent, key);
	else
		switch_slow(tab, idx, key);
}

/* Ends the run in progress of row i of a table whose owner is done with
 * it (a thread on its way out): the entries then have every call. */
void apiprof_sites_close(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	struct row r = row_of(tab, i, sampled);
	uint64_t done = gen_open(&r);

	park_settle(&r, false);
	run_end_now(&r, 0, false);
	gen_close(&r, done);
}

/* Zeroes row i's sites, word by word (a reader may be copying them), and
 * their histograms, which they keep; the row's timed calls count in its
 * own histogram until its first run. */
void apiprof_sites_init(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);
	struct apiprof_site_tbl *t = tbl_of(s);

	apiprof_write_once(&s->gen, 0);
	apiprof_write_once(&s->mark_calls, 0);
	apiprof_write_once(&s->mark_ticks, 0);
	apiprof_write_once(&s->mark_timed, 0);
	apiprof_write_once(&s->run, 0);
	apiprof_write_once(&s->park_key, 0);
	apiprof_write_once(&s->park_calls, 0);
	apiprof_write_once(&s->park_ticks, 0);
	apiprof_write_once(&s->park_self, 0);
	/* a parked call's way out counts through it at any moment (a fork
	 * child's call in progress): the row's own, never 0 */
	apiprof_write_once(&s->park_hoff, apiprof_hist_off(tab, apiprof_tab_row(tab, i)->hist));
	apiprof_write_once(&s->park_run, 0);
	apiprof_write_once(&s->floor, 0);
	for (int k = 0; t != NULL && k <= SITE_OTHER; k++) {
		uint64_t *w = (uint64_t *)&t->e[k];

		for (size_t j = 0; j < sizeof(t->e[k]) / sizeof(uint64_t); j++)
			apiprof_write_once(&w[j], 0);
		for (int b = 0; t->hist[k] != NULL && b < APIPROF_HIST_BUCKETS; b++)
			apiprof_write_once(&t->hist[k][b], 0);
	}
	for (int w = 0; t != NULL && w < 64; w++)
		t->gone[w] = 0;
	for (int w = 0; t != NULL && w < (2 << SITE_CACHE_BITS); w++)
		t->cache[w] = (struct site_cache){0};
	apiprof_write_once(&apiprof_tab_row(tab, i)->last, 0);
	hist_target(tab, i, NULL);
}
