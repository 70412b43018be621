/* SPDX-License-Identifier: MIT */
/*
 * test_prom.c - the exporter's series and text (top_prom.c,
 * top_prom_text.c) on hand-made watches: sums per command, an ended
 * process's totals kept after it is gone, --per-process series that go
 * with their process, counters that never go down when a TSC's rate
 * estimate moves, the le values, escaping, cumulative buckets, the
 * budgets of series.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "top_prom.h"
#include "top_prom_text.h"
#include "tseg.h"

#define S 1000000000ull

/* A watch whose entries the test sets by hand. */
struct fake {
	struct top_watch w;
	struct top_entry *e[4];
};

static struct top_entry *entry(const char *name, int pid, const char *comm, uint64_t hz)
{
	struct top_entry *e = calloc(1, sizeof(*e));
	struct top_func f[2] = {{"libc", "malloc", 0, 1}, {"libc", "free", 0, 1}};

	CHECK(e != NULL);
	snprintf(e->name, sizeof(e->name), "%s", name);
	top_proc_init(&e->proc, pid, 1);
	snprintf(e->proc.comm, sizeof(e->proc.comm), "%s", comm);
	e->proc.tick_hz = hz;
	e->st = TOP_E_ACTIVE;
	e->present = true;
	e->owned = true;
	CHECK(top_proc_set_funcs(&e->proc, f, 2) == 0);
	return e;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	top_watch_init(&f->w);
	f->w.v = f->e;
}

static struct top_entry *fake_add(struct fake *f, const char *name, int pid, const char *comm,
                                  uint64_t hz)
{
	CHECK(f->w.n < sizeof(f->e) / sizeof(f->e[0]));
	f->e[f->w.n] = entry(name, pid, comm, hz);
	return f->e[f->w.n++];
}

/* Entry i leaves the watch, as top_watch's prune does. */
static void fake_drop(struct fake *f, size_t i)
{
	top_proc_free(&f->e[i]->proc);
	free(f->e[i]);
	memmove(&f->e[i], &f->e[i + 1], (--f->w.n - i) * sizeof(f->e[0]));
}

static void fake_free(struct fake *f, struct top_prom *x)
{
	while (f->w.n)
		fake_drop(f, 0);
	top_prom_free(x);
}

/* The thread tid's cumulative snapshot of malloc: calls, each in bucket b. */
static void calls(struct top_entry *e, uint32_t tid, uint64_t tick, uint64_t n, int b)
{
	struct top_snap s;

	memset(&s, 0, sizeof(s));
	s.tid = tid;
	s.func = 0;
	s.tick = tick;
	snprintf(s.comm, sizeof(s.comm), "t%u", tid);
	s.st.calls = s.st.timed = n;
	s.st.ticks = n << b;
	s.st.min = s.st.max = 1ull << b;
	s.st.hist[b] = n;
	CHECK(top_proc_snap(&e->proc, &s) == 0);
}

static void end(struct top_entry *e)
{
	e->st = TOP_E_DONE;
	e->proc.state = TOP_ENDED;
}

static char *text_of(const struct top_prom *x)
{
	char *t;
	size_t len;

	CHECK(top_prom_text(x, &t, &len) == 0);
	CHECK(strlen(t) == len);
	return t;
}

static bool has(const char *text, const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "\n%s\n", line);
	return strstr(text, want) != NULL;
}

static void test_le(void)
{
	char buf[32];

	for (int b = 0; b < 63; b++)
		CHECK(top_prom_le_of(b, S) == b + 1); /* the monotonic clock: exact */
	CHECK(top_prom_le_of(63, S) == TOP_PROM_LE);
	CHECK(top_prom_le_of(5, 0) == TOP_PROM_LE);
	/* 2^11 ticks at 3 GHz: 682.7 ns, below 1024 = 2^10 ns. */
	CHECK(top_prom_le_of(10, 3 * S) == 10);
	/* A rate estimated a hair either side of 2 GHz: one le. */
	CHECK(top_prom_le_of(10, 2 * S) == 10);
	CHECK(top_prom_le_of(10, 2 * S - 2000) == 10);
	CHECK(top_prom_le_of(10, 2 * S + 2000) == 10);
	top_prom_le_text(buf, sizeof(buf), 0);
	CHECK(!strcmp(buf, "0.000000001"));
	top_prom_le_text(buf, sizeof(buf), 10);
	CHECK(!strcmp(buf, "0.000001024"));
	top_prom_le_text(buf, sizeof(buf), 33);
	CHECK(!strcmp(buf, "8.589934592"));
	top_prom_escape(buf, sizeof(buf), "a\"b\\c\nd\xc3");
	CHECK(!strcmp(buf, "a\\\"b\\\\c?d?"));
	top_prom_escape(buf, 6, "\"\"\"\"");
	CHECK(!strcmp(buf, "\\\"\\\"")); /* cut whole, never half an escape */
}

/* Two processes of one command are summed; one ends, goes, and its
 * totals stay; another run of the command adds to them. */
static void test_by_command(void)
{
	struct fake f;
	struct top_prom x;
	char *t;

	fake_init(&f);
	fake_add(&f, "seg-a", 100, "srv", S);
	fake_add(&f, "seg-b", 101, "srv", S);
	calls(f.e[0], 1, 1, 100, 6);
	calls(f.e[1], 1, 1, 50, 8);
	top_prom_init(&x, false, false);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"srv\",api=\"libc\",function=\"malloc\"} 150"));
	CHECK(has(t, "apiprof_processes{comm=\"srv\"} 2"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"srv\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000000128\"} 100"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"srv\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000000512\"} 150"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"srv\",api=\"libc\",function=\"malloc\","
	             "le=\"+Inf\"} 150"));
	CHECK(has(t, "apiprof_latency_seconds_count{comm=\"srv\",api=\"libc\",function=\"malloc\"} "
	             "150"));
	CHECK(has(t, "apiprof_time_seconds_total{comm=\"srv\",api=\"libc\",function=\"malloc\"} "
	             "0.000019200"));           /* 100 x 64 + 50 x 256 ns */
	CHECK(!strstr(t, "function=\"free\"")); /* never called: no series */
	free(t);

	/* b ends: seen once ended, then gone from the watch. */
	calls(f.e[1], 1, 2, 70, 8);
	end(f.e[1]);
	CHECK(top_prom_update(&x, &f.w) == 0);
	fake_drop(&f, 1);
	calls(f.e[0], 1, 2, 130, 6);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"srv\",api=\"libc\",function=\"malloc\"} 200"));
	CHECK(has(t, "apiprof_processes{comm=\"srv\"} 1"));
	CHECK(has(t, "apiprof_latency_seconds_count{comm=\"srv\",api=\"libc\",function=\"malloc\"} "
	             "200"));
	free(t);

	/* A second run of the command. */
	calls(fake_add(&f, "seg-c", 102, "srv", S), 1, 1, 5, 6);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"srv\",api=\"libc\",function=\"malloc\"} 205"));
	CHECK(has(t, "apiprof_processes{comm=\"srv\"} 2"));
	free(t);
	fake_free(&f, &x);
}

/* --per-process: a series per pid, gone with its process. */
static void test_per_process(void)
{
	struct fake f;
	struct top_prom x;
	char *t;

	fake_init(&f);
	calls(fake_add(&f, "seg-a", 100, "srv", S), 7, 1, 10, 6);
	top_prom_init(&x, true, true);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"srv\",pid=\"100\",title=\"\",tid=\"7\","
	             "thread=\"t7\",api=\"libc\",function=\"malloc\"} 10"));
	free(t);
	fake_drop(&f, 0);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(!strstr(t, "pid=\"100\""));
	free(t);
	fake_free(&f, &x);
}

/* A TSC rate estimated higher later converts the same ticks to fewer ns,
 * or moves a bucket's le: nothing exported goes down. */
static void test_never_down(void)
{
	struct fake f;
	struct top_prom x;
	char *t;

	fake_init(&f);
	fake_add(&f, "seg-a", 100, "tsc", 2 * S)->proc.sample = 4; /* the time is an estimate */
	calls(f.e[0], 1, 1, 10, 12);
	top_prom_init(&x, false, false);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	/* 10 x 4096 ticks at 2 GHz; bucket 12 ends at 2^13 ticks = 4096 ns. */
	CHECK(has(t, "apiprof_time_seconds_total{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "estimated=\"true\"} 0.000020480"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000004096\"} 10"));
	free(t);
	f.e[0]->proc.tick_hz = S / 2; /* now 16384 ns: le 2^14 */
	CHECK(top_prom_update(&x, &f.w) == 0);
	f.e[0]->proc.tick_hz = 4 * S; /* now 2048 ns: le 2^11 */
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_time_seconds_total{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "estimated=\"true\"} 0.000081920"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000002048\"} 10"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000004096\"} 10"));
	CHECK(has(t, "apiprof_latency_seconds_bucket{comm=\"tsc\",api=\"libc\",function=\"malloc\","
	             "le=\"0.000016384\"} 10"));
	free(t);
	fake_free(&f, &x);
}

/* The thread tid's cumulative bytes and failures of function func, as an
 * APIPROF_REC_ACCT record brings them: failures by errno slot in errs. */
static void acct(struct top_entry *e, uint32_t func, uint64_t tick, uint64_t bytes,
                 const uint64_t *errs)
{
	struct top_snap s;

	memset(&s, 0, sizeof(s));
	s.tid = 1;
	s.func = func;
	s.tick = tick;
	s.flags = APIPROF_REC_ACCT;
	s.st.acct.bytes = bytes;
	for (int k = 0; k < APIPROF_ERRNO_SLOTS; k++) {
		s.st.acct.errnos[k] = errs[k];
		s.st.acct.failures += errs[k];
	}
	CHECK(top_proc_snap(&e->proc, &s) == 0);
}

/* apiprof_bytes_total and apiprof_failures_total: only for functions that
 * declare them, by errno where the spec says "errno", summed per command
 * and kept after the process ends. */
static void test_bytes_failures(void)
{
	struct top_func fn[3] = {{"posix_io", "read", APIPROF_FUNC_ACCT, 1},
	                         {"posix_io", "open", APIPROF_FUNC_FAILS, 1},
	                         {"libc", "free", 0, 2}};
	uint64_t errs[APIPROF_ERRNO_SLOTS] = {0}, none[APIPROF_ERRNO_SLOTS] = {0};
	int enoent = 0, eacces = 0;
	struct fake f;
	struct top_prom x;
	char *t;

	for (int k = 1; k < APIPROF_ERRNO_SLOTS; k++) {
		enoent = apiprof_errno_values[k] == ENOENT ? k : enoent;
		eacces = apiprof_errno_values[k] == EACCES ? k : eacces;
	}
	CHECK(enoent && eacces);
	fake_init(&f);
	for (int i = 0; i < 2; i++) {
		struct top_entry *e = fake_add(&f, i ? "seg-b" : "seg-a", 100 + i, "cat", S);

		CHECK(top_proc_set_funcs(&e->proc, fn, 3) == 0);
		calls(e, 1, 1, 10, 6); /* func 0, read */
		errs[enoent] = 17 * (uint64_t)(i + 1);
		errs[eacces] = 3;
		acct(e, 0, 1, 100000, errs);
		acct(e, 1, 1, 0, none); /* open: declares fails only, none yet */
	}
	top_prom_init(&x, false, false);
	CHECK(top_prom_update(&x, &f.w) == 0);
	end(f.e[1]);
	CHECK(top_prom_update(&x, &f.w) == 0);
	fake_drop(&f, 1);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t,
	          "apiprof_bytes_total{comm=\"cat\",api=\"posix_io\",function=\"read\"} 200000"));
	CHECK(has(t, "apiprof_failures_total{comm=\"cat\",api=\"posix_io\",function=\"read\","
	             "errno=\"ENOENT\"} 51"));
	CHECK(has(t, "apiprof_failures_total{comm=\"cat\",api=\"posix_io\",function=\"read\","
	             "errno=\"EACCES\"} 6"));
	CHECK(!strstr(t, "errno=\"other\"")); /* never seen: no series */
	CHECK(!strstr(t, "apiprof_bytes_total{comm=\"cat\",api=\"posix_io\",function=\"open\""));
	CHECK(has(t, "apiprof_failures_total{comm=\"cat\",api=\"posix_io\",function=\"open\"} 0"));
	CHECK(!strstr(t,
	              "apiprof_failures_total{comm=\"cat\",api=\"posix_io\",function=\"open\","));
	free(t);
	fake_free(&f, &x);
}

/* The budgets (issue 34, point 10), made small: 6 series in all, 3 per
 * user, one series (malloc) per command here.  User 1000 runs ten short
 * commands one after the other: each ends and is gone, and still the
 * newest is exported, the oldest of its ended ones evicted; user 1000
 * never holds more than 3.  Then three commands of user 1000 run at once
 * (3 live series: none may be evicted) and a fourth is left out, while a
 * new command of user 2000 is exported. */
static void test_budget(void)
{
	struct fake f;
	struct top_prom x;
	char name[16], comm[16], line[160];
	char *t;

	fake_init(&f);
	top_prom_init(&x, false, false);
	x.max_series = 6;
	x.max_per_user = 3;
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "seg-%d", i);
		snprintf(comm, sizeof(comm), "short%d", i);
		struct top_entry *e = fake_add(&f, name, 200 + i, comm, S);
		e->uid = 1000;
		calls(e, 1, 1, 10 + (uint64_t)i, 6);
		CHECK(top_prom_update(&x, &f.w) == 0);
		end(e);
		CHECK(top_prom_update(&x, &f.w) == 0);
		fake_drop(&f, 0);
		CHECK(top_prom_update(&x, &f.w) == 0);
		t = text_of(&x);
		snprintf(line, sizeof(line),
		         "apiprof_calls_total{comm=\"%s\",api=\"libc\",function=\"malloc\"} %d",
		         comm, 10 + i);
		CHECK(has(t, line));
		free(t);
		CHECK(x.nseries <= 3);
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "seg-l%d", i);
		snprintf(comm, sizeof(comm), "long%d", i);
		struct top_entry *e = fake_add(&f, name, 300 + i, comm, S);
		e->uid = 1000;
		calls(e, 1, 1, 20, 6);
		CHECK(top_prom_update(&x, &f.w) == 0);
	}
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"long0\",api=\"libc\",function=\"malloc\"} 20"));
	CHECK(has(t, "apiprof_calls_total{comm=\"long2\",api=\"libc\",function=\"malloc\"} 20"));
	CHECK(!strstr(t, "apiprof_calls_total{comm=\"long3\""));
	free(t);
	fake_drop(&f, 3);
	struct top_entry *v = fake_add(&f, "seg-v", 400, "victim", S);
	v->uid = 2000;
	calls(v, 1, 1, 7, 6);
	CHECK(top_prom_update(&x, &f.w) == 0);
	t = text_of(&x);
	CHECK(has(t, "apiprof_calls_total{comm=\"victim\",api=\"libc\",function=\"malloc\"} 7"));
	CHECK(has(t, "apiprof_calls_total{comm=\"long1\",api=\"libc\",function=\"malloc\"} 20"));
	free(t);
	CHECK(x.nseries == 4);
	fake_free(&f, &x);
}

/* Two tables sharing one bound of 4 series (the exporter's per-user
 * views): the second gets what the first left. */
static void test_pool(void)
{
	struct fake f;
	struct top_prom a, b;
	size_t pool = 0;
	char name[16], comm[16];

	fake_init(&f);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "seg-%d", i);
		snprintf(comm, sizeof(comm), "c%d", i);
		struct top_entry *e = fake_add(&f, name, 500 + i, comm, S);
		e->uid = i < 3 ? 1000 : 2000;
		calls(e, 1, 1, 5, 6);
	}
	top_prom_init(&a, false, false);
	top_prom_init(&b, false, false);
	a.max_series = b.max_series = 4;
	a.pool = b.pool = &pool;
	a.only = true, a.uid = 1000;
	b.only = true, b.uid = 2000;
	CHECK(top_prom_update(&a, &f.w) == 0);
	CHECK(a.nseries == 3 && pool == 3);
	CHECK(top_prom_update(&b, &f.w) == 0);
	CHECK(b.nseries == 1 && pool == 4);
	top_prom_free(&b);
	CHECK(pool == 3);
	fake_free(&f, &a);
	CHECK(pool == 0);
}

int main(void)
{
	test_le();
	test_by_command();
	test_per_process();
	test_never_down();
	test_bytes_failures();
	test_budget();
	test_pool();
	printf("ok\n");
	return 0;
}
