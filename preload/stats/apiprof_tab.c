/* SPDX-License-Identifier: MIT */
/*
 * apiprof_tab.c - the statistics tables: allocating and zeroing one,
 * reading a row that its owner may be updating, and folding an exited
 * thread's rows into the per-api totals.
 *
 * A table's layout is the generated wrappers' ABI and lives in
 * apiprof_shim.h (struct apiprof_tab, with the inline apiprof_enter and
 * apiprof_leave that write it); everything here runs off the hot path.
 * The tables have no state of their own: a table is its owner's memory
 * (a thread entry's, apiprof_thread.c, or an api's totals, apiprof_api.c),
 * and each owner resets its tables with apiprof_tab_init.
 */
#include "apiprof_internal.h"

/* A table of n rows (see struct apiprof_tab), zeroed word by word with
 * relaxed stores, not memset: when an entry is reset for a new thread the
 * flusher may be reading it (and will discard what it read, seeing the
 * generation change).  A row's start (t0) and the table's parent are kept: a fork
 * child resets its thread's tables while a call of that thread may be in
 * progress (fork itself, profiled), whose way out reads them.  So is its
 * acct pointer, never written again (the flusher may be reading it): the
 * area stays where the table was made with it.  A row's self (the node of
 * its run, apiprof_cct.c) goes back to "not known" until its next run
 * begins, which a timed call's switch does before it pushes.  hist_off is
 * set again by apiprof_sites_init, never zeroed: a call's way out may add
 * through it at any moment. */
static bool cold_kept(size_t word)
{
	size_t k = word * sizeof(uint64_t);

	return k == offsetof(struct apiprof_row, t0) || k == offsetof(struct apiprof_row, acct) ||
	       k == offsetof(struct apiprof_row, hist_off);
}

void apiprof_tab_init(struct apiprof_tab *tab, uint32_t n)
{
	apiprof_store(&tab->sink, 0);
	apiprof_write_once(&tab->due, 0);
	for (uint32_t i = 0; i < n; i++) {
		struct apiprof_row *c = apiprof_tab_row(tab, i);
		uint64_t *w = (uint64_t *)c;
		struct apiprof_acct *a = c->acct;

		apiprof_store(&tab->calls[i], 0);
		for (size_t k = 0; k < APIPROF_WORDS_PER_ROW; k++)
			if (!cold_kept(k))
				apiprof_store(&w[k], 0);
		apiprof_store(&c->min_ticks, UINT64_MAX);
		apiprof_store(&c->self, APIPROF_PARENT_UNKNOWN);
		for (size_t k = 0; a != NULL && k < sizeof *a / sizeof(uint64_t); k++)
			apiprof_store((uint64_t *)a + k, 0);
		apiprof_sites_init(tab, i);
	}
}

static uint32_t acct_rows(const struct apiprof_api *api)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < api->nfuncs; i++)
		k += (api->syms[i].flags & APIPROF_FUNC_ACCT) != 0;
	return k;
}

/* The cold rows, then the head and the counts, then the rows' call sites,
 * then an acct area for each row that declares bytes or failures.  The
 * arena's blocks are 64-byte aligned and a cold row is 9 lines, so the
 * head starts a line; so do the sites. */
struct apiprof_tab *apiprof_tab_alloc(const struct apiprof_api *api)
{
	uint32_t n = api->nfuncs;
	size_t cold = (size_t)n * sizeof(struct apiprof_row);
	size_t head =
	        (sizeof(struct apiprof_tab) + (size_t)n * sizeof(uint64_t) + 63) & ~(size_t)63;
	size_t sites = (size_t)n * sizeof(struct apiprof_sites);
	char *p = apiprof_arena_alloc(cold + head + sites +
	                              acct_rows(api) * sizeof(struct apiprof_acct));
	struct apiprof_tab *tab = (struct apiprof_tab *)(p + cold);

	_Static_assert(sizeof(struct apiprof_row) % 64 == 0, "cold rows keep the head aligned");
	if (p == NULL)
		return NULL;
	tab->sites = (struct apiprof_sites *)(p + cold + head);
	struct apiprof_acct *a = (struct apiprof_acct *)(p + cold + head + sites);
	for (uint32_t i = 0; i < n; i++) {
		struct apiprof_row *c = apiprof_tab_row(tab, i);

		c->acct = api->syms[i].flags & APIPROF_FUNC_ACCT ? a++ : NULL;
	}
	tab->parent = APIPROF_PARENT_NONE;
	tab->hist_xor = apiprof_cpu_hist_xor();
	apiprof_tab_init(tab, n);
	return tab;
}

int apiprof_tab_due_in(struct apiprof_tab *tab, const uint64_t *hist)
{
	return apiprof_due_bucket(apiprof_read_once(&tab->due), apiprof_hist_off(tab, hist));
}

/* The bucket of row i's own histogram that the owner has noted but not
 * yet counted, or -1. */
static int due_bucket(struct apiprof_tab *tab, uint32_t i)
{
	return apiprof_tab_due_in(tab, apiprof_tab_row(tab, i)->hist);
}

/* The bytes and failures of row i, where the row has them. */
void apiprof_tab_read_acct(struct apiprof_fstat *dst, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_row *c = apiprof_tab_row(tab, i);

	dst->acct = c->acct != NULL;
	if (!dst->acct)
		return;
	dst->bytes = apiprof_load(&c->acct->bytes);
	dst->failures = apiprof_load(&c->acct->failures);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		dst->size_hist[b] = apiprof_load(&c->acct->size_hist[b]);
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		dst->errnos[k] = apiprof_load(&c->acct->errnos[k]);
}

/* The same into a ring slot, sizes beyond the record's last bucket in it. */
void apiprof_tab_read_xrec(struct apiprof_rec_acct *dst, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_row *c = apiprof_tab_row(tab, i);
	const struct apiprof_acct *a = c->acct;

	dst->calls = apiprof_load(&tab->calls[i]);
	dst->bytes = a ? apiprof_load(&a->bytes) : 0;
	dst->failures = a ? apiprof_load(&a->failures) : 0;
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		int to = b < APIPROF_SIZE_BUCKETS ? b : APIPROF_SIZE_BUCKETS - 1;
		uint64_t n = a ? apiprof_load(&a->size_hist[b]) : 0;

		dst->size_hist[to] = to == b ? n : dst->size_hist[to] + n;
	}
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		dst->errnos[k] = a ? apiprof_load(&a->errnos[k]) : 0;
}

uint64_t apiprof_tab_hist_timed(struct apiprof_tab *tab, const uint64_t *hist)
{
	int due = apiprof_tab_due_in(tab, hist);
	uint64_t timed = 0;

	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		timed += apiprof_load(&hist[b]) + (b == due);
	return timed;
}

/* Where row_read puts a row: the fields of a struct apiprof_fstat or of a
 * ring record, which have the same names but are different types. */
struct row_out {
	uint64_t *calls, *ticks, *min_ticks, *max_ticks, *timed, *hist;
};

/* A consistent-enough copy of row i of a table another thread may be
 * updating: every field is read whole (relaxed), calls first (see
 * apiprof_leave), fields may be one call apart, and the next snapshot
 * catches up.  The histogram is the row's own and its sites' summed, and
 * the bucket the owner has noted but not yet counted is counted here.
 * Written straight to its destination, which may be a ring slot: no copy
 * of the row on the caller's stack. */
static void row_read(const struct row_out *o, struct apiprof_tab *tab, uint32_t i)
{
	const struct apiprof_row *c = apiprof_tab_row(tab, i);
	int due = due_bucket(tab, i);
	uint64_t timed = 0;

	*o->calls = apiprof_load(&tab->calls[i]);
	*o->ticks = apiprof_load(&c->ticks);
	*o->min_ticks = apiprof_load(&c->min_ticks);
	*o->max_ticks = apiprof_load(&c->max_ticks);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		o->hist[b] = apiprof_load(&c->hist[b]) + (b == due);
	apiprof_sites_hist_add(o->hist, tab, i);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		timed += o->hist[b];
	*o->timed = timed;
}

void apiprof_tab_read(struct apiprof_fstat *dst, struct apiprof_tab *tab, uint32_t i)
{
	const struct row_out o = {&dst->calls,     &dst->ticks, &dst->min_ticks,
	                          &dst->max_ticks, &dst->timed, dst->hist};

	row_read(&o, tab, i);
}

void apiprof_tab_read_rec(struct apiprof_rec_times *dst, struct apiprof_tab *tab, uint32_t i)
{
	const struct row_out o = {&dst->calls,     &dst->ticks, &dst->min_ticks,
	                          &dst->max_ticks, &dst->timed, dst->hist};

	row_read(&o, tab, i);
}

static void atomic_min(uint64_t *p, uint64_t v)
{
	uint64_t cur = apiprof_read_once(p);

	while (v < cur && !apiprof_cas_relaxed(p, &cur, v))
		;
}

static void atomic_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = apiprof_read_once(p);

	while (v > cur && !apiprof_cas_relaxed(p, &cur, v))
		;
}

/* Adds row i of src (a table nobody writes any more: an exited thread's)
 * into row i of dst, field by field, without a copy of the row on the
 * stack; several exiting threads may fold into dst at once. */
void apiprof_tab_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i, bool sampled)
{
	const struct apiprof_row *s = apiprof_tab_row(src, i);
	struct apiprof_row *d = apiprof_tab_row(dst, i);
	uint64_t calls = apiprof_load(&src->calls[i]);
	int due = due_bucket(src, i);

	if (calls == 0)
		return;
	apiprof_fetch_add_relaxed(&dst->calls[i], calls);
	apiprof_fetch_add_relaxed(&d->ticks, apiprof_load(&s->ticks));
	atomic_min(&d->min_ticks, apiprof_load(&s->min_ticks));
	atomic_max(&d->max_ticks, apiprof_load(&s->max_ticks));
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		apiprof_fetch_add_relaxed(&d->hist[b], apiprof_load(&s->hist[b]) + (b == due));
	apiprof_sites_fold(dst, src, i, sampled);
	if (s->acct == NULL || d->acct == NULL)
		return;
	apiprof_fetch_add_relaxed(&d->acct->bytes, apiprof_load(&s->acct->bytes));
	apiprof_fetch_add_relaxed(&d->acct->failures, apiprof_load(&s->acct->failures));
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		apiprof_fetch_add_relaxed(&d->acct->size_hist[b],
		                          apiprof_load(&s->acct->size_hist[b]));
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++)
		apiprof_fetch_add_relaxed(&d->acct->errnos[k], apiprof_load(&s->acct->errnos[k]));
}
