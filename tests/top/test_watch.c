/* SPDX-License-Identifier: MIT */
/*
 * test_watch.c - discovery, liveness, expiry and the batch printers on
 * synthetic segments in a private directory, with the clocks given by the
 * test (no sleeping).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top_batch.h"
#include "top_fmt.h"
#include "top_watch.h"
#include "tseg.h"

#define S 1000000000ull

static int warnings;
static char last_warning[256];

static void count_warn(void *ctx, const char *msg)
{
	(void)ctx;
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

static json_t *json_refresh(struct top_watch *w, uint64_t mono, uint64_t real)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t e;
	json_t *o;

	top_watch_refresh(w, mono, real);
	CHECK(top_batch_json(f, w, TOP_GROUP_NONE, real, 1.0) == 0);
	fclose(f);
	CHECK(len > 0 && buf[len - 1] == '\n' && !memchr(buf, '\n', len - 1));
	o = json_loads(buf, 0, &e);
	CHECK(o);
	free(buf);
	return o;
}

static json_t *first_func(json_t *o, const char *pid_state)
{
	json_t *procs = json_object_get(o, "processes");
	json_t *p = json_array_get(procs, 0);

	json_t *th;

	CHECK(json_array_size(procs) == 1);
	CHECK(!strcmp(json_string_value(json_object_get(p, "state")), pid_state));
	CHECK(!strcmp(json_string_value(json_object_get(p, "comm")), "synthetic"));
	th = json_array_get(json_object_get(p, "threads"), 0);
	CHECK(json_integer_value(json_object_get(th, "tid")) == 77);
	CHECK(!strcmp(json_string_value(json_object_get(th, "name")), "t77"));
	return json_array_get(json_object_get(th, "functions"), 0);
}

static json_int_t ival(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	CHECK(json_is_integer(v));
	return json_integer_value(v);
}

static void bad_neighbour(const struct tseg *t)
{
	char path[256];
	FILE *f;
	struct apiprof_shm_header h = *t->h;

	h.version = 99;
	snprintf(path, sizeof(path), "%s/apiprof-%u-%d-1", t->dir, (unsigned)getuid(), getpid());
	f = fopen(path, "w");
	CHECK(f && fwrite(&h, sizeof(h), 1, f) == 1 && ftruncate(fileno(f), 8192) == 0);
	fclose(f);
}

static void test_json_lifecycle(void)
{
	struct tseg t;
	struct top_watch w;
	json_t *o, *fn;
	char bad[256];

	tseg_create(&t, 4, 4);
	tseg_func(&t, 0, "testapi", "tp_work");
	tseg_write(&t, 77, 0, 10, 1000, 100);
	bad_neighbour(&t);
	top_watch_init(&w);
	w.dir = t.dir;
	w.warn = count_warn;
	w.linger_ns = 5 * S;

	o = json_refresh(&w, 100 * S, 11 * S); /* uptime 10 s */
	fn = first_func(o, "running");
	CHECK(ival(fn, "calls") == 1000 && ival(fn, "calls_interval") == 1000);
	CHECK(ival(fn, "total_ns") == 100000 && ival(fn, "interval_ns") == 100000);
	CHECK(ival(fn, "max_ns") == 100 && ival(fn, "min_ns") == 100 && ival(fn, "p50_ns") == 100);
	CHECK(json_is_false(json_object_get(fn, "estimated")));
	CHECK(!strcmp(json_string_value(json_object_get(fn, "name")), "tp_work"));
	CHECK(warnings == 1 && strstr(last_warning, "unsupported version 99"));
	json_decref(o);

	tseg_write(&t, 77, 0, 11, 1500, 100);
	o = json_refresh(&w, 101 * S, 12 * S);
	fn = first_func(o, "running");
	CHECK(ival(fn, "calls") == 1500 && ival(fn, "calls_interval") == 500);
	CHECK(warnings == 1); /* warned once only */
	json_decref(o);

	t.h->state = APIPROF_PROC_EXITED;
	tseg_write(&t, 77, 0, 12, 1600, 100);
	o = json_refresh(&w, 102 * S, 13 * S);
	fn = first_func(o, "ended");
	CHECK(ival(fn, "calls") == 1600 && ival(fn, "calls_interval") == 100);
	json_decref(o);
	o = json_refresh(&w, 106 * S, 17 * S); /* lingering: totals kept, nothing new */
	fn = first_func(o, "ended");
	CHECK(ival(fn, "calls") == 1600 && ival(fn, "calls_interval") == 0);
	json_decref(o);
	o = json_refresh(&w, 107 * S, 18 * S);
	CHECK(json_array_size(json_object_get(o, "processes")) == 0);
	json_decref(o);

	top_watch_free(&w);
	snprintf(bad, sizeof(bad), "%s/apiprof-%u-%d-1", t.dir, (unsigned)getuid(), getpid());
	unlink(bad);
	tseg_destroy(&t);
}

/* A segment whose process is gone (here: its starttime does not match) is
 * shown as stale; -p filters. */
static void test_stale_and_pids(void)
{
	struct tseg t;
	struct top_watch w;
	json_t *o;
	int other = 1;

	tseg_create_named(&t, 4, 4, getpid(), tseg_self_starttime() + 5);
	tseg_func(&t, 0, "testapi", "tp_work");
	tseg_write(&t, 77, 0, 10, 3, 100);
	top_watch_init(&w);
	w.dir = t.dir;
	w.warn = count_warn;
	o = json_refresh(&w, 100 * S, 11 * S);
	first_func(o, "stale");
	json_decref(o);
	top_watch_free(&w);

	top_watch_init(&w);
	w.dir = t.dir;
	w.sel.pids = &other;
	w.sel.npids = 1;
	o = json_refresh(&w, 100 * S, 11 * S);
	CHECK(json_array_size(json_object_get(o, "processes")) == 0);
	json_decref(o);
	top_watch_free(&w);
	tseg_destroy(&t);
}

/* With the TSC clock tick_hz is 0 until the runtime's first flush: not an
 * error, the segment shows up once it is set; a dead process whose
 * segment never became ready is dropped silently. */
static void test_not_ready(void)
{
	struct tseg live, dead;
	struct top_watch w;
	json_t *o;
	int before = warnings;

	tseg_create(&live, 4, 4);
	tseg_create_named(&dead, 4, 4, getpid(), tseg_self_starttime() + 9);
	live.h->tick_hz = 0;
	dead.h->tick_hz = 0;
	top_watch_init(&w);
	w.dir = live.dir;
	w.warn = count_warn;
	o = json_refresh(&w, 1 * S, 2 * S);
	CHECK(json_array_size(json_object_get(o, "processes")) == 0);
	json_decref(o);
	CHECK(w.n == 1 && w.v[0]->st == TOP_E_PENDING);

	top_watch_free(&w);
	top_watch_init(&w);
	w.dir = dead.dir;
	top_watch_refresh(&w, 1 * S, 2 * S);
	CHECK(w.n == 1 && w.v[0]->st == TOP_E_EXPIRED && !w.v[0]->seg.map);
	top_watch_free(&w);

	top_watch_init(&w);
	w.dir = live.dir;
	top_watch_refresh(&w, 1 * S, 2 * S);
	live.h->tick_hz = 1000000000ull;
	tseg_func(&live, 0, "testapi", "tp_work");
	tseg_write(&live, 77, 0, 10, 4, 100);
	o = json_refresh(&w, 2 * S, 3 * S);
	CHECK(ival(first_func(o, "running"), "calls") == 4);
	json_decref(o);
	CHECK(warnings == before);
	top_watch_free(&w);
	tseg_destroy(&dead);
	tseg_destroy(&live);
}

static void test_text(void)
{
	struct tseg t;
	struct top_watch w;
	struct top_view v = {.sort = TOP_COL_TIME_IV};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	tseg_create(&t, 4, 4);
	tseg_func(&t, 0, "testapi", "tp_work");
	tseg_func(&t, 1, "testapi", "tp_other");
	tseg_write(&t, 77, 0, 10, 1000, 100);
	tseg_write(&t, 78, 1, 10, 5, 3000);
	top_watch_init(&w);
	w.dir = t.dir;
	top_watch_refresh(&w, 1 * S, 11 * S);
	f = open_memstream(&buf, &len);
	top_batch_text(f, &w, &v, 11 * S, 1.0);
	fclose(f);
	fputs(buf, stdout);
	CHECK(strstr(buf, "1 processes") && strstr(buf, "  shim  ") && strstr(buf, "TID 77 (t77)"));
	CHECK(strstr(buf, "calls      total       self        avg        min        p50        p99 "
	                  "       max "
	                  " function"));
	CHECK(strstr(buf, "tp_work") && strstr(buf, "tp_other") && strstr(buf, "synthetic"));
	CHECK(strstr(buf, "100ns"));  /* tp_work's avg */
	CHECK(strstr(buf, "15.0us")); /* tp_other's time, as the summary writes it */
	free(buf);
	top_watch_free(&w);
	tseg_destroy(&t);
}

int main(void)
{
	top_fmt_set_utf8(1);
	test_json_lifecycle();
	test_stale_and_pids();
	test_not_ready();
	test_text();
	return 0;
}
