/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites_evict.c - space-saving's eviction in the owner's table
 * (apiprof_sites.h): an entry's figures and histogram moved to "(other
 * callers)", and the filter of the sites evicted so far.
 */
#include "apiprof_sites.h"

/* Moves histogram from (NULL: none) into to, and zeroes it; the bucket
 * the owner noted but has not yet counted, if it is in from, is counted
 * there first (the next timed call then counts its own in the sink). */
static void hist_move(struct apiprof_tab *tab, uint64_t *to, uint64_t *from)
{
	if (from == NULL)
		return;
	int due = apiprof_tab_due_in(tab, from);
	if (due >= 0) {
		apiprof_write_once(&from[due], apiprof_read_once(&from[due]) + 1);
		apiprof_write_once(&tab->due, 0);
	}
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		apiprof_write_once(&to[b], apiprof_read_once(&to[b]) + apiprof_read_once(&from[b]));
		apiprof_write_once(&from[b], 0);
	}
}

/* Bit k (0 or 1) of the site at addr in struct apiprof_site_tbl's gone:
 * its word in *w. */
static uint64_t gone_bit(uint64_t addr, unsigned k, unsigned *w)
{
	unsigned b = (unsigned)((addr * 0xc2b2ae3d27d4eb4full) >> (40 + 12 * k)) & 4095;

	*w = b >> 6;
	return 1ull << (b & 63);
}

static bool gone_has(const struct apiprof_site_tbl *t, uint64_t addr)
{
	unsigned w0, w1;
	uint64_t b0 = gone_bit(addr, 0, &w0), b1 = gone_bit(addr, 1, &w1);

	return (t->gone[w0] & b0) && (t->gone[w1] & b1);
}

static void gone_add(struct apiprof_site_tbl *t, uint64_t addr)
{
	for (unsigned k = 0; k < 2; k++) {
		unsigned w;
		uint64_t b = gone_bit(addr, k, &w);

		t->gone[w] |= b;
	}
}

/* Space-saving's eviction, in the owner's table: entry v (of the fewest
 * calls + err of its set) moves its figures and its histogram to
 * "(other callers)", and starts again for key with its upper bound as
 * the newcomer's error (0 when the newcomer was never evicted: it then
 * had no call before).  gen is odd. */
void apiprof_sites_evict(struct apiprof_tab *tab, uint32_t idx, struct apiprof_site_tbl *t, int v,
                         uint64_t key)
{
	struct apiprof_sites *s = sites_of(tab, idx);
	struct site_ent *e = &t->e[v], *o = &t->e[SITE_OTHER];
	uint64_t bound = e->calls + e->err;

	ent_add_own(o, e->calls, e->ticks, e->timed);
	apiprof_write_once(&o->key, key_merge(o->key, APIPROF_SITE_PARENT(e->key)));
	if (bound > s->floor)
		apiprof_write_once(&s->floor, bound);
	uint64_t *h = apiprof_load_acquire(&t->hist[v]);
	if (h != NULL) {
		uint64_t *oh = apiprof_sites_ent_hist(t, SITE_OTHER);
		hist_move(tab, oh ? oh : apiprof_tab_row(tab, idx)->hist, h);
	}
	gone_add(t, APIPROF_SITE_ADDR(e->key));
	apiprof_write_once(&e->calls, 0);
	apiprof_write_once(&e->ticks, 0);
	apiprof_write_once(&e->timed, 0);
	/* a site never evicted had no call before this one */
	apiprof_write_once(&e->err, gone_has(t, APIPROF_SITE_ADDR(key)) ? bound : 0);
	apiprof_write_once(&e->key, key);
}
