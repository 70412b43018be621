/* SPDX-License-Identifier: MIT */
/* test_shm.c - the reader on synthetic segments it writes itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "top_shm.h"
#include "tseg.h"

static const struct top_cell *cell(const struct top_proc *p, uint32_t tid, uint32_t func)
{
	for (size_t i = 0; i < p->ncells; i++)
		if (p->cells[i].tid == tid && p->cells[i].func == func)
			return &p->cells[i];
	return NULL;
}

static void attach(struct top_seg *s, struct top_proc *p, struct tseg *t)
{
	char err[TOP_ERR_LEN] = "";

	top_proc_init(p, t->h->pid, t->h->starttime);
	CHECK(top_seg_open(s, t->path, err, sizeof(err)) == 0);
}

static int read_ok(struct top_seg *s, struct top_proc *p)
{
	char err[TOP_ERR_LEN] = "";
	int rc = top_seg_read(s, p, err, sizeof(err));

	if (rc)
		fprintf(stderr, "read: %d %s\n", rc, err);
	return rc == 0;
}

static void test_roundtrip(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;
	const struct top_cell *c;

	tseg_create(&t, 8, 4);
	tseg_func(&t, 0, "libc", "malloc");
	tseg_func(&t, 1, "libc", "free\x1b[31m");
	tseg_write(&t, 100, 0, 1, 1234, 100);
	tseg_write(&t, 100, 1, 1, 77, 3);
	tseg_write(&t, 101, 0, 1, 5, 1000000);
	t.h->dropped = 3;
	attach(&s, &p, &t);
	CHECK(read_ok(&s, &p));
	CHECK(p.ncells == 3 && p.nfuncs == 2 && p.lost == 0 && p.dropped == 3);
	CHECK(!strcmp(p.comm, "synthetic") && p.tick_hz == 1000000000ull);
	CHECK(!strcmp(p.funcs[1].name, "free?[31m")); /* sanitized */
	c = cell(&p, 100, 0);
	CHECK(c && c->cur.calls == 1234 && c->cur.ticks == 123400 && c->cur.hist[6] == 1234);
	CHECK(!strcmp(c->comm, "t100"));
	c = cell(&p, 101, 0);
	CHECK(c && c->cur.calls == 5 && c->cur.max == 1000000);

	/* Incremental: only new records are read, latest tick wins. */
	tseg_write(&t, 100, 0, 3, 2000, 100);
	tseg_write(&t, 100, 0, 2, 1500, 100); /* older snapshot, later in the ring */
	CHECK(read_ok(&s, &p));
	CHECK(cell(&p, 100, 0)->cur.calls == 2000 && p.ncells == 3);
	CHECK(s.last_seen == 5);
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

static void test_wrap_and_lost(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;

	tseg_create(&t, 4, 3); /* 8 slots */
	tseg_func(&t, 0, "a", "f");
	for (uint64_t i = 0; i < 20; i++) /* head 20: positions 12..19 remain */
		tseg_write(&t, (uint32_t)(1 + i % 4), 0, i + 1, i + 1, 10);
	tseg_slot(&t, 19)->seq = 2 * 19 + 1; /* in flight */
	tseg_slot(&t, 18)->seq = 2 * 10 + 2; /* stale lap */
	attach(&s, &p, &t);
	CHECK(read_ok(&s, &p));
	CHECK(p.lost == 2 && p.ncells == 4);
	/* tid 4 wrote positions 15 (calls 16) and 19 (lost): 16 wins. */
	CHECK(cell(&p, 4, 0)->cur.calls == 16);
	CHECK(cell(&p, 3, 0)->cur.calls == 15); /* 18 was lost, 14 remains */
	CHECK(cell(&p, 1, 0)->cur.calls == 17);

	/* The producer laps the reader: 12 more records, 4 overwritten unread. */
	for (uint64_t i = 20; i < 32; i++)
		tseg_write(&t, 7, 0, i + 1, i + 1, 10);
	CHECK(read_ok(&s, &p));
	CHECK(p.lost == 2 + 4);
	CHECK(cell(&p, 7, 0)->cur.calls == 32);
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

static void test_func_index(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;
	char err[TOP_ERR_LEN] = "";

	tseg_create(&t, 4, 3);
	tseg_func(&t, 0, "a", "f");
	tseg_write(&t, 1, 2, 1, 1, 1); /* func 2 >= func_count 1 */
	attach(&s, &p, &t);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(strstr(err, "func_count"));
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

static void test_names(void)
{
	int pid;
	uint64_t st;

	CHECK(top_shm_parse_name("apiprof-1000-42-123", 1000, &pid, &st) == 0);
	CHECK(pid == 42 && st == 123);
	CHECK(top_shm_parse_name("apiprof-1000-42-123", 1001, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-42-", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-042-1", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-0-1", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-+4-1", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-4-1x", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-99999999999-1", 1000, &pid, &st));
	CHECK(top_shm_parse_name("apiprof-1000-4-99999999999999999999", 1000, &pid, &st));
	CHECK(top_shm_parse_name("other-1000-4-1", 1000, &pid, &st));
}

static void test_liveness_and_clean(void)
{
	uint64_t me = tseg_self_starttime();
	struct tseg live, reused;
	struct top_segname *names;
	size_t n;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	CHECK(top_shm_alive(TOP_PROC_DIR, getpid(), me));
	CHECK(!top_shm_alive(TOP_PROC_DIR, getpid(), me + 1));
	tseg_create(&live, 2, 2);
	tseg_create_named(&reused, 2, 2, getpid(), me + 1);
	/* Put both in one directory. */
	char moved[256];
	snprintf(moved, sizeof(moved), "%s/%s", live.dir, reused.name);
	CHECK(rename(reused.path, moved) == 0);
	n = top_shm_list(live.dir, (uint32_t)getuid(), &names);
	CHECK(n == 2);
	free(names);
	CHECK(top_shm_list(live.dir, (uint32_t)getuid() + 1, &names) == 0);
	free(names);
	f = open_memstream(&out, &outlen);
	CHECK(top_shm_clean(live.dir, TOP_PROC_DIR, (uint32_t)getuid(), f) == 1);
	fclose(f);
	CHECK(strstr(out, reused.name) && strstr(out, "removed"));
	CHECK(access(moved, F_OK) != 0 && access(live.path, F_OK) == 0);
	free(out);
	tseg_destroy(&reused);
	tseg_destroy(&live);
}

int main(void)
{
	test_roundtrip();
	test_wrap_and_lost();
	test_func_index();
	test_names();
	test_liveness_and_clean();
	return 0;
}
