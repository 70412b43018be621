/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites_read.c - a reader's half of struct apiprof_sites: a row's
 * sites as the flusher and the exit output read them (a copy taken
 * between two equal even values of gen, the runs in progress added), with
 * their histograms and quantiles.
 */
#include "apiprof_sites.h"
#include "apiprof_stat.h"

/* The runs of a reader's copy, the one in progress (calls since the
 * marks) and the parked one: each added to its entry's figures as the
 * copy is made. */
struct srec_run {
	uint64_t entry; /* 1 + its entry, 0: "(other callers)", UINT64_MAX: none */
	uint64_t calls, ticks, timed;
};

/* Adds run to x, entry k's copy, if it is k's. */
static void run_into(struct site_ent *x, int k, const struct srec_run *run)
{
	bool mine = run->entry == (uint64_t)k + 1 || (run->entry == 0 && k == SITE_OTHER);

	if (mine && run->calls != 0 && run->calls <= (uint64_t)1 << 62) {
		x->calls += run->calls;
		x->ticks += run->ticks;
		x->timed += run->timed;
	}
}

/* A reader's copy of entry k of t, with the runs that are k's. */
static struct site_ent ent_read(const struct apiprof_site_tbl *t, int k,
                                const struct srec_run run[2])
{
	struct site_ent x = {
	        apiprof_read_once(&t->e[k].key),   apiprof_read_once(&t->e[k].calls),
	        apiprof_read_once(&t->e[k].ticks), apiprof_read_once(&t->e[k].timed),
	        apiprof_read_once(&t->e[k].err),
	};

	run_into(&x, k, &run[0]);
	run_into(&x, k, &run[1]);
	return x;
}

static void out_put(struct apiprof_rec_sites *dst, int j, const struct site_ent *x)
{
	dst->site[j] = (struct apiprof_shm_site){x->key, x->calls, x->ticks, x->timed};
	dst->calls_error[j] = x->err;
}

/* Adds x to dst's "(other callers)", whose parent is that of all of its
 * calls, or APIPROF_PARENT_UNKNOWN. */
static void out_other(struct apiprof_rec_sites *dst, const struct site_ent *x)
{
	struct apiprof_shm_site *o = &dst->site[APIPROF_SITES];
	uint64_t p = x->key ? APIPROF_SITE_PARENT(x->key) : APIPROF_PARENT_UNKNOWN;

	if (x->calls == 0)
		return;
	o->key = o->key == 0 ? p : key_merge(o->key, p);
	o->calls += x->calls;
	o->ticks += x->ticks;
	o->timed += x->timed;
	/* a site counted here had at most its entry's upper bound */
	if (x->calls + x->err > dst->calls_error[APIPROF_SITES])
		dst->calls_error[APIPROF_SITES] = x->calls + x->err;
}

/* Entry x into dst's APIPROF_SITES with the most calls (n of them so
 * far), or the one it beats, or itself, into "(other callers)". */
static void out_rank(struct apiprof_rec_sites *dst, int *n, const struct site_ent *x)
{
	if (x->calls == 0)
		return;
	if (*n < APIPROF_SITES) {
		out_put(dst, (*n)++, x);
		return;
	}
	int low = 0;
	for (int j = 1; j < APIPROF_SITES; j++)
		if (dst->site[j].calls < dst->site[low].calls)
			low = j;
	if (dst->site[low].calls >= x->calls) {
		out_other(dst, x);
		return;
	}
	struct site_ent y = {dst->site[low].key, dst->site[low].calls, dst->site[low].ticks,
	                     dst->site[low].timed, dst->calls_error[low]};
	out_other(dst, &y);
	out_put(dst, low, x);
}

/* One copy of t into dst, the runs added. */
static void srec_copy(struct apiprof_rec_sites *dst, const struct apiprof_site_tbl *t,
                      const struct srec_run run[2])
{
	int n = 0;

	for (int j = 0; j <= APIPROF_SITES; j++) {
		dst->site[j] = (struct apiprof_shm_site){0};
		dst->calls_error[j] = 0;
	}
	for (int k = 0; t != NULL && k < SITE_SLOTS; k++) {
		struct site_ent x = ent_read(t, k, run);
		out_rank(dst, &n, &x);
	}
	struct site_ent o = {0};
	if (t != NULL)
		o = ent_read(t, SITE_OTHER, run);
	else /* no table (the arena had no room): every call, any of its sites */
		o = (struct site_ent){0, run[0].calls, run[0].ticks, run[0].timed, 0};
	o.key = o.key ? o.key : APIPROF_PARENT_UNKNOWN;
	out_other(dst, &o);
}

/* The runs of row i, whose calls are calls, as a reader reads them
 * (between two equal values of gen): in full timing every call is
 * timed. */
static void runs_read(struct srec_run run[2], struct apiprof_tab *tab, uint32_t i, bool sampled,
                      uint64_t calls)
{
	const struct apiprof_sites *s = sites_of(tab, i);
	uint64_t rc = calls - apiprof_read_once(&s->mark_calls);
	uint64_t pc = apiprof_read_once(&s->park_calls);

	run[0] = (struct srec_run){
	        apiprof_read_once(&s->run),
	        rc,
	        apiprof_load(&apiprof_tab_row(tab, i)->ticks) - apiprof_read_once(&s->mark_ticks),
	        sampled ? row_timed(tab, i, true) - apiprof_read_once(&s->mark_timed) : rc,
	};
	run[1] = (struct srec_run){
	        apiprof_read_once(&s->park_key) ? apiprof_read_once(&s->park_run) : UINT64_MAX,
	        pc,
	        apiprof_read_once(&s->park_ticks),
	        pc,
	};
}

/* A reader's half: row i's entries into dst, the APIPROF_SITES with the
 * most calls and the rest in "(other callers)", with the run in progress
 * added to its entry (an api's folded totals have none), from a copy
 * taken while the owner was not switching (a few tries; false when it
 * always was: the next snapshot has it).  Written straight into dst,
 * which may be a ring slot. */
bool apiprof_sites_read_srec(struct apiprof_rec_sites *dst, struct apiprof_tab *tab, uint32_t i,
                             bool sampled, bool folded)
{
	struct apiprof_sites *s = sites_of(tab, i);
	struct apiprof_row *c = apiprof_tab_row(tab, i);

	for (int tries = 0; tries < 16; tries++) {
		uint64_t gen = apiprof_load_acquire(&s->gen); /* pairs with the switch's release */
		if (gen & 1)
			continue;
		const struct apiprof_site_tbl *t = tbl_of(s);
		uint64_t calls = apiprof_load(&tab->calls[i]);
		struct srec_run run[2];
		runs_read(run, tab, i, sampled, calls);
		if (folded || t == NULL || apiprof_read_once(&c->last) == 0)
			run[0].entry = folded ? UINT64_MAX : 0;
		if (folded || t == NULL)
			run[1].entry = UINT64_MAX;
		if (folded)
			run[0].calls = 0;
		if (t == NULL) /* no table: the row's own figures, whole */
			run[0] = (struct srec_run){0, calls, apiprof_load(&c->ticks),
			                           row_timed(tab, i, sampled)};
		uint64_t floor = apiprof_read_once(&s->floor);
		srec_copy(dst, t, run);
		apiprof_fence_acquire(); /* pairs with the switch's fence_release */
		if (apiprof_read_once(&s->gen) != gen)
			continue;
		/* folded: a site may have been out of any entry in each thread */
		for (int j = 0; folded && j < APIPROF_SITES; j++)
			dst->calls_error[j] += dst->site[j].calls ? floor : 0;
		if (floor > dst->calls_error[APIPROF_SITES])
			dst->calls_error[APIPROF_SITES] = floor;
		dst->calls = calls;
		return true;
	}
	return false;
}

/* Adds histogram k of t into hist, with the bucket noted but not yet
 * counted if it is there. */
static void hist_add_one(uint64_t *hist, struct apiprof_tab *tab, const struct apiprof_site_tbl *t,
                         int k)
{
	const uint64_t *h =
	        apiprof_load_acquire(&t->hist[k]); /* pairs with apiprof_sites_ent_hist */
	int due = h ? apiprof_tab_due_in(tab, h) : -1;

	for (int b = 0; h != NULL && b < APIPROF_HIST_BUCKETS; b++)
		hist[b] += apiprof_load(&h[b]) + (b == due);
}

/* "(other callers)"' first: an eviction adds the evicted entry's buckets
 * there before it zeroes them, so a reader may miss them for one read,
 * never count them twice. */
void apiprof_sites_hist_add(uint64_t *hist, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_site_tbl *t = tbl_of(sites_of(tab, i));

	if (t == NULL)
		return;
	hist_add_one(hist, tab, t, SITE_OTHER);
	apiprof_fence_acquire();
	for (int k = 0; k < SITE_OTHER; k++)
		hist_add_one(hist, tab, t, k);
}

/* The entry of row i whose key is key (other: "(other callers)"), or -1. */
static int ent_of_key(const struct apiprof_site_tbl *t, uint64_t key, bool other)
{
	if (other)
		return SITE_OTHER;
	return key ? site_probe(t, APIPROF_SITE_ADDR(key)) : -1;
}

bool apiprof_site_quantiles(struct apiprof_tab *tab, uint32_t i, uint64_t key, bool other,
                            uint64_t *scratch, uint64_t q[2])
{
	const struct apiprof_site_tbl *t = tbl_of(sites_of(tab, i));
	int k = t ? ent_of_key(t, key, other) : -1;
	const uint64_t *h = k >= 0 ? apiprof_load_acquire(&t->hist[k]) : NULL;
	const struct apiprof_row *c = apiprof_tab_row(tab, i);
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

/* Written straight into dst, a ring slot: the entries of a copy of the
 * sites (apiprof_sites_read_srec, into scratch's srec), each paired with
 * the sites of the same snapshot by its key. */
void apiprof_sites_read_qrec(struct apiprof_rec_siteq *dst, struct apiprof_tab *tab, uint32_t i,
                             const struct apiprof_rec_sites *sites, uint64_t *scratch)
{
	dst->calls = apiprof_load(&tab->calls[i]);
	dst->timed = 0; /* the flusher stamps it */
	for (int k = 0; k <= APIPROF_SITES; k++) {
		struct apiprof_shm_siteq *e = &dst->site[k];
		uint64_t q[2];

		e->key = sites ? sites->site[k].key : 0;
		bool known = e->key != 0 &&
		             apiprof_site_quantiles(tab, i, e->key, k == APIPROF_SITES, scratch, q);
		e->p50_ticks = known ? q[0] : APIPROF_SITEQ_NONE;
		e->p99_ticks = known ? q[1] : APIPROF_SITEQ_NONE;
	}
}
