/* SPDX-License-Identifier: MIT */
/*
 * test_ptree.c - the order of processes (a tree, the busiest first), the
 * groups summed over processes, the parent read from a stat file, and
 * the apis whose library was never loaded, on hand-made processes and
 * synthetic segments (no sleeping, no real /proc but the test's own).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "top_batch.h"
#include "top_group.h"
#include "top_ptree.h"
#include "tseg.h"

#define S 1000000000ull

static const struct top_func funcs[2] = {{"toplib", "tt_work", 0, 1}, {"toplib", "tt_idle", 0, 1}};

/* A process that made `calls` calls of tt_work of `each` ticks in its
 * first interval (1 s), and one of tt_idle of 10 ticks. */
static struct top_entry *entry(int pid, int ppid, uint64_t starttime, const char *comm, uint64_t hz,
                               uint64_t calls, uint64_t each)
{
	struct top_entry *e = calloc(1, sizeof(*e));
	struct top_proc *p = &e->proc;
	struct top_snap s;

	CHECK(e);
	e->st = TOP_E_ACTIVE;
	top_proc_init(p, pid, starttime);
	p->ppid = ppid;
	p->tick_hz = hz;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	snprintf(p->title, sizeof(p->title), "%s: %d", comm, pid);
	/* The table in another order for odd pids: groups match by name. */
	struct top_func f[2] = {funcs[pid % 2], funcs[1 - pid % 2]};
	CHECK(top_proc_set_funcs(p, f, 2) == 0);
	for (int k = 0; k < 2; k++) {
		bool work = !strcmp(f[k].name, "tt_work");
		uint64_t n = work ? calls : 1, d = work ? each : 10;
		int b = 0;

		memset(&s, 0, sizeof(s));
		s.tid = (uint32_t)pid;
		s.func = (uint32_t)k;
		s.tick = 1;
		s.st.calls = s.st.timed = n;
		s.st.ticks = n * d;
		s.st.min = s.st.max = d;
		while ((d >> (b + 1)) != 0)
			b++;
		s.st.hist[b] = n;
		CHECK(top_proc_snap(p, &s) == 0);
	}
	top_proc_refresh(p, 10 * S, 1 * S); /* first refresh: uptime 1 s */
	return e;
}

static void watch_of(struct top_watch *w, struct top_entry **v, size_t n)
{
	top_watch_init(w);
	w->v = v;
	w->n = n;
}

static void entries_free(struct top_entry **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		top_proc_free(&v[i]->proc);
		free(v[i]);
	}
}

/* Shares (1 s of wall time): 10: 1 %, 20: 5 %, 30: 1 %, 11: 3 %, 12:
 * 0.5 %, 13: 0.2 %; 40 says 30 is its parent but started before it (a
 * reused pid): it is a root of its own, tied with 30. */
static size_t family(struct top_entry **v)
{
	size_t n = 0;

	v[n++] = entry(10, 1, 100, "nginx", S, 1000, 10000);
	v[n++] = entry(20, 1, 100, "postgres", S, 1000, 50000);
	v[n++] = entry(30, 1, 100, "nginx", S, 1000, 10000);
	v[n++] = entry(11, 10, 101, "nginx", S, 1000, 30000);
	v[n++] = entry(12, 10, 101, "nginx", S, 1000, 5000);
	v[n++] = entry(40, 30, 99, "redis", S, 1000, 10000);
	v[n++] = entry(13, 11, 102, "nginx", S, 1000, 2000);
	return n;
}

static void test_order(void)
{
	struct top_entry *v[8];
	size_t n = family(v);
	struct top_watch w;
	struct top_ptree t;
	static const int pid[] = {20, 10, 11, 13, 12, 30, 40};
	static const int depth[] = {0, 0, 1, 2, 1, 0, 0};

	watch_of(&w, v, n);
	CHECK(top_ptree_build(&t, &w, TOP_GROUP_NONE) == 0);
	CHECK(t.n == n && t.ngroups == 0);
	for (size_t i = 0; i < n; i++) {
		CHECK(t.nodes[i].proc->pid == pid[i]);
		CHECK(t.nodes[i].depth == depth[i]);
	}
	top_ptree_free(&t);
	entries_free(v, n);
}

static uint64_t group_calls(const struct top_proc *g, const char *func, double *total_ns)
{
	struct top_view view = {.aggregate = true, .sort = TOP_COL_API};
	struct top_row *rows;
	size_t n = top_rows_build(g, &view, &rows);
	uint64_t calls = 0;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].func, func)) {
			calls = rows[i].calls;
			*total_ns = rows[i].total_ns;
		}
	free(rows);
	return calls;
}

static void test_groups(void)
{
	struct top_entry *v[8];
	size_t n = family(v);
	struct top_watch w;
	struct top_ptree t;
	double ns;

	watch_of(&w, v, n);
	CHECK(top_ptree_build(&t, &w, TOP_GROUP_TREE) == 0);
	CHECK(t.ngroups == 4);
	CHECK(t.groups[0].proc.pid == 20 && t.groups[0].npids == 1);
	CHECK(t.groups[1].proc.pid == 10 && t.groups[1].npids == 4);
	CHECK(t.groups[1].pids[1] == 11 && t.groups[1].pids[2] == 13 && t.groups[1].pids[3] == 12);
	CHECK(group_calls(&t.groups[1].proc, "tt_work", &ns) == 4000 && ns == 47000000);
	CHECK(group_calls(&t.groups[1].proc, "tt_idle", &ns) == 4 && ns == 40);
	CHECK(!strcmp(t.groups[1].proc.title, "nginx: 10"));
	top_ptree_free(&t);

	CHECK(top_ptree_build(&t, &w, TOP_GROUP_COMM) == 0);
	CHECK(t.ngroups == 3);
	CHECK(!strcmp(t.groups[0].proc.comm, "nginx") && t.groups[0].npids == 5);
	CHECK(!strcmp(t.groups[1].proc.comm, "postgres") &&
	      !strcmp(t.groups[2].proc.comm, "redis"));
	CHECK(group_calls(&t.groups[0].proc, "tt_work", &ns) == 5000 && ns == 57000000);
	CHECK(group_calls(&t.groups[0].proc, "tt_idle", &ns) == 5);
	top_ptree_free(&t);
	entries_free(v, n);
}

/* A member whose clock ticks twice as fast: its times halved into the
 * group's ticks, its histogram one bucket down. */
static void test_rescale(void)
{
	struct top_entry *v[2] = {entry(10, 1, 100, "a", S, 10, 100),
	                          entry(11, 10, 101, "a", 2 * S, 10, 200)};
	const struct top_proc *m[2] = {&v[0]->proc, &v[1]->proc};
	struct top_proc g;
	struct top_view view = {.aggregate = true, .sort = TOP_COL_API};
	struct top_row *rows;

	CHECK(top_group_build(&g, m, 2) == 0);
	size_t n = top_rows_build(&g, &view, &rows);
	CHECK(n == 2);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].func, "tt_work")) {
			CHECK(rows[i].calls == 20 && rows[i].total_ns == 2000);
			CHECK(rows[i].max_ns == 100 && rows[i].min_ns == 100 &&
			      rows[i].p99_ns == 100);
		}
	free(rows);
	top_proc_free(&g);
	entries_free(v, 2);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* The comm may hold spaces and parentheses: the parent comes after the
 * last ')'. */
static void test_ppid(void)
{
	char dir[] = "/tmp/apiprof-ptree-XXXXXX", sub[64], path[96];
	uint64_t st = 0;

	CHECK(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/42", dir);
	CHECK(mkdir(sub, 0700) == 0);
	snprintf(path, sizeof(path), "%s/stat", sub);
	put_file(path, "42 (a) b (c) S 7 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987 1 1\n");
	CHECK(top_ppid_read(dir, 42, &st) == 7 && st == 987);
	put_file(path, "42 (a) S x 42 42 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987 1 1\n");
	CHECK(top_ppid_read(dir, 42, &st) == -1);
	put_file(path, "42 (a) S 7\n"); /* no start time */
	CHECK(top_ppid_read(dir, 42, &st) == -1);
	CHECK(top_ppid_read(dir, 43, &st) == -1);
	unlink(path);
	rmdir(sub);
	rmdir(dir);
	CHECK(top_ppid_read("/proc", getpid(), &st) == getppid() && st == tseg_self_starttime());
}

static json_t *json_of(struct top_watch *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t e;

	CHECK(f && top_batch_json(f, w, TOP_GROUP_NONE, 2 * S, 1.0) == 0);
	fclose(f);
	json_t *o = json_loads(buf, 0, &e);
	CHECK(o);
	free(buf);
	return o;
}

/* The runtime marks every function of an api whose library is not loaded
 * (APIPROF_FUNC_UNLOADED): the title says so, and --json "loaded". */
static void test_unloaded(void)
{
	struct tseg t;
	struct top_watch w;
	char note[128];

	tseg_create(&t, 4, 4);
	tseg_func(&t, 0, "toplib", "tt_work");
	tseg_func(&t, 1, "zstd", "ZSTD_compress");
	tseg_func(&t, 2, "zstd", "ZSTD_decompress");
	struct apiprof_shm_func *f = (struct apiprof_shm_func *)(t.mem + t.h->func_off);
	f[1].flags = f[2].flags = APIPROF_FUNC_UNLOADED;
	tseg_write(&t, 77, 0, 10, 1000, 100);
	top_watch_init(&w);
	w.dir = t.dir;
	top_watch_refresh(&w, 1 * S, 2 * S);
	CHECK(w.n == 1);
	top_unloaded_note(&w.v[0]->proc, note, sizeof(note));
	CHECK(!strcmp(note, "  zstd: library never loaded"));
	json_t *o = json_of(&w);
	json_t *apis = json_object_get(json_array_get(json_object_get(o, "processes"), 0), "apis");
	CHECK(json_array_size(apis) == 2);
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(apis, 0), "name")),
	              "toplib"));
	CHECK(json_is_true(json_object_get(json_array_get(apis, 0), "loaded")));
	CHECK(!strcmp(json_string_value(json_object_get(json_array_get(apis, 1), "name")), "zstd"));
	CHECK(json_is_false(json_object_get(json_array_get(apis, 1), "loaded")));
	json_decref(o);

	/* Once the library is there, the runtime clears the flag. */
	f[1].flags = f[2].flags = 0;
	top_watch_refresh(&w, 2 * S, 3 * S);
	top_unloaded_note(&w.v[0]->proc, note, sizeof(note));
	CHECK(!strcmp(note, ""));
	top_watch_free(&w);
	tseg_destroy(&t);
}

int main(void)
{
	test_order();
	test_groups();
	test_rescale();
	test_ppid();
	test_unloaded();
	printf("ok\n");
	return 0;
}
