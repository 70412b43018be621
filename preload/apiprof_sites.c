/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites.c - a row's calls by call site and parent (issue 23):
 * both halves of struct apiprof_sites' protocol, the owner's switch from
 * one run of calls to the next and a reader's copy, side by side, and the
 * folding of an exited thread's sites into its api's totals.
 *
 * The inline way in (apiprof_shim.h apiprof_same_site) does nothing while
 * the calls of a row keep coming from the site of the run in progress:
 * the run's figures are the row's own since it began.  A call from
 * another site comes here.  The owner is the only writer; a reader
 * copies an entry table between two equal even values of gen (a seqlock,
 * as the ring's slots are), and adds the run in progress itself.
 */
#include <errno.h>

#include "apiprof_cct.h"
#include "apiprof_internal.h"
#include "apiprof_stat.h"

static struct apiprof_sites *sites_of(struct apiprof_tab *tab, uint32_t i)
{
	return &tab->sites[i];
}

/* The histogram the row's timed calls count in now (its hist_off): that
 * of the run's site, or the row's own. */
static const uint64_t *run_hist(struct apiprof_tab *tab, uint32_t i)
{
	int64_t off = apiprof_read_once(&apiprof_tab_cold(tab, i)->hist_off);

	return (const uint64_t *)((intptr_t)&tab->sink +
	                          (intptr_t)off * (intptr_t)sizeof(uint64_t));
}

/* The row's timed calls, as far as its run in progress tells them: the
 * count of the histogram the run's calls go to (with the bucket noted but
 * not yet counted, apiprof_tab.c), which only the run's timed calls
 * change while it lasts, or the row's calls when every call is timed. */
static uint64_t row_timed(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	return sampled ? apiprof_tab_hist_timed(tab, run_hist(tab, i))
	               : apiprof_load(&tab->calls[i]);
}

/* Entry k's histogram, given one from the arena if it has none yet (the
 * runtime's work, under the busy guard: the arena may call mmap); NULL
 * when there is no room, and its calls count in the row's own.  In an
 * api's folded totals several exiting threads may ask at once: the first
 * pointer stored stays (a loser's block is lost to the arena). */
static uint64_t *site_hist(struct apiprof_sites *s, size_t k)
{
	uint64_t *h = apiprof_load_acquire(&s->hist[k]); /* pairs with the release below */

	if (h != NULL)
		return h;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	uint64_t *n = apiprof_arena_alloc(APIPROF_HIST_BUCKETS * sizeof(uint64_t));
	errno = saved;
	apiprof_busy_leave(busy);
	/* release: pairs with the readers' acquire loads; acquire: the
	 * winner's pointer, when this one loses */
	if (n == NULL || apiprof_cas_acq_rel(&s->hist[k], &h, n))
		return n;
	return h;
}

/* Points row idx's timed calls at entry k's histogram, or its own. */
static void hist_target(struct apiprof_tab *tab, uint32_t idx, const uint64_t *h)
{
	struct apiprof_cold *c = apiprof_tab_cold(tab, idx);

	apiprof_write_once(&c->hist_off, apiprof_hist_off(tab, h ? h : c->hist));
}

/* A key's hash: the probe for it starts at the top 4 bits, and its bits
 * in struct apiprof_sites' seen are the three bytes below them. */
static uint64_t site_hash(uint64_t key)
{
	return key * 0x9e3779b97f4a7c15ull;
}

/* Bit k (0 to 2) of the key whose hash is h in struct apiprof_sites'
 * seen, a Bloom filter of the keys its entries have (256 bits): its word
 * in *w.  With all 16 entries taken, about 1 in 200 of the keys they do
 * not have passes for one they may, and costs a probe of every entry.
 * With one bit of 128, 1 in 8 did, and which of a program's callers were
 * among them moved with where its libraries were loaded: 20037 such
 * probes in one layout of the malloc workload, 331 in another. */
static uint64_t seen_bit(uint64_t h, unsigned k, unsigned *w)
{
	unsigned b = (unsigned)(h >> (36 + 8 * k)) & 255;

	*w = b >> 6;
	return 1ull << (b & 63);
}

/* Whether seen has the three bits of the key whose hash is h: most keys
 * that no entry has are told by the first. */
static bool site_seen(const struct apiprof_sites *s, uint64_t h)
{
	for (unsigned k = 0; k < 3; k++) {
		unsigned w;
		uint64_t bit = seen_bit(h, k, &w);

		if (!(apiprof_read_once(&s->seen[w]) & bit))
			return false;
	}
	return true;
}

static void site_seen_add(struct apiprof_sites *s, uint64_t h)
{
	for (unsigned k = 0; k < 3; k++) {
		unsigned w;
		uint64_t bit = seen_bit(h, k, &w);

		apiprof_write_once(&s->seen[w], apiprof_read_once(&s->seen[w]) | bit);
	}
}

/* The "(other callers)" entry, for key's calls: its key keeps the parent
 * of its calls if they all have the same one, else
 * APIPROF_PARENT_UNKNOWN.  Several threads may set it at once in an api's
 * folded totals. */
static struct apiprof_shm_site *site_other(struct apiprof_sites *s, uint64_t key)
{
	struct apiprof_shm_site *o = &s->site[APIPROF_SITES];
	uint64_t want = APIPROF_SITE_PARENT(key);
	uint64_t have = apiprof_read_once(&o->key);

	if (have == want || have == APIPROF_PARENT_UNKNOWN)
		return o; /* the common case of a full table: no locked instruction */
	while (!apiprof_cas_relaxed(&o->key, &have, want)) {
		if (have == want || have == APIPROF_PARENT_UNKNOWN)
			break;
		want = APIPROF_PARENT_UNKNOWN;
	}
	return o;
}

/* The entry of key among the first APIPROF_SITES, or a free one given to
 * it (claim); NULL when there is neither.  Several threads may claim at
 * once in an api's folded totals: a free entry is taken with a
 * compare-and-swap. */
static struct apiprof_shm_site *site_probe(struct apiprof_sites *s, uint64_t key, bool claim)
{
	/* Open addressing from the key's hash: a key is found a probe or two
	 * from where it hashes, and one that is not there at the first free
	 * entry (entries are never freed). */
	unsigned h = (unsigned)(site_hash(key) >> 60);

	for (unsigned n = 0; n < APIPROF_SITES; n++) {
		struct apiprof_shm_site *e = &s->site[(h + n) % APIPROF_SITES];
		uint64_t have = apiprof_read_once(&e->key);

		if (have == key)
			return e;
		if (have != 0)
			continue;
		if (!claim)
			break;
		if (apiprof_cas_relaxed(&e->key, &have, key) || have == key)
			return e;
	}
	return NULL;
}

/* site_probe's entry, or else "(other callers)". */
static struct apiprof_shm_site *site_find(struct apiprof_sites *s, uint64_t key, bool claim)
{
	struct apiprof_shm_site *e = site_probe(s, key, claim);

	return e ? e : site_other(s, key);
}

/* site_find in a thread's own table, whose owner is its only writer: a
 * key that seen says no entry has goes straight to a free entry, or, once
 * all are taken, to "(other callers)".  A program with more sites than
 * entries (malloc's callers in an interpreter) switches between them
 * every few calls; without seen, each such switch probed every entry. */
static struct apiprof_shm_site *site_find_own(struct apiprof_sites *s, uint64_t key)
{
	uint64_t h = site_hash(key);
	struct apiprof_shm_site *e = site_seen(s, h) ? site_probe(s, key, false) : NULL;

	if (e != NULL)
		return e;
	if (s->used == APIPROF_SITES)
		return site_other(s, key);
	site_seen_add(s, h);
	s->used++;
	return site_find(s, key, true); /* the first free entry from h */
}

/* Adds to an entry of an api's folded totals, which several exiting
 * threads may fold into at once. */
static void site_add(struct apiprof_shm_site *e, uint64_t calls, uint64_t ticks, uint64_t timed)
{
	apiprof_fetch_add_relaxed(&e->calls, calls);
	apiprof_fetch_add_relaxed(&e->ticks, ticks);
	apiprof_fetch_add_relaxed(&e->timed, timed);
}

/* Adds to an entry of a thread's own table, which only its owner writes:
 * no locked instruction (a switch of site can come every call). */
static void site_add_own(struct apiprof_shm_site *e, uint64_t calls, uint64_t ticks, uint64_t timed)
{
	apiprof_write_once(&e->calls, apiprof_read_once(&e->calls) + calls);
	apiprof_write_once(&e->ticks, apiprof_read_once(&e->ticks) + ticks);
	apiprof_write_once(&e->timed, apiprof_read_once(&e->timed) + timed);
}

/* Ends the run in progress of row idx at the row's figures calls,
 * ticks and timed: what the row has had since the marks goes to the
 * run's entry (a run with no site yet, last 0, which sampled mode has
 * before its first timed call, to "(other callers)"), and the marks move
 * there.  Only the owner writes; gen is odd meanwhile. */
static void run_end(struct apiprof_tab *tab, uint32_t idx, uint64_t calls, uint64_t ticks,
                    uint64_t timed, uint64_t next, struct apiprof_shm_site *next_e, bool sampled)
{
	struct apiprof_sites *s = sites_of(tab, idx);
	struct apiprof_cold *c = apiprof_tab_cold(tab, idx);
	uint64_t gen = apiprof_read_once(&s->gen);
	uint64_t last = apiprof_read_once(&c->last);

	apiprof_write_once(&s->gen, gen + 1); /* pairs with apiprof_tab_read_srec's loads */
	apiprof_fence_release();
	const uint64_t delta[3] = {calls - s->mark_calls, ticks - s->mark_ticks,
	                           timed - s->mark_timed};
	apiprof_cct_run_end(tab, idx, delta, next_e != NULL ? next : 0);
	if (calls != s->mark_calls) {
		struct apiprof_shm_site *e = s->run != 0 && last != 0 ? &s->site[s->run - 1]
		                             : last != 0              ? site_find_own(s, last)
		                                         : site_other(s, APIPROF_PARENT_UNKNOWN);
		site_add_own(e, calls - s->mark_calls, ticks - s->mark_ticks,
		             timed - s->mark_timed);
	}
	apiprof_write_once(&s->mark_calls, calls);
	apiprof_write_once(&s->mark_ticks, ticks);
	apiprof_write_once(&s->mark_timed, timed);
	if (next_e != NULL) {
		/* the new run's entry, kept for its end and for a reader to find */
		s->run = (uint64_t)(next_e - s->site) + 1;
		apiprof_write_once(&c->last, next);
		/* the new run's timed calls count in its entry's histogram */
		hist_target(tab, idx, site_hist(s, s->run - 1));
		if (sampled)
			apiprof_write_once(&s->mark_timed, row_timed(tab, idx, true));
	}
	apiprof_store_release(&s->gen, gen + 2);
}

/* The owner's half, as a call of key is about to start: the run that ends
 * is the row's figures since the marks.  A key of the run's own entry
 * ("(other callers)", mostly: an interpreter's malloc has more callers
 * than entries, and they take turns) only becomes the run's key: a reader
 * adds the run to the same entry whichever of the two it finds. */
void apiprof_site_switch(struct apiprof_tab *tab, uint32_t idx, uint64_t key)
{
	struct apiprof_sites *s = sites_of(tab, idx);
	struct apiprof_cold *c = apiprof_tab_cold(tab, idx);
	struct apiprof_shm_site *e = site_find_own(s, key);
	bool sampled = apiprof_tls_self()->mode & APIPROF_MODE_SAMPLE;

	if (s->run == (uint64_t)(e - s->site) + 1 && apiprof_read_once(&c->last) != 0 &&
	    apiprof_cct_keeps(tab, idx, key)) {
		apiprof_write_once(&c->last, key);
		return;
	}
	run_end(tab, idx, apiprof_load(&tab->calls[idx]), apiprof_load(&c->ticks),
	        row_timed(tab, idx, sampled), key, e, sampled);
}

/* A run of calls from one site (key) that its entry does not have yet. */
struct srec_run {
	uint64_t key, calls, ticks, timed;
};

/* The run in progress of a copy: added to its key's entry, or to the
 * "(other callers)" entry when the key has none (all were taken). */
static void srec_add_run(struct apiprof_shm_srec *dst, const struct srec_run *run)
{
	struct apiprof_shm_site *e = &dst->site[APIPROF_SITES];

	if (run->calls == 0 || run->calls > (uint64_t)1 << 62)
		return; /* none, or figures read one call apart */
	for (int k = 0; k < APIPROF_SITES && run->key != 0; k++)
		if (dst->site[k].key == run->key)
			e = &dst->site[k];
	if (e == &dst->site[APIPROF_SITES] && e->key == 0)
		e->key = run->key ? APIPROF_SITE_PARENT(run->key) : APIPROF_PARENT_UNKNOWN;
	e->calls += run->calls;
	e->ticks += run->ticks;
	e->timed += run->timed;
}

/* A reader's half: row i's entries into dst, with the run in progress
 * added to its entry (an api's folded totals have none), from a copy taken while the owner was not
 * switching (a few tries; false when it always was: the next snapshot
 * has it).  Written straight into dst, which may be a ring slot. */
bool apiprof_tab_read_srec(struct apiprof_shm_srec *dst, struct apiprof_tab *tab, uint32_t i,
                           bool sampled, bool folded)
{
	struct apiprof_sites *s = sites_of(tab, i);
	struct apiprof_cold *c = apiprof_tab_cold(tab, i);

	for (int tries = 0; tries < 16; tries++) {
		uint64_t gen = apiprof_load_acquire(&s->gen); /* pairs with the switch's release */
		if (gen & 1)
			continue;
		for (int k = 0; k <= APIPROF_SITES; k++) {
			dst->site[k].key = apiprof_read_once(&s->site[k].key);
			dst->site[k].calls = apiprof_read_once(&s->site[k].calls);
			dst->site[k].ticks = apiprof_read_once(&s->site[k].ticks);
			dst->site[k].timed = apiprof_read_once(&s->site[k].timed);
		}
		uint64_t last = apiprof_read_once(&c->last);
		uint64_t mc = apiprof_read_once(&s->mark_calls);
		uint64_t mt = apiprof_read_once(&s->mark_ticks);
		uint64_t mtd = apiprof_read_once(&s->mark_timed);
		uint64_t calls = apiprof_load(&tab->calls[i]);
		uint64_t ticks = apiprof_load(&c->ticks);
		uint64_t timed = row_timed(tab, i, sampled);
		apiprof_fence_acquire(); /* pairs with the switch's fence_release */
		if (apiprof_read_once(&s->gen) != gen)
			continue;
		struct srec_run run = {last, calls - mc, ticks - mt, timed - mtd};
		if (!folded)
			srec_add_run(dst, &run);
		dst->calls = calls;
		return true;
	}
	return false;
}

/* Ends the run in progress of row i of a table whose owner is done with
 * it (a thread on its way out): the entries then have every call. */
static void sites_close(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	run_end(tab, i, apiprof_load(&tab->calls[i]),
	        apiprof_load(&apiprof_tab_cold(tab, i)->ticks), row_timed(tab, i, sampled),
	        apiprof_read_once(&apiprof_tab_cold(tab, i)->last), NULL, sampled);
}

/* Adds from, a histogram of src's row i (NULL: none), with the bucket
 * noted but not yet counted if it is there, into the histogram of its
 * entry `to` of dst's row i, or the row's own when that has none. */
static void hist_fold(struct apiprof_tab *dst, uint32_t i, struct apiprof_shm_site *to,
                      struct apiprof_tab *src, const uint64_t *from)
{
	struct apiprof_sites *s = sites_of(dst, i);

	if (from == NULL)
		return;
	uint64_t *h = site_hist(s, (size_t)(to - s->site));
	if (h == NULL)
		h = apiprof_tab_cold(dst, i)->hist;
	int due = apiprof_tab_due_in(src, from);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		apiprof_fetch_add_relaxed(&h[b], apiprof_load(&from[b]) + (b == due));
}

/* Adds row i's sites of src (an exited thread's table, whose run is ended
 * here) into dst (its api's totals), which other exiting threads may be
 * folding into at once; the folded table never has a run of its own. */
void apiprof_sites_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i, bool sampled)
{
	struct apiprof_sites *from = sites_of(src, i);

	sites_close(src, i, sampled);
	for (int k = 0; k <= APIPROF_SITES; k++) {
		const struct apiprof_shm_site *e = &from->site[k];
		uint64_t key = apiprof_read_once(&e->key);

		if (apiprof_read_once(&e->calls) == 0)
			continue;
		struct apiprof_shm_site *to = k < APIPROF_SITES
		                                      ? site_find(sites_of(dst, i), key, true)
		                                      : site_find(sites_of(dst, i), key, false);
		site_add(to, e->calls, e->ticks, e->timed);
		hist_fold(dst, i, to, src, apiprof_load_acquire(&from->hist[k]));
	}
}

/* Zeroes row i's sites, word by word (a reader may be copying them), and
 * their histograms, which they keep; the row's timed calls count in its
 * own histogram until its first run. */
void apiprof_sites_init(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);
	uint64_t *w = (uint64_t *)s;

	for (size_t k = 0; k < offsetof(struct apiprof_sites, hist) / sizeof(uint64_t); k++)
		apiprof_write_once(&w[k], 0);
	for (int k = 0; k <= APIPROF_SITES; k++)
		for (int b = 0; s->hist[k] != NULL && b < APIPROF_HIST_BUCKETS; b++)
			apiprof_write_once(&s->hist[k][b], 0);
	apiprof_write_once(&apiprof_tab_cold(tab, i)->last, 0);
	hist_target(tab, i, NULL);
}

void apiprof_sites_hist_add(uint64_t *hist, struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);

	for (int k = 0; k <= APIPROF_SITES; k++) {
		const uint64_t *h = apiprof_load_acquire(&s->hist[k]); /* pairs with site_hist */
		int due = h ? apiprof_tab_due_in(tab, h) : -1;

		for (int b = 0; h != NULL && b < APIPROF_HIST_BUCKETS; b++)
			hist[b] += apiprof_load(&h[b]) + (b == due);
	}
}

bool apiprof_site_quantiles(struct apiprof_tab *tab, uint32_t i, int k, uint64_t *scratch,
                            uint64_t q[2])
{
	const uint64_t *h = apiprof_load_acquire(&sites_of(tab, i)->hist[k]);
	const struct apiprof_cold *c = apiprof_tab_cold(tab, i);
	uint64_t n = 0;

	if (h == NULL)
		return false;
	int due = apiprof_tab_due_in(tab, h);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		n += scratch[b] = apiprof_load(&h[b]) + (b == due);
	if (n == 0)
		return false;
	/* within the row's extremes: a site's calls are among the row's */
	uint64_t lo = apiprof_load(&c->min_ticks), hi = apiprof_load(&c->max_ticks);
	q[0] = (uint64_t)(apiprof_stat_quantile(scratch, 0.50, lo, hi) + 0.5);
	q[1] = (uint64_t)(apiprof_stat_quantile(scratch, 0.99, lo, hi) + 0.5);
	return true;
}

/* Written straight into dst, a ring slot; an entry that a snapshot of the
 * sites pairs with by its key. */
void apiprof_tab_read_qrec(struct apiprof_shm_qrec *dst, struct apiprof_tab *tab, uint32_t i,
                           uint64_t *scratch)
{
	struct apiprof_sites *s = sites_of(tab, i);

	dst->calls = apiprof_load(&tab->calls[i]);
	dst->timed = 0; /* the flusher stamps it */
	for (int k = 0; k <= APIPROF_SITES; k++) {
		struct apiprof_shm_siteq *e = &dst->site[k];
		uint64_t q[2];

		e->key = apiprof_read_once(&s->site[k].key);
		bool known = e->key != 0 && apiprof_site_quantiles(tab, i, k, scratch, q);
		e->p50_ticks = known ? q[0] : APIPROF_SITEQ_NONE;
		e->p99_ticks = known ? q[1] : APIPROF_SITEQ_NONE;
	}
}
