/* SPDX-License-Identifier: MIT */
/*
 * top_prom_budget.c - the exporter's budgets of series (top_prom_budget.h).
 *
 * Tables may share their bound of all users' series (x->pool: the
 * exporter's per-user views, so that their sum is bounded too); each
 * evicts only from itself.
 *
 * A series that only ended processes feed (its retired part, and no
 * running process added to it in the last two updates) is history: when
 * a budget is full, the oldest of them go first, a sixteenth of the pool
 * at a time so that a stream of new series does not walk the whole table
 * for each.  A series that a running process feeds is never evicted: a
 * new one is then left out, and that is said once for its user.
 */
#include <stdio.h>
#include <stdlib.h>

#include "top_prom_budget.h"

static struct top_prom_user *user_of(struct top_prom *x, uint32_t uid)
{
	for (size_t i = 0; i < x->nusers; i++)
		if (x->users[i].uid == uid)
			return &x->users[i];
	struct top_prom_user *nu = realloc(x->users, (x->nusers + 1) * sizeof(*nu));
	if (!nu)
		return NULL;
	x->users = nu;
	nu[x->nusers] = (struct top_prom_user){.uid = uid};
	return &nu[x->nusers++];
}

void top_prom_budget_gone(struct top_prom *x, uint32_t uid)
{
	struct top_prom_user *u = user_of(x, uid);

	if (u && u->nseries)
		u->nseries--;
}

/* The series eviction may take: of uid's only, or of anyone's. */
struct pool {
	const struct top_prom *x;
	uint32_t uid;
	bool any;
	struct top_prom_series **v;
	size_t n, cap;
};

static bool history(const struct top_prom *x, const struct top_prom_series *s)
{
	return s->retired && s->gen + 1 < x->gen;
}

static void collect(const void *rec, void *ctx)
{
	struct pool *p = ctx;
	struct top_prom_series *s = (struct top_prom_series *)rec;

	if (!history(p->x, s) || (!p->any && s->uid != p->uid))
		return;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct top_prom_series **nv = realloc(p->v, cap * sizeof(*nv));

		if (!nv)
			return; /* a smaller pool */
		p->v = nv;
		p->cap = cap;
	}
	p->v[p->n++] = s;
}

static int by_age(const void *a, const void *b)
{
	const struct top_prom_series *l = *(void *const *)a, *r = *(void *const *)b;

	return l->gen < r->gen ? -1 : l->gen > r->gen;
}

/* Evicts the oldest sixteenth (at least one) of the pool: how many. */
static size_t evict(struct top_prom *x, uint32_t uid, bool any)
{
	struct pool p = {.x = x, .uid = uid, .any = any};

	top_prom_each(x->series, collect, &p);
	if (p.n > 1) /* p.v is NULL when nothing was collected */
		qsort(p.v, p.n, sizeof(p.v[0]), by_age);
	size_t k = p.n ? p.n / 16 + 1 : 0;
	for (size_t i = 0; i < k; i++)
		top_prom_series_drop(x, p.v[i]);
	free(p.v);
	return k;
}

int top_prom_budget_take(struct top_prom *x, uint32_t uid)
{
	struct top_prom_user *u = user_of(x, uid);

	if (!u)
		return -1;
	if (u->nseries >= x->max_per_user && !evict(x, uid, false))
		goto full;
	if ((x->pool ? *x->pool : x->nseries) >= x->max_series && !evict(x, 0, true))
		goto full;
	u = user_of(x, uid); /* evict may not move it, but stay safe */
	u->nseries++;
	return 0;
full:
	if (!u->full_said)
		fprintf(stderr,
		        "apiprof-top: uid %u: %zu series (%zu in all) and none of ended processes "
		        "to evict: its new series are not exported\n",
		        (unsigned)uid, u->nseries, x->nseries);
	u->full_said = true;
	return 1;
}
