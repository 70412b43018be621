/* SPDX-License-Identifier: MIT */
/*
 * rpt_html_data.c - the run as the page's data: positional arrays (the
 * layout is report.js's, at its top), so that 200 threads of 50
 * functions stay a few MB.  A figure the file did not have is null.
 */
#include <stdio.h>
#include <string.h>

#include "rpt_html.h"

static bool lost; /* a value could not be made (out of memory) */

static void push(json_t *a, json_t *v)
{
	if (v == NULL || json_array_append_new(a, v) != 0)
		lost = true;
}

/* The data's strings, each once: "strings" (a string's index stands for it
 * in the functions, callers, children and nodes: 200 threads repeat the
 * same names and call sites). */
static json_t *strings, *string_ids;

static json_t *sid(const char *s)
{
	json_t *id = s ? json_object_get(string_ids, s) : NULL;

	if (s == NULL || id != NULL)
		return s ? json_incref(id) : json_null();
	id = json_integer((json_int_t)json_array_size(strings));
	if (json_array_append_new(strings, json_string(s)) != 0 ||
	    json_object_set(string_ids, s, id) != 0)
		lost = true;
	return id;
}

/* The id of text cut by snprintf, which may end inside a UTF-8 character. */
static json_t *sid_text(const char *buf)
{
	json_t *s = json_string(buf);
	json_t *id = sid(s ? buf : "(name too long)");

	json_decref(s);
	return id;
}

static json_t *num(uint64_t v)
{
	return v == RPT_NONE ? json_null() : json_integer((json_int_t)v);
}

static json_t *str(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* "symbol (module+0xOFF)", or what of it is known. */
static json_t *site_label(const struct rpt_site *s)
{
	char buf[1024];

	if (s->symbol == NULL && s->module == NULL)
		return json_string("(unknown)");
	if (s->offset != RPT_NONE)
		snprintf(buf, sizeof buf, "%s (%s+0x%llx)", s->symbol ? s->symbol : "?",
		         s->module ? s->module : "?", (unsigned long long)s->offset);
	else
		snprintf(buf, sizeof buf, "%s (%s)", s->symbol ? s->symbol : "?",
		         s->module ? s->module : "?");
	return sid_text(buf);
}

static json_t *site_line(const struct rpt_site *s)
{
	char buf[1024];

	if (s->file == NULL)
		return json_null();
	snprintf(buf, sizeof buf, "%s:%llu", s->file,
	         s->line == RPT_NONE ? 0ull : (unsigned long long)s->line);
	return sid_text(buf);
}

static json_t *callers(const struct rpt_func *f)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->ncallers; i++) {
		const struct rpt_caller *k = &f->callers[i];

		push(a, json_pack("[ooIIooo]", site_label(&k->at), site_line(&k->at),
		                  (json_int_t)k->calls, (json_int_t)k->total_ns, num(k->p50_ns),
		                  num(k->p99_ns), sid(k->parent)));
	}
	return a;
}

static json_t *children(const struct rpt_func *f)
{
	json_t *a = json_array();
	char name[512];

	for (size_t i = 0; i < f->nchildren; i++) {
		const struct rpt_child *k = &f->children[i];

		snprintf(name, sizeof name, "%s%s%s", k->api ? k->api : "", k->api ? "." : "",
		         k->name);
		push(a, json_pack("[oII]", sid_text(name), (json_int_t)k->calls,
		                  (json_int_t)k->total_ns));
	}
	return a;
}

static json_t *hist_errnos(const struct rpt_func *f, json_t **errnos)
{
	json_t *h = json_array();

	for (size_t b = 0; b < f->nhist; b++)
		push(h, json_integer((json_int_t)f->hist[b]));
	*errnos = f->errnos ? json_object() : json_null();
	for (size_t i = 0; i < f->nerrnos; i++)
		json_object_set_new(*errnos, f->errnos[i].name,
		                    json_integer((json_int_t)f->errnos[i].n));
	return h;
}

static json_t *func(const struct rpt_func *f)
{
	json_t *errnos;
	json_t *hist = hist_errnos(f, &errnos);

	return json_pack("[ooIIIoIIoooobooo]", sid(f->api), sid(f->name), (json_int_t)f->calls,
	                 (json_int_t)f->timed, (json_int_t)f->total_ns, num(f->self_ns),
	                 (json_int_t)f->min_ns, (json_int_t)f->max_ns, num(f->p50_ns),
	                 num(f->p99_ns), num(f->bytes), num(f->failures), f->estimated, hist,
	                 errnos, json_pack("[oo]", callers(f), children(f)));
}

static json_t *node(const struct rpt_node *n)
{
	return json_pack("[IIoIIIoII]", (json_int_t)n->id, (json_int_t)n->parent, sid(n->function),
	                 (json_int_t)n->calls, (json_int_t)n->total_ns, (json_int_t)n->self_ns,
	                 n->has_site ? site_label(&n->site) : json_null(),
	                 (json_int_t)n->other_calls, (json_int_t)n->other_ns);
}

static json_t *thread(const struct rpt_thread *t)
{
	json_t *funcs = json_array(), *nodes = json_array();

	for (size_t i = 0; i < t->nfuncs; i++)
		push(funcs, func(&t->funcs[i]));
	for (size_t i = 0; i < t->nnodes; i++)
		push(nodes, node(&t->nodes[i]));
	return json_pack("{sIsssssososo}", "tid", (json_int_t)t->tid, "name", t->name, "state",
	                 t->state, "wall_ns", num(t->wall_ns), "funcs", funcs, "tree", nodes);
}

/* The page's name for p: its pid, and ".execN" or ".dumpN" when its file
 * is the image before an exec or a dump (the same pid as another file). */
static json_t *proc_key(const struct rpt_proc *p)
{
	const char *dot = strrchr(p->file, '.');
	char key[64];
	bool tail = dot && (strncmp(dot, ".exec", 5) == 0 || strncmp(dot, ".dump", 5) == 0) &&
	            dot[5] && strspn(dot + 5, "0123456789") == strlen(dot + 5) && strlen(dot) < 24;

	snprintf(key, sizeof key, "%lld%s", (long long)p->pid, tail ? dot : "");
	return json_string(key);
}

static json_t *proc(const struct rpt_proc *p)
{
	json_t *threads = json_array();

	for (size_t i = 0; i < p->nthreads; i++)
		push(threads, thread(&p->threads[i]));
	return json_pack("{sosIsIsssosososososIsIsoso}", "key", proc_key(p), "pid",
	                 (json_int_t)p->pid, "ppid", (json_int_t)p->ppid, "comm", p->comm, "title",
	                 str(p->title), "clock", str(p->clock), "mode", str(p->mode), "file",
	                 str(p->file), "wall_ns", num(p->wall_ns), "tick_hz",
	                 (json_int_t)(p->tick_hz == RPT_NONE ? 0 : p->tick_hz), "dropped",
	                 (json_int_t)(p->dropped == RPT_NONE ? 0 : p->dropped), "start_unix_ms",
	                 num(p->start_unix_ns == RPT_NONE ? RPT_NONE : p->start_unix_ns / 1000000),
	                 "threads", threads);
}

json_t *rpt_html_data(const struct rpt_run *run)
{
	json_t *procs = json_array();
	strings = json_array();
	string_ids = json_object();
	json_t *data = json_pack("{sisoso}", "format", 1, "procs", procs, "strings", strings);

	for (size_t i = 0; i < run->nprocs; i++)
		push(procs, proc(&run->procs[i]));
	json_decref(string_ids);
	if (lost)
		fprintf(stderr, "apiprof-report: out of memory\n");
	if (lost || rpt_html_groups(run, data) != 0) {
		json_decref(data);
		return NULL;
	}
	return data;
}
