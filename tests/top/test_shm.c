/* SPDX-License-Identifier: MIT */
/* test_shm.c - the reader on synthetic segments it writes itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "top_feed.h"
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
	tseg_slot(&t, 19)->h.seq = 2 * 19 + 1; /* in flight */
	tseg_slot(&t, 18)->h.seq = 2 * 10 + 2; /* stale lap */
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

/* The reader's verdict on a segment whose only record is a times record
 * with kind and size as given; err gets its line. */
static int read_kind(uint16_t kind, uint16_t size, char *err, size_t errlen)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;

	tseg_create(&t, 4, 3);
	tseg_func(&t, 0, "a", "f");
	struct apiprof_shm_rec *r = tseg_slot(&t, tseg_write(&t, 1, 0, 1, 1, 1));
	r->h.kind = kind;
	r->h.size = size;
	attach(&s, &p, &t);
	int rc = top_seg_read(&s, &p, err, errlen);
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
	return rc;
}

/* The kinds' table, and a record whose kind is not in it or whose size
 * is not its kind's: refused with one line that says which. */
static void test_rec_kinds(void)
{
	char err[TOP_ERR_LEN] = "";

	for (uint32_t k = 1; k < APIPROF_REC_KIND_END; k++) {
		const struct apiprof_rec_kind_info *i = apiprof_rec_kind(k);

		CHECK(i && i->name && i->size > 0 && i->size % 8 == 0);
		CHECK(i->size <= sizeof(((struct apiprof_shm_rec *)0)->u));
		CHECK((i->flag & ~APIPROF_REC_KIND_FLAGS) == 0);
	}
	CHECK(apiprof_rec_kind(0) == NULL && apiprof_rec_kind(APIPROF_REC_KIND_END) == NULL);
	uint16_t times = (uint16_t)sizeof(struct apiprof_rec_times);
	CHECK(read_kind(APIPROF_REC_KIND_TIMES, times, err, sizeof(err)) == 0);
	CHECK(read_kind(APIPROF_REC_KIND_END, times, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(!strcmp(err, "record of unknown kind 6"));
	CHECK(read_kind(0, 0, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(!strcmp(err, "record of unknown kind 0"));
	CHECK(read_kind(APIPROF_REC_KIND_TIMES, times + 8, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(!strcmp(err, "times record of 568 bytes, not 560"));
	/* the payload of another kind's size */
	CHECK(read_kind(APIPROF_REC_KIND_SITES, times, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(!strcmp(err, "sites record of 560 bytes, not 688"));
}

static void test_names(void)
{
	struct apiprof_segid id = {1000, 42, 123, 4026531836ull, 0x00ab00cd00ef0012ull, false};
	struct apiprof_segid got;
	char buf[APIPROF_SEGNAME_MAX];

	CHECK(apiprof_segname_format(buf, sizeof(buf), &id) == 0);
	CHECK(!strcmp(buf, "apiprof-1000-42-123-4026531836-00ab00cd00ef0012"));
	CHECK(apiprof_segname_parse(buf, &got) == 0);
	CHECK(got.uid == 1000 && got.pid == 42 && got.starttime == 123 && !got.legacy);
	CHECK(got.pidns == id.pidns && got.nonce == id.nonce);
	CHECK(apiprof_segname_format(buf, 40, &id) == -1);
	/* The legacy form of version 3: listed, then refused by its version. */
	CHECK(apiprof_segname_parse("apiprof-1000-42-123", &got) == 0);
	CHECK(got.legacy && got.pid == 42 && got.starttime == 123 && got.pidns == 0);
	CHECK(apiprof_segname_parse("apiprof-1000-42-", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-042-1", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-0-1", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-+4-1", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-4-1x", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-99999999999-1", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-4-99999999999999999999", &got));
	CHECK(apiprof_segname_parse("apiprof-99999999999-4-1", &got));
	CHECK(apiprof_segname_parse("other-1000-4-1", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-4-1-5-00ab00cd00ef001", &got));   /* 15 digits */
	CHECK(apiprof_segname_parse("apiprof-1000-4-1-5-00ab00cd00ef00123", &got)); /* 17 */
	CHECK(apiprof_segname_parse("apiprof-1000-4-1-5-00AB00CD00EF0012", &got));  /* upper case */
	CHECK(apiprof_segname_parse("apiprof-1000-4-1--00ab00cd00ef0012", &got));
	CHECK(apiprof_segname_parse("apiprof-1000-4-1-5", &got));
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

/* --clean removes only what it proves gone.  A name whose pid namespace
 * no process of /proc is in: gone if /proc is the initial namespace's (it
 * shows every namespace), else maybe out of sight, kept; it is not listed
 * (no pid to show).  A legacy name, which says no namespace, likewise:
 * ours with another start time is gone when /proc shows every namespace,
 * ours with our start time is kept. */
static void test_clean_unseen_ns(void)
{
	struct tseg t;
	char legacy[256], live[256], foreign[256], *out = NULL;
	struct apiprof_segid id;
	struct top_segname *names;
	struct stat st;
	size_t outlen = 0;
	FILE *f;
	bool init_ns;

	CHECK(stat("/proc/self/ns/pid", &st) == 0);
	init_ns = st.st_ino == 0xEFFFFFFCu;
	tseg_create(&t, 2, 2);
	id = t.id;
	id.pidns = 1; /* no namespace has inode 1 */
	snprintf(foreign, sizeof(foreign), "%s/", t.dir);
	CHECK(apiprof_segname_format(foreign + strlen(foreign), sizeof(foreign) - strlen(foreign),
	                             &id) == 0);
	CHECK(link(t.path, foreign) == 0);
	snprintf(legacy, sizeof(legacy), "%s/apiprof-%u-%d-1", t.dir, (unsigned)getuid(), getpid());
	CHECK(link(t.path, legacy) == 0);
	snprintf(live, sizeof(live), "%s/apiprof-%u-%d-%llu", t.dir, (unsigned)getuid(), getpid(),
	         (unsigned long long)tseg_self_starttime());
	CHECK(link(t.path, live) == 0);
	CHECK(top_shm_list(t.dir, (uint32_t)getuid(), &names) == 3); /* ours and the legacy */
	free(names);
	f = open_memstream(&out, &outlen);
	CHECK(top_shm_clean(t.dir, TOP_PROC_DIR, (uint32_t)getuid(), f) == (init_ns ? 2 : 0));
	fclose(f);
	CHECK((access(foreign, F_OK) != 0) == init_ns);
	CHECK((access(legacy, F_OK) != 0) == init_ns);
	CHECK(access(live, F_OK) == 0 && access(t.path, F_OK) == 0);
	CHECK(!init_ns || (strstr(out, foreign) && strstr(out, "gone")));
	free(out);
	unlink(foreign);
	unlink(legacy);
	unlink(live);
	tseg_destroy(&t);
}

int main(void)
{
	test_roundtrip();
	test_wrap_and_lost();
	test_func_index();
	test_rec_kinds();
	test_names();
	test_liveness_and_clean();
	test_clean_unseen_ns();
	return 0;
}
