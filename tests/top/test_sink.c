/* SPDX-License-Identifier: MIT */
/*
 * test_sink.c - the reader on its own, without the model (issue 21, "reader
 * and model, layered"): top_shm.h must not bring the model in, and a read
 * pass hands every intact record to its sink, newest first, superseded
 * ones too (what to keep is the sink's business), then the function table,
 * then the header and the lost count.
 */
#include <stdio.h>
#include <string.h>

#include "top_shm.h"
#include "tseg.h"

#ifdef TOP_MODEL_H
#error "top_shm.h includes the model"
#endif

struct got {
	struct top_snap snaps[16];
	size_t nsnaps;
	uint32_t nfuncs;
	char func1[TOP_NAME_LEN];
	int passes;
	uint64_t lost;
	uint64_t dropped;
};

static void on_snap(void *ctx, const struct top_snap *snap)
{
	struct got *g = ctx;

	CHECK(g->nsnaps < 16);
	g->snaps[g->nsnaps++] = *snap;
}

static int on_funcs(void *ctx, const struct top_func *funcs, uint32_t n)
{
	struct got *g = ctx;

	g->nfuncs = n;
	if (n > 1)
		memcpy(g->func1, funcs[1].name, sizeof(g->func1));
	return 0;
}

static void on_pass(void *ctx, const struct apiprof_shm_header *h, uint64_t lost)
{
	struct got *g = ctx;

	g->passes++;
	g->lost = lost;
	g->dropped = h->dropped;
}

static void test_yield_all(void)
{
	struct tseg t;
	struct top_seg s;
	struct got g;
	const struct top_seg_sink k = {&g, on_snap, on_funcs, on_pass};
	char err[TOP_ERR_LEN] = "";

	tseg_create(&t, 4, 3); /* 8 slots */
	tseg_func(&t, 0, "libc", "malloc");
	tseg_func(&t, 1, "libc", "free\x1b");
	tseg_write(&t, 100, 0, 5, 10, 7); /* pos 0 */
	tseg_write(&t, 100, 0, 9, 30, 7); /* pos 1: supersedes pos 0 */
	tseg_write(&t, 101, 1, 6, 2, 7);  /* pos 2 */
	tseg_write(&t, 102, 1, 8, 4, 7);  /* pos 3: in flight below */
	tseg_slot(&t, 3)->h.seq = 2 * 3 + 1;
	t.h->dropped = 5;
	memset(&g, 0, sizeof(g));
	CHECK(top_seg_open(&s, t.path, err, sizeof(err)) == 0);
	CHECK(top_seg_scan(&s, t.h->pid, &k, err, sizeof(err)) == 0);
	CHECK(g.nsnaps == 3 && g.passes == 1 && g.lost == 1 && g.dropped == 5);
	CHECK(g.snaps[0].tid == 101 && g.snaps[0].func == 1 && g.snaps[0].tick == 6);
	CHECK(g.snaps[1].tid == 100 && g.snaps[1].tick == 9 && g.snaps[1].st.calls == 30);
	CHECK(g.snaps[2].tid == 100 && g.snaps[2].tick == 5 && g.snaps[2].st.calls == 10);
	CHECK(!strcmp(g.snaps[2].comm, "t100"));
	CHECK(g.nfuncs == 2 && !strcmp(g.func1, "free?")); /* sanitized */

	/* A second pass yields only what is new. */
	tseg_write(&t, 100, 0, 12, 31, 7); /* pos 4 */
	memset(&g, 0, sizeof(g));
	CHECK(top_seg_scan(&s, t.h->pid, &k, err, sizeof(err)) == 0);
	CHECK(g.nsnaps == 1 && g.snaps[0].st.calls == 31 && g.passes == 1 && g.lost == 1);
	top_seg_close(&s);
	tseg_destroy(&t);
}

int main(void)
{
	test_yield_all();
	printf("ok\n");
	return 0;
}
