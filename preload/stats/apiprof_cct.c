/* SPDX-License-Identifier: MIT */
/*
 * apiprof_cct.c - the calling-context tree (issue 35.2): both halves of
 * its protocol, the owner's writes and a reader's copy, and the folding
 * of an exited thread's nodes into the process's tree by path.
 *
 * The hot path is unchanged: `cur` holds the node id of the thread's
 * innermost call, which a timed call's way in pushes from its row's
 * `self`.  A row's run of calls (apiprof_sites.c: calls of one key,
 * ret << 16 | parent node) has one node for its whole length: the child
 * of the parent node for the row's function, or for a root the node of
 * (call site, function).  The switch to a new run finds it here, out of
 * line, and sets `self`; the figures of the run that ends (what the row
 * has had since the run began) are added to its node.  A reader adds the
 * runs in progress itself, as apiprof_tab_read_srec does for the sites.
 *
 * The table is bounded (APIPROF_MAX_NODES): once it is full, a call
 * under node P with no node of its own counts in P's overflow figures,
 * and calls made inside such a call count in P's "not recorded" calls,
 * never in a path that did not happen (apiprof_cct.h's tags).
 */
#include <errno.h>
#include <sched.h>

#include "apiprof_cct.h"

static struct apiprof_cct folded_tree;

struct apiprof_cct *apiprof_cct_folded(void)
{
	return &folded_tree;
}

struct apiprof_cct_node *apiprof_cct_node(const struct apiprof_cct *t, uint32_t id)
{
	struct apiprof_cct_node *c = apiprof_load_acquire(&t->chunk[id / APIPROF_CCT_CHUNK]);

	return c ? &c[id % APIPROF_CCT_CHUNK] : NULL;
}

/* Memory from the arena, under the busy guard (it may call mmap), errno
 * kept. */
static void *cct_alloc(size_t size)
{
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	void *p = apiprof_arena_alloc(size);

	errno = saved;
	apiprof_busy_leave(busy);
	return p;
}

/* The chain heads and the first chunk (with node 0), once; false when
 * the arena has no room: every call then counts in node 0's overflow. */
static bool cct_ready(struct apiprof_cct *t)
{
	if (apiprof_load_acquire(&t->head) != NULL)
		return true;
	uint32_t cap = apiprof_cfg.node_cap ? apiprof_cfg.node_cap : 2048;
	uint32_t n = 1;
	while (n < 2 * cap)
		n <<= 1;
	uint32_t *head = cct_alloc((size_t)n * sizeof(uint32_t));
	struct apiprof_cct_node *c0 =
	        cct_alloc(APIPROF_CCT_CHUNK * sizeof(struct apiprof_cct_node));
	if (head == NULL || c0 == NULL)
		return false;
	t->cap = cap < APIPROF_CCT_MAX ? cap : APIPROF_CCT_MAX;
	t->hmask = n - 1;
	apiprof_store_release(&t->chunk[0], c0);
	apiprof_store_release(&t->head, head);
	return true;
}

static uint32_t hash_of(uint32_t parent, uint32_t func, uint64_t ret)
{
	uint64_t h = (ret ^ ((uint64_t)parent << 32 | func)) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32);
}

/* The node (parent, func, ret) if the table has it, else 0. */
static uint32_t node_find(const struct apiprof_cct *t, uint32_t parent, uint32_t func, uint64_t ret)
{
	uint32_t id = apiprof_read_once(&t->head[hash_of(parent, func, ret) & t->hmask]);

	while (id != 0) {
		const struct apiprof_cct_node *n = apiprof_cct_node(t, id);

		if (n->parent == parent && n->func == func && n->ret == ret)
			return id;
		id = n->next;
	}
	return 0;
}

/* Where the calls of the row (api id, row) of function func found under
 * `parent` (a node id, 0: a root) from ret go: their node, made here if
 * need be, or the parent's overflow once the table is full. */
static uint32_t node_get(struct apiprof_cct *t, uint32_t parent, const struct apiprof_cct_node *key)
{
	uint32_t id = node_find(t, parent, key->func, key->ret);

	if (id != 0)
		return id;
	id = t->count + 1;
	if (id > t->cap)
		return APIPROF_CCT_OVF | parent;
	struct apiprof_cct_node **c = &t->chunk[id / APIPROF_CCT_CHUNK];
	if (*c == NULL)
		apiprof_store_release(c, cct_alloc(APIPROF_CCT_CHUNK * sizeof(**c)));
	if (*c == NULL)
		return APIPROF_CCT_OVF | parent;
	struct apiprof_cct_node *n = &(*c)[id % APIPROF_CCT_CHUNK];
	uint32_t *h = &t->head[hash_of(parent, key->func, key->ret) & t->hmask];
	n->ret = key->ret;
	n->func = key->func;
	n->parent = (uint16_t)parent;
	n->api = key->api;
	n->row = key->row;
	n->next = *h;
	n->fig = (struct apiprof_cct_fig){0};
	apiprof_store_release(&t->count, id); /* the key before the id */
	apiprof_write_once(h, id);
	return id;
}

void apiprof_cct_attach(struct apiprof_thread *th)
{
	struct apiprof_cct *t = apiprof_load_acquire(&th->cct);

	if (t == NULL) {
		t = cct_alloc(sizeof(*t));
		if (t == NULL)
			return;
		apiprof_store_release(&th->cct, t);
	}
	cct_ready(t);
}

/* The owner's table (apiprof_cct_attach); NULL when there is none to be
 * had: its calls are then in no node. */
static struct apiprof_cct *own_tree(void)
{
	struct apiprof_thread *th = apiprof_tls_block()->self;
	struct apiprof_cct *t = apiprof_load_acquire(&th->cct);

	return t != NULL && apiprof_load_acquire(&t->head) != NULL ? t : NULL;
}

/* The api id of the owner's table tab, and its function's index. */
static bool own_func(struct apiprof_tab *tab, uint32_t idx, struct apiprof_cct_node *key)
{
	struct apiprof_tls *self = apiprof_tls_self();

	for (uint32_t id = 1; id <= self->apis && id < APIPROF_MAX_APIS; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		if (self->api[id].tab == tab && api != NULL && idx < api->nfuncs) {
			key->api = (uint16_t)id;
			key->row = idx;
			key->func = api->func_base + idx;
			return true;
		}
	}
	return false;
}

/* Where the node of a run of key of row idx is: made if need be (make),
 * else found or the parent's overflow.  A parent not known (abandoned
 * calls, a reset table) makes a root of no call site, "(context not
 * known)". */
static uint32_t node_look(struct apiprof_cct *t, struct apiprof_tab *tab, uint32_t idx,
                          uint64_t key, struct apiprof_cct_node *k, bool make)
{
	uint32_t p = (uint32_t)(key & 0xffffu);

	if (!own_func(tab, idx, k))
		return APIPROF_PARENT_UNKNOWN;
	if (p & (APIPROF_CCT_OVF | APIPROF_CCT_LOST) && p < APIPROF_PARENT_MAX)
		return APIPROF_CCT_LOST | (p & APIPROF_CCT_ID); /* inside a call with no path */
	if (p == APIPROF_PARENT_NONE)
		p = 0;
	else if (p == 0 || p > apiprof_read_once(&t->count))
		p = 0, k->ret = 0;
	else
		k->ret = 0;
	if (make)
		return node_get(t, p, k);
	uint32_t id = node_find(t, p, k->func, k->ret);
	return id != 0 ? id : APIPROF_CCT_OVF | p;
}

/* The node of the run of key (ret << 16 | parent node) of row idx. */
static uint32_t node_of_key(struct apiprof_cct *t, struct apiprof_tab *tab, uint32_t idx,
                            uint64_t key)
{
	struct apiprof_cct_node k = {.ret = APIPROF_SITE_ADDR(key)};

	if (apiprof_read_once(&t->writing)) /* a signal handler's, inside the owner's */
		return node_look(t, tab, idx, key, &k, false);
	if (t->memo_key == key && t->memo_tab == tab && t->memo_idx == idx)
		return t->memo_node;
	apiprof_write_once(&t->writing, 1);
	apiprof_compiler_barrier();
	uint32_t id = node_look(t, tab, idx, key, &k, true);
	t->memo_key = key;
	t->memo_tab = tab;
	t->memo_idx = idx;
	t->memo_node = id;
	apiprof_compiler_barrier();
	apiprof_write_once(&t->writing, 0);
	return id;
}

bool apiprof_cct_keeps(struct apiprof_tab *tab, uint32_t idx, uint64_t key)
{
	struct apiprof_cct *t = own_tree();

	return t == NULL ||
	       node_of_key(t, tab, idx, key) == apiprof_read_once(&apiprof_tab_row(tab, idx)->self);
}

/* Node p of the owner's table (a run key's parent part), NULL when p is
 * none of its nodes (a root's NONE, a tag, not known). */
static const struct apiprof_cct_node *own_node(uint32_t p)
{
	struct apiprof_cct *t = own_tree();

	if (t == NULL || p == 0 || p > APIPROF_CCT_ID || p > apiprof_load_acquire(&t->count))
		return NULL;
	return apiprof_cct_node(t, p);
}

uint32_t apiprof_cct_parent_func(uint32_t p)
{
	const struct apiprof_cct_node *n = p == APIPROF_PARENT_NONE ? NULL : own_node(p);

	if (p == APIPROF_PARENT_NONE)
		return p;
	return n != NULL && n->func + 1 <= APIPROF_PARENT_MAX ? n->func + 1
	                                                      : APIPROF_PARENT_UNKNOWN;
}

bool apiprof_cct_node_row(uint32_t p, uint32_t *api, uint32_t *row)
{
	const struct apiprof_cct_node *n = own_node(p);

	if (n == NULL || n->api == 0 || n->api >= APIPROF_MAX_APIS)
		return false;
	*api = n->api;
	*row = n->row;
	return true;
}

static void add_own(uint64_t *w, uint64_t d)
{
	apiprof_write_once(w, apiprof_read_once(w) + d);
}

/* Adds a run's figures (calls, ticks, timed) to where its node says. */
static void fig_add(struct apiprof_cct *t, uint32_t node, const uint64_t d[3])
{
	uint32_t id = node & APIPROF_CCT_ID;
	struct apiprof_cct_node *n = node >= APIPROF_PARENT_MAX || id > apiprof_read_once(&t->count)
	                                     ? NULL
	                                     : apiprof_cct_node(t, id);

	if (n == NULL || d[0] == 0)
		return;
	if (node & APIPROF_CCT_LOST) {
		add_own(&n->fig.lost, d[0]);
	} else if (node & APIPROF_CCT_OVF) {
		add_own(&n->fig.ovf_calls, d[0]);
		add_own(&n->fig.ovf_ticks, d[1]);
		add_own(&n->fig.ovf_timed, d[2]);
	} else if (id != 0) {
		add_own(&n->fig.calls, d[0]);
		add_own(&n->fig.ticks, d[1]);
		add_own(&n->fig.timed, d[2]);
	}
}

void apiprof_cct_run_end(struct apiprof_tab *tab, uint32_t idx, const uint64_t delta[3],
                         uint64_t next)
{
	if (next == 0)
		return; /* closed by a folder: apiprof_cct_fold read the run */
	struct apiprof_cct *t = own_tree();
	struct apiprof_row *c = apiprof_tab_row(tab, idx);
	if (t == NULL)
		return;
	uint32_t self = (uint32_t)apiprof_read_once(&c->self);
	/* a run with no node yet (sampled mode's calls before the row's
	 * first timed one): "(context not known)", not lost from the tree */
	if (delta != NULL && self == APIPROF_PARENT_UNKNOWN && delta[0] != 0)
		self = apiprof_cct_unknown(tab, idx);
	if (delta != NULL)
		fig_add(t, self, delta);
	apiprof_write_once(&c->self, node_of_key(t, tab, idx, next));
}

void apiprof_cct_park_end(const uint64_t delta[3], uint64_t node)
{
	struct apiprof_cct *t = own_tree();

	if (t != NULL)
		fig_add(t, (uint32_t)node, delta);
}

uint32_t apiprof_cct_unknown(struct apiprof_tab *tab, uint32_t idx)
{
	struct apiprof_cct *t = own_tree();
	struct apiprof_cct_node k = {.ret = 0};

	if (t == NULL || apiprof_read_once(&t->writing) || !own_func(tab, idx, &k))
		return APIPROF_PARENT_UNKNOWN;
	apiprof_write_once(&t->writing, 1);
	apiprof_compiler_barrier();
	uint32_t id = node_get(t, 0, &k);
	apiprof_write_once(&apiprof_tab_row(tab, idx)->self, id);
	apiprof_compiler_barrier();
	apiprof_write_once(&t->writing, 0);
	return id;
}

/* A node id kept across a reset (a fork child's call in progress, the
 * parent its way out puts back) as "not known": the ids are given again. */
static void forget_id(uint64_t *w)
{
	uint64_t v = apiprof_read_once(w);

	if (v != 0 && v < APIPROF_PARENT_MAX)
		apiprof_write_once(w, APIPROF_PARENT_UNKNOWN);
}

void apiprof_cct_reset(struct apiprof_thread *th)
{
	struct apiprof_cct *t = apiprof_load_acquire(&th->cct);

	/* the entry's thread resets it (a fork child's too) */
	for (uint32_t id = 1; id < APIPROF_MAX_APIS; id++)
		if (th->tab[id] != NULL)
			forget_id(&th->tab[id]->parent);
	if (apiprof_tls_ok())
		forget_id(&apiprof_tls_self()->cur);
	if (t == NULL || t->head == NULL)
		return;
	apiprof_store_release(&t->count, 0);
	for (uint32_t k = 0; k <= t->hmask; k++)
		apiprof_write_once(&t->head[k], 0);
	t->memo_key = 0;
	struct apiprof_cct_node *n0 = apiprof_cct_node(t, 0);
	n0->fig = (struct apiprof_cct_fig){0};
}

void apiprof_cct_forked(struct apiprof_thread *th)
{
	struct apiprof_tls *t = apiprof_tls_self();
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);
		uintptr_t frame = t->api[id].frame;

		if (api == NULL || th->tab[id] == NULL || frame <= APIPROF_FRAME_IDLE)
			continue;
		uint32_t row = frame & APIPROF_FRAME_SLOW
		                       ? apiprof_slow_row(t, id)
		                       : apiprof_wrappers_below(
		                                 id, frame & ~(uintptr_t)APIPROF_FRAME_TAGS, sp);
		if (row < api->nfuncs)
			apiprof_sites_inherited(th->tab[id], row);
	}
}

/* --- a reader's half -------------------------------------------------- */

/* The timed calls of row i as far as its run in progress tells them (as
 * apiprof_sites.c row_timed): the count of the histogram its run's
 * calls go to, or the row's calls when every call is timed. */
static uint64_t row_timed(struct apiprof_tab *tab, uint32_t i, bool sampled)
{
	int64_t off = apiprof_read_once(&apiprof_tab_row(tab, i)->hist_off);
	const uint64_t *h = (const uint64_t *)((intptr_t)&tab->sink +
	                                       (intptr_t)off * (intptr_t)sizeof(uint64_t));

	return sampled ? apiprof_tab_hist_timed(tab, h) : apiprof_load(&tab->calls[i]);
}

static void fig_read(struct apiprof_cct_fig *dst, const struct apiprof_cct_fig *src)
{
	const uint64_t *s = (const uint64_t *)src;
	uint64_t *d = (uint64_t *)dst;

	for (size_t k = 0; k < sizeof(*src) / sizeof(uint64_t); k++)
		d[k] = apiprof_read_once(&s[k]);
}

/* What a row's run reads as (the one in progress, or the parked one,
 * apiprof_sites.c): its node (the row's self, or the parked run's) with
 * that node's figures then, and the run's own; on: it has calls to add. */
struct run_view {
	uint32_t node;
	bool on;
	struct apiprof_cct_fig base;
	uint64_t d[3];
};

/* Node v->node's figures into v->base, when it is one of t's; whether it
 * is. */
static bool view_base(const struct apiprof_cct *t, struct run_view *v)
{
	uint32_t id = v->node & APIPROF_CCT_ID;
	bool known = v->node < APIPROF_PARENT_MAX && id <= apiprof_load_acquire(&t->count);

	if (known)
		fig_read(&v->base, &apiprof_cct_node(t, id)->fig);
	return known;
}

/* The figures of row i's two runs, as the owner left them: the run in
 * progress's since its marks, the parked run's as they are. */
static void runs_fig(struct apiprof_tab *tab, uint32_t i, bool sampled, struct run_view v[2])
{
	const struct apiprof_sites *s = &tab->sites[i];
	struct apiprof_row *c = apiprof_tab_row(tab, i);
	uint64_t mc = apiprof_read_once(&s->mark_calls);
	uint64_t mt = apiprof_read_once(&s->mark_ticks);
	uint64_t mtd = apiprof_read_once(&s->mark_timed);
	uint64_t calls = apiprof_load(&tab->calls[i]);
	uint64_t ticks = apiprof_load(&c->ticks);
	uint64_t pc = apiprof_read_once(&s->park_calls);

	v[0].d[0] = calls - mc;
	v[0].d[1] = ticks - mt;
	/* full timing: every call is timed (no mark_timed is kept) */
	v[0].d[2] = sampled ? row_timed(tab, i, true) - mtd : v[0].d[0];
	v[1].d[0] = pc;
	v[1].d[1] = apiprof_read_once(&s->park_ticks);
	v[1].d[2] = pc;
}

/* Row i's runs, between two equal even values of its sites' gen (the
 * owner adds a run to its node and moves the marks, or swaps its runs,
 * while gen is odd); false when neither has calls to add, or the owner
 * kept switching.  Two runs in one node are one view (v[0]). */
static bool run_read(const struct apiprof_cct *t, struct apiprof_tab *tab, uint32_t i, bool sampled,
                     struct run_view v[2])
{
	struct apiprof_sites *s = &tab->sites[i];
	struct apiprof_row *c = apiprof_tab_row(tab, i);

	for (int tries = 0; tries < 16; tries++) {
		uint64_t gen = apiprof_load_acquire(&s->gen); /* pairs with run_end's release */
		if (gen & 1)
			continue;
		v[0].node = (uint32_t)apiprof_read_once(&c->self);
		v[1].node = (uint32_t)apiprof_read_once(&s->park_self);
		bool known0 = view_base(t, &v[0]), known1 = view_base(t, &v[1]);
		uint64_t last = apiprof_read_once(&c->last);
		uint64_t parked = apiprof_read_once(&s->park_key);
		runs_fig(tab, i, sampled, v);
		apiprof_fence_acquire(); /* pairs with run_end's fence_release */
		if (apiprof_read_once(&s->gen) != gen)
			continue;
		v[0].on = known0 && last != 0 && v[0].d[0] != 0 && v[0].d[0] < (uint64_t)1 << 62;
		v[1].on = known1 && parked != 0 && v[1].d[0] != 0;
		if (v[0].on && v[1].on && v[0].node == v[1].node) {
			for (int k = 0; k < 3; k++)
				v[0].d[k] += v[1].d[k];
			v[1].on = false;
		}
		if (!v[0].on && v[1].on) {
			v[0] = v[1];
			v[1].on = false;
		}
		return v[0].on;
	}
	return false;
}

/* Adds a run to the copy: to its node's own figures (read with the run),
 * or to the overflow or the calls not recorded of the node its tag
 * names. */
static void run_add(struct apiprof_cct_copy *dst, const struct run_view *v)
{
	struct apiprof_cct_fig *f = &dst->n[v->node & APIPROF_CCT_ID].fig;

	if (v->node & APIPROF_CCT_LOST) {
		f->lost += v->d[0];
	} else if (v->node & APIPROF_CCT_OVF) {
		f->ovf_calls += v->d[0];
		f->ovf_ticks += v->d[1];
		f->ovf_timed += v->d[2];
	} else if (v->node != 0) {
		f->calls = v->base.calls + v->d[0];
		f->ticks = v->base.ticks + v->d[1];
		f->timed = v->base.timed + v->d[2];
	}
}

static void runs_add(struct apiprof_cct_copy *dst, const struct apiprof_cct *t,
                     struct apiprof_tab *const *tabs)
{
	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && tabs[id] && i < api->nfuncs; i++) {
			struct run_view v[2];

			if (apiprof_load(&tabs[id]->calls[i]) == 0 ||
			    !run_read(t, tabs[id], i, dst->sampled, v))
				continue;
			for (int k = 0; k < 2; k++)
				if (v[k].on && (v[k].node & APIPROF_CCT_ID) <= dst->count)
					run_add(dst, &v[k]);
		}
	}
}

void apiprof_cct_read(struct apiprof_cct_copy *dst, const struct apiprof_cct *t,
                      struct apiprof_tab *const *tabs)
{
	dst->count = 0;
	dst->sampled = apiprof_timing & APIPROF_MODE_SAMPLE;
	dst->n[0] = (struct apiprof_cct_node){0};
	if (t == NULL || apiprof_load_acquire(&t->head) == NULL)
		return;
	uint32_t count = apiprof_load_acquire(&t->count); /* pairs with node_get */
	for (uint32_t id = 0; id <= count && id <= APIPROF_CCT_MAX; id++) {
		const struct apiprof_cct_node *n = apiprof_cct_node(t, id);

		dst->n[id] = *n;
		fig_read(&dst->n[id].fig, &n->fig);
	}
	dst->count = count;
	if (tabs != NULL)
		runs_add(dst, t, tabs);
}

/* Node id's figures, with its row's run in progress or parked run when
 * that run is in it. */
static void node_fig(const struct apiprof_cct *t, struct apiprof_tab *const *tabs, uint32_t id,
                     struct apiprof_cct_fig *f)
{
	const struct apiprof_cct_node *n = apiprof_cct_node(t, id);
	struct apiprof_tab *tab =
	        tabs && id != 0 && n->api < APIPROF_MAX_APIS ? tabs[n->api] : NULL;
	const struct apiprof_api *api = tab ? apiprof_api_get(n->api) : NULL;
	struct run_view v[2];

	fig_read(f, &n->fig);
	if (api == NULL || n->row >= api->nfuncs ||
	    !run_read(t, tab, n->row, apiprof_timing & APIPROF_MODE_SAMPLE, v))
		return;
	for (int k = 0; k < 2; k++) {
		if (!v[k].on || v[k].node != id)
			continue;
		f->calls = v[k].base.calls + v[k].d[0];
		f->ticks = v[k].base.ticks + v[k].d[1];
		f->timed = v[k].base.timed + v[k].d[2];
	}
}

uint32_t apiprof_cct_nodes(struct apiprof_cct *t, struct apiprof_tab *const *tabs, uint32_t *next,
                           struct apiprof_shm_node *dst, uint32_t max, bool all_mark[2])
{
	uint32_t count = apiprof_load_acquire(&t->count), n = 0, id;

	for (id = *next; id <= count && n < max; id++) {
		struct apiprof_cct_node *e = apiprof_cct_node(t, id);
		struct apiprof_cct_fig f;

		node_fig(t, tabs, id, &f);
		uint64_t sum = f.calls + f.ovf_calls + f.lost;
		if ((id == 0 && sum == 0) || (!all_mark[0] && sum == apiprof_read_once(&e->shown)))
			continue;
		if (all_mark[1])
			apiprof_write_once(&e->shown, sum);
		dst[n++] = (struct apiprof_shm_node){
		        (uint16_t)id, e->parent,   e->func,     e->ret,      f.calls, f.ticks,
		        f.timed,      f.ovf_calls, f.ovf_ticks, f.ovf_timed, f.lost};
	}
	*next = id;
	return n;
}

/* --- folding an exited thread's tree into the process's --------------- */

static struct {
	struct apiprof_cct_copy from;
	uint16_t map[APIPROF_CCT_MAX + 1]; /* a node of from: its place in the folded tree */
} fold;

static void fold_lock(void)
{
	for (unsigned n = 0; apiprof_xchg_acquire(&folded_tree.lock, 1); n++)
		if (n < 64)
			__builtin_ia32_pause();
		else
			sched_yield();
}

/* Node id of the copy into the folded tree: under the node its parent
 * went to, or, under a call that had no path there, in no path. */
static void fold_node(uint32_t id)
{
	const struct apiprof_cct_node *n = &fold.from.n[id];
	uint32_t p = fold.map[n->parent];
	uint32_t to = p & (APIPROF_CCT_OVF | APIPROF_CCT_LOST)
	                      ? APIPROF_CCT_LOST | (p & APIPROF_CCT_ID)
	                      : node_get(&folded_tree, p, n);
	const uint64_t own[3] = {n->fig.calls, n->fig.ticks, n->fig.timed};
	const uint64_t ovf[3] = {n->fig.ovf_calls, n->fig.ovf_ticks, n->fig.ovf_timed};

	fold.map[id] = (uint16_t)to;
	fig_add(&folded_tree, to, own);
	if (to & (APIPROF_CCT_OVF | APIPROF_CCT_LOST)) {
		const uint64_t lost[3] = {n->fig.ovf_calls + n->fig.lost, 0, 0};
		fig_add(&folded_tree, APIPROF_CCT_LOST | (to & APIPROF_CCT_ID), lost);
		return;
	}
	fig_add(&folded_tree, APIPROF_CCT_OVF | to, ovf);
	const uint64_t lost[3] = {n->fig.lost, 0, 0};
	fig_add(&folded_tree, APIPROF_CCT_LOST | to, lost);
}

/* The calls of a thread that had no tree (the arena had no room for
 * it): in no path, counted in the folded tree's calls not recorded. */
static void fold_untreed(struct apiprof_thread *th)
{
	uint64_t calls = 0;

	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++) {
		const struct apiprof_api *api = apiprof_api_get(id);

		for (uint32_t i = 0; api && th->tab[id] && i < api->nfuncs; i++)
			calls += apiprof_load(&th->tab[id]->calls[i]);
	}
	if (calls == 0)
		return;
	fold_lock();
	if (cct_ready(&folded_tree))
		apiprof_cct_node(&folded_tree, 0)->fig.lost += calls;
	apiprof_store_release(&folded_tree.lock, 0);
}

void apiprof_cct_fold(struct apiprof_thread *th)
{
	struct apiprof_cct *t = apiprof_load_acquire(&th->cct);

	if (t == NULL || apiprof_load_acquire(&t->head) == NULL) {
		fold_untreed(th);
		return;
	}
	fold_lock();
	if (cct_ready(&folded_tree)) {
		apiprof_cct_read(&fold.from, t, th->tab);
		fold.map[0] = 0;
		struct apiprof_cct_node *r = apiprof_cct_node(&folded_tree, 0);
		r->fig.ovf_calls += fold.from.n[0].fig.ovf_calls;
		r->fig.ovf_ticks += fold.from.n[0].fig.ovf_ticks;
		r->fig.ovf_timed += fold.from.n[0].fig.ovf_timed;
		r->fig.lost += fold.from.n[0].fig.lost;
		for (uint32_t id = 1; id <= fold.from.count; id++)
			fold_node(id);
	}
	apiprof_store_release(&folded_tree.lock, 0);
}
