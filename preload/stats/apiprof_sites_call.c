/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sites_call.c - a row's call in progress seen from outside the
 * switch: whether it is one of the parked run's, the run key of a parent's
 * call, and a call found in progress in a fork child or abandoned.
 */
#include "apiprof_cct.h"
#include "apiprof_sites.h"

static bool parked_in_call(struct apiprof_tab *tab, uint32_t i);

/* The parent's call is its row's call in progress: one of the row's
 * parked run's when that is timed where it is (APIPROF_CALL_PARKED), and
 * the key is then the parked run's. */
uint64_t apiprof_parent_run_key(uint32_t parent)
{
	uint32_t api, row;

	if (!apiprof_cct_node_row(parent, &api, &row))
		return 0;
	struct apiprof_tab *tab = apiprof_tls_self()->api[api].tab;
	if (tab == NULL)
		return 0;
	const uint64_t *k = parked_in_call(tab, row) ? &sites_of(tab, row)->park_key
	                                             : &apiprof_tab_row(tab, row)->last;
	return apiprof_read_once(k) & ~RUN_AGAIN;
}

/* Whether row i's call in progress (the owner's) is one of its parked
 * run's, timed where it is (APIPROF_CALL_PARKED): in full timing every
 * timed call of the row stores its start in t0, and only those in
 * park_t0 too (both kept by resets). */
static bool parked_in_call(struct apiprof_tab *tab, uint32_t i)
{
	uint64_t t0 = apiprof_read_once(&apiprof_tab_row(tab, i)->t0);

	return t0 != 0 && apiprof_read_once(&sites_of(tab, i)->park_t0) == t0;
}

/* A fork child's row whose call was in progress at the fork (its tables
 * reset): the call's run is not known.  A call of the parked run, whose
 * way out adds it to the parked run, finds one of "(other callers)"
 * that no call continues (RUN_AGAIN), as the run in progress is. */
void apiprof_sites_inherited(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_row *c = apiprof_tab_row(tab, i);
	struct apiprof_sites *s = sites_of(tab, i);

	apiprof_write_once(&c->self, APIPROF_CCT_OVF | 0u);
	apiprof_write_once(&c->last, RUN_AGAIN);
	if (parked_in_call(tab, i)) {
		apiprof_write_once(&s->park_self, APIPROF_CCT_OVF | 0u);
		apiprof_write_once(&s->park_key, RUN_AGAIN);
	}
}

void apiprof_sites_abandoned(struct apiprof_tab *tab, uint32_t i)
{
	struct apiprof_sites *s = sites_of(tab, i);

	if (apiprof_read_once(&s->park_key) == 0 || !parked_in_call(tab, i)) {
		apiprof_add(&tab->calls[i], 1);
		return;
	}
	struct row r = row_of(tab, i, false); /* only full timing parks */
	uint64_t done = gen_open(&r);

	apiprof_add(&tab->calls[i], 1);
	apiprof_write_once(&s->mark_calls, s->mark_calls + 1);
	apiprof_write_once(&s->park_calls, s->park_calls + 1);
	gen_close(&r, done);
}
