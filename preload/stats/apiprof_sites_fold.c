/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites_fold.c - an exited thread's sites folded into its api's
 * totals, which several exiting threads may fold into at once.
 */
#include "apiprof_sites.h"

/* The same in an api's folded totals, which several threads may set at
 * once. */
static void key_merge_shared(uint64_t *k, uint64_t key)
{
	uint64_t have = apiprof_read_once(k);

	while (key_merge(have, key) != have && !apiprof_cas_relaxed(k, &have, key_merge(have, key)))
		;
}

/* Adds to an entry of an api's folded totals, which several exiting
 * threads may fold into at once. */
static void ent_add(struct site_ent *e, const struct site_ent *from)
{
	apiprof_fetch_add_relaxed(&e->calls, apiprof_read_once(&from->calls));
	apiprof_fetch_add_relaxed(&e->ticks, apiprof_read_once(&from->ticks));
	apiprof_fetch_add_relaxed(&e->timed, apiprof_read_once(&from->timed));
	apiprof_fetch_add_relaxed(&e->err, apiprof_read_once(&from->err));
}

/* Adds from, a histogram of src's row i (NULL: none), with the bucket
 * noted but not yet counted if it is there, into histogram k of dst's
 * table t, or the row's own when that has none. */
static void hist_fold(struct apiprof_tab *dst, uint32_t i, struct apiprof_site_tbl *t, int k,
                      struct apiprof_tab *src, const uint64_t *from)
{
	if (from == NULL)
		return;
	uint64_t *h = t ? apiprof_sites_ent_hist(t, (size_t)k) : NULL;
	if (h == NULL)
		h = apiprof_tab_row(dst, i)->hist;
	int due = apiprof_tab_due_in(src, from);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		apiprof_fetch_add_relaxed(&h[b], apiprof_load(&from[b]) + (b == due));
}

/* The entry of the site of key in an api's folded totals, which other
 * exiting threads may be folding into at once: found, or a free one of
 * its set taken with a compare-and-swap; SITE_OTHER when its set is
 * full (the folded totals evict nothing). */
static int fold_find(struct apiprof_site_tbl *t, uint64_t key)
{
	uint64_t h = site_hash(APIPROF_SITE_ADDR(key));

	for (unsigned n = 0; n < SITE_WAYS; n++) {
		unsigned w = way_of(h, n);
		uint64_t have = apiprof_read_once(&t->e[w].key);

		if (have == 0 && !apiprof_cas_relaxed(&t->e[w].key, &have, key) && have == 0)
			continue;
		if (have == 0 || APIPROF_SITE_ADDR(have) == APIPROF_SITE_ADDR(key)) {
			key_merge_shared(&t->e[w].key, key);
			return (int)w;
		}
	}
	return SITE_OTHER;
}

/* Row i of src had no table (the arena had no room): its calls, any of
 * its sites', go to dst's "(other callers)", or, when dst has no table
 * either, stay in the folded row's own figures, which a reader then
 * takes whole (apiprof_sites_read_srec). */
static void sites_fold_bare(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i,
                            bool sampled)
{
	struct apiprof_sites *to = sites_of(dst, i);
	struct apiprof_site_tbl *t = apiprof_sites_tbl_get(to);
	const struct apiprof_row *c = apiprof_tab_row(src, i);
	uint64_t calls = apiprof_load(&src->calls[i]);
	const struct site_ent e = {APIPROF_PARENT_UNKNOWN, calls, apiprof_load(&c->ticks),
	                           row_timed(src, i, sampled), 0};

	if (t == NULL || calls == 0)
		return;
	key_merge_shared(&t->e[SITE_OTHER].key, APIPROF_PARENT_UNKNOWN);
	ent_add(&t->e[SITE_OTHER], &e);
	apiprof_fetch_add_relaxed(&to->floor, calls);
}

/* Adds row i's sites of src (an exited thread's table, whose run is ended
 * here) into dst (its api's totals), which other exiting threads may be
 * folding into at once; the folded table never has a run of its own.  A
 * site's error bound in the totals is the sum of its bounds in the
 * threads, where a thread that had no entry for it (or whose entry found
 * no room here) adds the most it may have had: dst's floor sums those. */
void apiprof_sites_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i, bool sampled)
{
	struct apiprof_sites *from = sites_of(src, i), *to = sites_of(dst, i);
	struct apiprof_site_tbl *f = tbl_of(from);
	uint64_t spill = apiprof_read_once(&from->floor);

	apiprof_sites_close(src, i, sampled);
	if (f == NULL) {
		sites_fold_bare(dst, src, i, sampled);
		return;
	}
	struct apiprof_site_tbl *t = apiprof_sites_tbl_get(to);
	for (int k = 0; k <= SITE_OTHER; k++) {
		const struct site_ent *e = &f->e[k];

		if (apiprof_read_once(&e->calls) == 0)
			continue;
		int j = t == NULL ? -1 : k < SITE_OTHER ? fold_find(t, e->key) : SITE_OTHER;
		if (j == SITE_OTHER && k < SITE_OTHER && e->calls + e->err > spill)
			spill = e->calls + e->err;
		if (j == SITE_OTHER)
			key_merge_shared(&t->e[SITE_OTHER].key,
			                 k < SITE_OTHER ? APIPROF_SITE_PARENT(e->key)
			                                : apiprof_read_once(&e->key));
		if (j >= 0)
			ent_add(&t->e[j], e);
		hist_fold(dst, i, t, j, src, apiprof_load_acquire(&f->hist[k]));
	}
	apiprof_fetch_add_relaxed(&to->floor, spill);
}
