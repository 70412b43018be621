/* SPDX-License-Identifier: MIT */
/*
 * top_prom.c - the exporter's series (top_prom.h).
 *
 * Three tables, each a tsearch(3) tree ordered by its key: the series,
 * the commands, and the processes seen (by segment name, so that a
 * process's final totals are retired exactly once).  Each update zeroes
 * the live parts, adds every watched process's cells, and raises what is
 * shown to the new sums where they are larger.
 */
#include <math.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_stat.h"
#include "top_batch.h"
#include "top_label.h"
#include "top_prom_budget.h"
#include "top_prom.h"

#define LABELS_MAX 1024

/* Each table's records start with their key. */
static int by_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void top_prom_init(struct top_prom *x, bool per_process, bool per_thread)
{
	memset(x, 0, sizeof(*x));
	x->per_process = per_process || per_thread;
	x->per_thread = per_thread;
	x->max_series = TOP_PROM_MAX_SERIES;
	x->only = false;
	x->max_per_user = TOP_PROM_MAX_PER_USER;
}

static void series_free(void *v)
{
	struct top_prom_series *s = v;

	free(s->labels);
	free(s->retired);
	free(s);
}

static void cmd_free(void *v)
{
	struct top_prom_cmd *c = v;

	free(c->labels);
	free(c);
}

static void proc_free(void *v)
{
	struct top_prom_proc *p = v;

	free(p->name);
	free(p);
}

void top_prom_free(struct top_prom *x)
{
	tdestroy(x->series, series_free);
	tdestroy(x->cmds, cmd_free);
	tdestroy(x->procs, proc_free);
	x->series = x->cmds = x->procs = NULL;
	if (x->pool)
		*x->pool -= x->nseries;
	x->nseries = 0;
	free(x->users);
	x->users = NULL;
	x->nusers = 0;
}

/* --- label values --------------------------------------------------------- */

/* Appends name="value" (escaped) to buf, with a comma unless first. */
static void label_add(char *buf, size_t cap, const char *name, const char *value)
{
	char esc[2 * TOP_TITLE_LEN + 1];
	size_t n = strlen(buf);

	top_prom_escape(esc, sizeof(esc), value);
	snprintf(buf + n, cap - n, "%s%s=\"%s\"", n ? "," : "", name, esc);
}

/* --- tables --------------------------------------------------------------- */

static void *find(void **root, const char *key)
{
	const char *const *hit = tfind(&key, root, by_key);

	return hit ? *(void *const *)hit : NULL;
}

/* Puts rec (whose key is set) in the tree; -1 out of memory. */
static int insert(void **root, void *rec)
{
	void *const *hit = tsearch(rec, root, by_key);

	return hit && *hit == rec ? 0 : -1;
}

/* The record of key in a table, made (zeroed, key copied) when absent:
 * *made says so.  NULL when out of memory.  Every record starts with its
 * key. */
static void *get(void **root, const char *key, size_t size, bool *made)
{
	void *rec = find(root, key);

	*made = false;
	if (rec)
		return rec;
	char **k = rec = calloc(1, size);
	if (!rec || !(*k = strdup(key)) || insert(root, rec) != 0) {
		if (rec)
			free(*k);
		free(rec);
		return NULL;
	}
	*made = true;
	return rec;
}

/* The series of labels into *s, made for uid when absent and its budget
 * has room (else *s is NULL).  0, or -1 out of memory. */
static int series_get(struct top_prom *x, const char *labels, uint32_t uid,
                      struct top_prom_series **s)
{
	bool made;
	int rc;

	if ((*s = find(&x->series, labels)))
		return 0;
	if ((rc = top_prom_budget_take(x, uid)) != 0)
		return rc < 0 ? -1 : 0;
	if (!(*s = get(&x->series, labels, sizeof(**s), &made))) {
		top_prom_budget_gone(x, uid);
		return -1;
	}
	(*s)->uid = uid;
	x->nseries++;
	if (x->pool)
		(*x->pool)++;
	return 0;
}

void top_prom_series_drop(struct top_prom *x, struct top_prom_series *s)
{
	tdelete(s, &x->series, by_key);
	top_prom_budget_gone(x, s->uid);
	series_free(s);
	x->nseries--;
	if (x->pool)
		(*x->pool)--;
}

static struct top_prom_cmd *cmd_get(struct top_prom *x, const char *comm)
{
	char labels[LABELS_MAX] = "";
	bool made;

	label_add(labels, sizeof(labels), "comm", comm);
	return get(&x->cmds, labels, sizeof(struct top_prom_cmd), &made);
}

static struct top_prom_proc *proc_get(struct top_prom *x, const struct top_entry *e)
{
	bool made;

	return get(&x->procs, e->name, sizeof(struct top_prom_proc), &made);
}

/* --- one process's cells into the series -------------------------------- */

static void acc_add_cell(struct top_prom_acc *a, const struct top_proc *p, const struct top_stat *s,
                         const int *le_of)
{
	uint64_t t = apiprof_stat_total_ticks(top_proc_estimates(p), s->ticks, s->calls, s->timed);

	a->calls += s->calls;
	a->time_ns[top_proc_estimates(p)] += top_ticks_ns((double)t, p->tick_hz);
	a->sum_ns += top_ticks_ns((double)s->ticks, p->tick_hz);
	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++) {
		a->count += s->hist[b];
		if (le_of[b] < TOP_PROM_LE)
			a->le[le_of[b]] += s->hist[b];
	}
	a->bytes += s->acct.bytes;
	a->failures += s->acct.failures;
	for (int e = 0; e < APIPROF_ERRNO_SLOTS; e++)
		a->errnos[e] += s->acct.errnos[e];
}

static void cell_labels(const struct top_prom *x, const struct top_proc *p,
                        const struct top_cell *c, char *buf, size_t cap)
{
	const struct top_func *f = &p->funcs[c->func];
	char num[16];

	buf[0] = '\0';
	label_add(buf, cap, "comm", p->comm);
	if (x->per_process) {
		snprintf(num, sizeof(num), "%d", p->pid);
		label_add(buf, cap, "pid", num);
		label_add(buf, cap, "title", p->title);
	}
	if (x->per_thread) {
		snprintf(num, sizeof(num), "%u", c->tid);
		label_add(buf, cap, "tid", num);
		label_add(buf, cap, "thread",
		          c->tid == TOP_FOLDED_TID && (c->flags & APIPROF_REC_FOLDED)
		                  ? "(exited threads)"
		                  : c->comm);
	}
	label_add(buf, cap, "api", f->api);
	label_add(buf, cap, "function", f->name);
}

static struct top_prom_acc *acc_of(struct top_prom_series *s, bool retire)
{
	if (!retire)
		return &s->live;
	if (!s->retired)
		s->retired = calloc(1, sizeof(*s->retired));
	return s->retired;
}

/* Adds p's cells (of user uid) to the live or the retired parts of their
 * series. */
static int add_proc(struct top_prom *x, const struct top_proc *p, uint32_t uid, bool retire)
{
	char labels[LABELS_MAX];
	int le_of[APIPROF_HIST_BUCKETS];

	for (int b = 0; b < APIPROF_HIST_BUCKETS; b++)
		le_of[b] = top_prom_le_of(b, p->tick_hz);
	for (size_t i = 0; i < p->ncells; i++) {
		const struct top_cell *c = &p->cells[i];

		if (c->func >= p->nfuncs) /* not named yet: next refresh */
			continue;
		cell_labels(x, p, c, labels, sizeof(labels));
		struct top_prom_series *s;
		if (series_get(x, labels, uid, &s) != 0)
			return -1;
		if (!s) /* no room: said */
			continue;
		struct top_prom_acc *a = acc_of(s, retire);
		if (!a)
			return -1;
		s->gen = x->gen;
		s->timed[top_proc_estimates(p)] = true;
		s->fflags |= p->funcs[c->func].flags & APIPROF_FUNC_ACCT;
		acc_add_cell(a, p, &c->cur, le_of);
	}
	return 0;
}

/* --- the update ----------------------------------------------------------- */

/* What the exporter remembers of a process, for its info line.  The
 * watch reads its title while it runs and keeps it once it ends, so that
 * its --per-process series keep their labels. */
static void proc_note(struct top_prom *x, struct top_prom_proc *pr, const struct top_entry *e,
                      bool running)
{
	const struct top_proc *p = &e->proc;

	pr->gen = x->gen;
	pr->running = running;
	pr->pid = p->pid;
	memcpy(pr->comm, p->comm, sizeof(pr->comm));
	memcpy(pr->title, p->title, sizeof(pr->title));
	top_mode_name(p->mode, pr->mode, sizeof(pr->mode));
	pr->clock = top_clock_name(p->clock);
}

static int take_entry(struct top_prom *x, const struct top_entry *e)
{
	bool visible = top_entry_visible(e);
	bool running = e->st == TOP_E_ACTIVE && e->proc.state == TOP_RUNNING;

	if (!visible && e->st != TOP_E_BAD && e->st != TOP_E_EXPIRED)
		return 0; /* not read yet: nothing to say */
	if (!e->owned || (x->only && e->uid != x->uid))
		return 0; /* never shown, or another user's */
	struct top_prom_proc *pr = proc_get(x, e);
	struct top_prom_cmd *c = cmd_get(x, e->proc.comm);
	if (!pr || !c)
		return -1;
	proc_note(x, pr, e, running);
	c->gen = x->gen;
	c->running += running;
	/* Its final totals, once; none of a process that had ended before
	 * the exporter began (left for collectors, issue 35): another
	 * exporter counted it, and this one's counters start from 0. */
	bool retire = !running && !pr->retired && !e->before;
	if (running)
		c->dropped_live += e->proc.dropped;
	if (retire)
		c->dropped_retired += e->proc.dropped;
	pr->retired |= !running;
	if (x->per_process) /* its series go with it */
		return visible && !e->before ? add_proc(x, &e->proc, e->uid, false) : 0;
	if (running || retire)
		return add_proc(x, &e->proc, e->uid, retire);
	return 0;
}

/* twalk_r visits each node several times; records are taken once. */
static bool once(VISIT v)
{
	return v == postorder || v == leaf;
}

static void zero_live(const void *node, VISIT v, void *ctx)
{
	(void)ctx;
	if (once(v))
		memset(&(*(struct top_prom_series *const *)node)->live, 0,
		       sizeof(struct top_prom_acc));
}

static void zero_cmd(const void *node, VISIT v, void *ctx)
{
	struct top_prom_cmd *c = *(struct top_prom_cmd *const *)node;

	(void)ctx;
	if (once(v))
		c->running = 0, c->dropped_live = 0;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* shown = the larger of shown and live + retired, le cumulative. */
static void raise_shown(struct top_prom_series *s)
{
	const struct top_prom_acc *r = s->retired, *l = &s->live;
	struct top_prom_acc *sh = &s->shown;
	uint64_t cum = 0;

	sh->calls = max_u64(sh->calls, l->calls + (r ? r->calls : 0));
	for (int i = 0; i < 2; i++)
		sh->time_ns[i] = fmax(sh->time_ns[i], l->time_ns[i] + (r ? r->time_ns[i] : 0));
	sh->sum_ns = fmax(sh->sum_ns, l->sum_ns + (r ? r->sum_ns : 0));
	sh->count = max_u64(sh->count, l->count + (r ? r->count : 0));
	for (int k = 0; k < TOP_PROM_LE; k++) {
		uint64_t here = l->le[k] + (r ? r->le[k] : 0);

		cum += here;
		if (here)
			s->used |= 1ull << k;
		sh->le[k] = max_u64(sh->le[k], cum);
	}
	sh->bytes = max_u64(sh->bytes, l->bytes + (r ? r->bytes : 0));
	sh->failures = max_u64(sh->failures, l->failures + (r ? r->failures : 0));
	for (int e = 0; e < APIPROF_ERRNO_SLOTS; e++) {
		sh->errnos[e] = max_u64(sh->errnos[e], l->errnos[e] + (r ? r->errnos[e] : 0));
		if (sh->errnos[e])
			s->errnos_used |= 1u << e;
	}
}

static void finish_series(const void *node, VISIT v, void *ctx)
{
	(void)ctx;
	if (once(v))
		raise_shown(*(struct top_prom_series *const *)node);
}

static void finish_cmd(const void *node, VISIT v, void *ctx)
{
	struct top_prom_cmd *c = *(struct top_prom_cmd *const *)node;

	(void)ctx;
	if (once(v))
		c->dropped_shown = max_u64(c->dropped_shown, c->dropped_live + c->dropped_retired);
}

/* The records an update no longer saw: series of processes gone (with
 * --per-process; retired ones stay) and processes no longer watched. */
struct sweep {
	const struct top_prom *x;
	void **dead;
	size_t n, cap;
	bool series;
};

static void collect(const void *node, VISIT v, void *ctx)
{
	struct sweep *sw = ctx;
	void *rec = *(void *const *)node;
	bool stale = sw->series ? ((struct top_prom_series *)rec)->gen != sw->x->gen &&
	                                  !((struct top_prom_series *)rec)->retired
	                        : ((struct top_prom_proc *)rec)->gen != sw->x->gen;

	if (!once(v) || !stale)
		return;
	if (sw->n == sw->cap) {
		size_t cap = sw->cap ? 2 * sw->cap : 64;
		void **nd = realloc(sw->dead, cap * sizeof(*nd));

		if (!nd)
			return; /* swept next time */
		sw->dead = nd;
		sw->cap = cap;
	}
	sw->dead[sw->n++] = rec;
}

static void sweep(struct top_prom *x, void **root, bool series)
{
	struct sweep sw = {.x = x, .series = series};

	twalk_r(*root, collect, &sw);
	for (size_t i = 0; i < sw.n; i++) {
		if (series) {
			top_prom_series_drop(x, sw.dead[i]);
		} else {
			tdelete(sw.dead[i], root, by_key);
			proc_free(sw.dead[i]);
		}
	}
	free(sw.dead);
}

int top_prom_update(struct top_prom *x, const struct top_watch *w)
{
	int rc = 0;

	x->gen++;
	twalk_r(x->series, zero_live, NULL);
	twalk_r(x->cmds, zero_cmd, NULL);
	for (size_t i = 0; i < w->n && rc == 0; i++)
		rc = take_entry(x, w->v[i]);
	if (rc != 0)
		fprintf(stderr, "apiprof-top: out of memory for the exporter's series\n");
	sweep(x, &x->series, true);
	sweep(x, &x->procs, false);
	twalk_r(x->series, finish_series, NULL);
	twalk_r(x->cmds, finish_cmd, NULL);
	return rc;
}

/* --- visits --------------------------------------------------------------- */

struct visit {
	void (*fn)(const void *rec, void *ctx);
	void *ctx;
};

/* In order: twalk_r's postorder visit of an inner node comes after its
 * left subtree and before its right one. */
static void visit_one(const void *node, VISIT v, void *ctx)
{
	const struct visit *vi = ctx;

	if (once(v))
		vi->fn(*(void *const *)node, vi->ctx);
}

void top_prom_each(const void *table, void (*fn)(const void *rec, void *ctx), void *ctx)
{
	struct visit vi = {fn, ctx};

	twalk_r(table, visit_one, &vi);
}
