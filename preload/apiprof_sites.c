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
#include "apiprof_internal.h"

static struct apiprof_sites *sites_of(struct apiprof_tab *tab, uint32_t i)
{
	return &tab->sites[i];
}

/* The row's timed calls: the histogram's count, with the bucket noted but
 * not yet counted (apiprof_tab.c), or its calls when every call is timed. */
static uint64_t row_timed(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	return sampled ? apiprof_tab_timed(tab, i) : apiprof_load(&tab->calls[i]);
}

/* Where the probe for key starts (the top 4 bits of its hash), and its
 * bit in struct apiprof_sites' seen (the top 7). */
static unsigned site_hash(uint64_t key)
{
	return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 57);
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
	unsigned h = site_hash(key) >> 3;

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
	unsigned h = site_hash(key);
	uint64_t bit = 1ull << (h & 63), seen = apiprof_read_once(&s->seen[h >> 6]);
	struct apiprof_shm_site *e = seen & bit ? site_probe(s, key, false) : NULL;

	if (e != NULL)
		return e;
	if (s->used == APIPROF_SITES)
		return site_other(s, key);
	apiprof_write_once(&s->seen[h >> 6], seen | bit);
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
                    uint64_t timed, uint64_t next, struct apiprof_shm_site *next_e)
{
	struct apiprof_sites *s = sites_of(tab, idx);
	struct apiprof_cold *c = apiprof_tab_cold(tab, idx);
	uint64_t gen = apiprof_read_once(&s->gen);
	uint64_t last = apiprof_read_once(&c->last);

	apiprof_write_once(&s->gen, gen + 1); /* pairs with apiprof_tab_read_srec's loads */
	apiprof_fence_release();
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

	if (s->run == (uint64_t)(e - s->site) + 1 && apiprof_read_once(&c->last) != 0) {
		apiprof_write_once(&c->last, key);
		return;
	}
	run_end(tab, idx, apiprof_load(&tab->calls[idx]), apiprof_load(&c->ticks),
	        row_timed(tab, idx, sampled), key, e);
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
	        apiprof_read_once(&apiprof_tab_cold(tab, i)->last), NULL);
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
	}
}

/* Zeroes row i's sites, word by word (a reader may be copying them). */
void apiprof_sites_init(struct apiprof_tab *tab, uint32_t i)
{
	uint64_t *w = (uint64_t *)sites_of(tab, i);

	for (size_t k = 0; k < sizeof(struct apiprof_sites) / sizeof(uint64_t); k++)
		apiprof_write_once(&w[k], 0);
	apiprof_write_once(&apiprof_tab_cold(tab, i)->last, 0);
}
