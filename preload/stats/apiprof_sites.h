/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites.h - a row's calls by call site and parent (issues 23 and
 * 35): the layout of a row's table of sites and both halves of struct
 * apiprof_sites' protocol, private to the files that keep it:
 * apiprof_sites.c (the owner's switch from one run of calls to the next,
 * the table's memory), apiprof_sites_evict.c (an entry evicted),
 * apiprof_sites_call.c (a row's call in progress: parked, at a fork,
 * abandoned), apiprof_sites_read.c (a reader's copy: what the flusher and
 * the exit output read) and apiprof_sites_fold.c (an exited thread's
 * sites folded into its api's totals).
 *
 * The inline way in (apiprof_shim.h apiprof_same_site) does nothing while
 * the calls of a row keep coming from the site of the run in progress:
 * the run's figures are the row's own since it began.  A call from
 * another site comes here.  The owner is the only writer; a reader
 * copies an entry table between two equal even values of gen (a seqlock,
 * as the ring's slots are), and adds the run in progress itself.
 *
 * The entries are heavy hitters, kept by space-saving in sets: a site's
 * address hashes to one of SITE_SETS sets of SITE_WAYS entries, and a
 * site that has none takes a free one of its set or else that of the
 * entry with the lowest upper bound (calls + err).  Each set is then a
 * space-saving summary of the sites that hash to it: an entry's count
 * starts at 0 with err the evicted entry's calls + err, so its true count
 * lies in [calls, calls + err]; the evicted entry's figures and its
 * histogram move to "(other callers)", so the entries still add up to the
 * row's calls, exactly.  A site with no entry had at most `floor` calls
 * (the most calls + err of an evicted entry).  Sets bound the work of a
 * switch: a site is found among SITE_WAYS entries, and an eviction looks
 * at no more; an interpreter's malloc, whose callers outnumber the
 * sixteen entries of a record, finds them all in the table's 128.
 */
#ifndef APIPROF_SITES_H
#define APIPROF_SITES_H

#include "apiprof_internal.h"

#define SITE_WAYS       8
#define SITE_SETS       16
#define SITE_SLOTS      (SITE_WAYS * SITE_SETS)
#define SITE_OTHER      SITE_SLOTS /* the entry of "(other callers)" */
#define SITE_CACHE_BITS 5
/* In struct apiprof_row's last: a run whose key no call matches (a
 * return address is below 2^47, so a key never has the top bit), so
 * that every call comes to the switch. */
#define RUN_AGAIN (1ull << 63)

/* One entry: key as in apiprof_abi.h (address and parent), the figures
 * of its calls since it took the entry, and their error bound. */
struct site_ent {
	uint64_t key, calls, ticks, timed, err;
};

/* A run key (raw return address and parent) and its entry, whose key
 * was ekey. */
struct site_cache {
	uint64_t key, ekey, ent;
};

struct apiprof_site_tbl {
	struct site_ent e[SITE_SLOTS + 1];
	/* e[k]'s latency histogram (APIPROF_HIST_BUCKETS words, from the
	 * arena when the entry is first used; NULL: none, its calls count in
	 * the row's own).  The row's histogram is its own and these summed.
	 * An evicted entry's moves to "(other callers)"' and starts again at
	 * zero for the newcomer.  Kept by resets, zeroed; never written by a
	 * shim. */
	uint64_t *hist[SITE_SLOTS + 1];
	/* hist[k] as struct apiprof_row's hist_off says it (from its table's
	 * sink), 0 until it is given: what a switch to entry k sets there. */
	int64_t hist_off[SITE_SLOTS + 1];
	/* The owner's own: the entries of the run keys it switched to lately,
	 * by the key's hash, each valid while its entry has the same key. */
	struct site_cache cache[2 << SITE_CACHE_BITS];
	/* The owner's own: two bits of 4096 for each site it has evicted (a
	 * Bloom filter), so that a newcomer it never evicted, which had no
	 * call before (every call of a site takes it an entry), starts
	 * exact.  Looked at only when a site takes an entry. */
	uint64_t gone[64];
};

APIPROF_INLINE struct apiprof_sites *sites_of(struct apiprof_tab *tab, uint32_t i)
{
	return &tab->sites[i];
}

APIPROF_INLINE struct apiprof_site_tbl *tbl_of(struct apiprof_sites *s)
{
	return apiprof_load_acquire(&s->tbl); /* pairs with apiprof_sites_tbl_get's release */
}

/* The histogram the row's timed calls count in now (its hist_off): that
 * of the run's site, or the row's own. */
static inline const uint64_t *run_hist(struct apiprof_tab *tab, uint32_t i)
{
	int64_t off = apiprof_read_once(&apiprof_tab_row(tab, i)->hist_off);

	return (const uint64_t *)((intptr_t)&tab->sink +
	                          (intptr_t)off * (intptr_t)sizeof(uint64_t));
}

/* The row's timed calls, as far as its run in progress tells them: the
 * count of the histogram the run's calls go to (with the bucket noted but
 * not yet counted, apiprof_tab.c), which only the run's timed calls
 * change while it lasts, or the row's calls when every call is timed. */
APIPROF_INLINE uint64_t row_timed(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	return sampled ? apiprof_tab_hist_timed(tab, run_hist(tab, i))
	               : apiprof_load(&tab->calls[i]);
}

/* The site at address addr's hash: its set is the top 4 bits, and its
 * entry is looked for from way h >> 57 & 7 of it on (where it is put
 * when that way is free), so that it is mostly found at the first look. */
APIPROF_INLINE uint64_t site_hash(uint64_t addr)
{
	return addr * 0x9e3779b97f4a7c15ull;
}

/* The n-th entry to look at for the site whose hash is h. */
APIPROF_INLINE unsigned way_of(uint64_t h, unsigned n)
{
	return (unsigned)(h >> 60) * SITE_WAYS + (((unsigned)(h >> 57) + n) & (SITE_WAYS - 1));
}

/* The entry of the site at addr in its set, or -1. */
APIPROF_INLINE int site_probe(const struct apiprof_site_tbl *t, uint64_t addr)
{
	uint64_t h = site_hash(addr);

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		uint64_t k = apiprof_read_once(&t->e[w].key);

		if (APIPROF_SITE_ADDR(k) == addr && k != 0)
			return (int)w;
	}
	return -1;
}

/* An entry's key after calls of key: its parent stays while they all
 * have the same one, else becomes APIPROF_PARENT_UNKNOWN. */
static inline uint64_t key_merge(uint64_t have, uint64_t key)
{
	if (have == key || APIPROF_SITE_PARENT(have) == APIPROF_PARENT_UNKNOWN)
		return have;
	return (have & ~(uint64_t)0xffff) | APIPROF_PARENT_UNKNOWN;
}

/* Adds to an entry of a thread's own table, which only its owner writes:
 * no locked instruction (a switch of site can come every call). */
APIPROF_INLINE void ent_add_own(struct site_ent *e, uint64_t calls, uint64_t ticks, uint64_t timed)
{
	apiprof_write_once(&e->calls, apiprof_read_once(&e->calls) + calls);
	apiprof_write_once(&e->ticks, apiprof_read_once(&e->ticks) + ticks);
	apiprof_write_once(&e->timed, apiprof_read_once(&e->timed) + timed);
}

/* One row of a table and its sites, looked up once: the switch's writes
 * are to memory that may alias any of them. */
struct row {
	struct apiprof_tab *tab;
	uint32_t idx;
	bool sampled; /* the owner's mode: sampled, or full timing */
	struct apiprof_sites *s;
	struct apiprof_row *c;
	struct apiprof_site_tbl *t; /* NULL: none (yet) */
};

APIPROF_INLINE struct row row_of(struct apiprof_tab *tab, uint32_t idx, bool sampled)
{
	struct apiprof_sites *s = sites_of(tab, idx);

	return (struct row){tab, idx, sampled, s, apiprof_tab_row(tab, idx), tbl_of(s)};
}

/* The owner's writes to r's runs, between an odd gen (gen_open, whose
 * release pairs with apiprof_sites_read_srec's loads) and the even one
 * after it (gen_close, with the value gen_open gave). */
APIPROF_INLINE uint64_t gen_open(const struct row *r)
{
	uint64_t gen = r->s->gen;

	apiprof_write_once(&r->s->gen, gen + 1);
	apiprof_fence_release();
	return gen + 2;
}

APIPROF_INLINE void gen_close(const struct row *r, uint64_t done)
{
	apiprof_store_release(&r->s->gen, done);
}

/* s's table, given one from the arena if it has none yet
 * (apiprof_sites.c). */
APIPROF_HIDDEN struct apiprof_site_tbl *apiprof_sites_tbl_get(struct apiprof_sites *s);
/* Entry k's histogram, given one if it has none yet (apiprof_sites.c). */
APIPROF_HIDDEN uint64_t *apiprof_sites_ent_hist(struct apiprof_site_tbl *t, size_t k);
/* Entry v of the owner's table evicted for key (apiprof_sites_evict.c). */
APIPROF_HIDDEN void apiprof_sites_evict(struct apiprof_tab *tab, uint32_t idx,
                                        struct apiprof_site_tbl *t, int v, uint64_t key);
/* Ends the run in progress of row i of a table whose owner is done with
 * it (apiprof_sites.c). */
APIPROF_HIDDEN void apiprof_sites_close(struct apiprof_tab *tab, uint32_t i, bool sampled);

#endif
