/* SPDX-License-Identifier: MIT */
/*
 * test_ring - the ring producer on plain memory: layout, publication,
 * wrap-around, drop counting, and many producers at once, read back with
 * the reader half of the same protocol (common/abi/apiprof_ringbuf.h), the one
 * apiprof-top uses.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_internal.h"
#include "check.h"

static struct apiprof_shm_header *make_segment(uint32_t order, uint32_t funcs)
{
	struct apiprof_ring_geom g = {funcs, order};
	size_t size = apiprof_ring_size(&g);
	void *mem = aligned_alloc(4096, size);

	memset(mem, 0, size);
	apiprof_ring_format(mem, size, &g);
	return mem;
}

static struct apiprof_shm_rec *slot(struct apiprof_shm_header *h, uint64_t pos)
{
	struct apiprof_shm_rec *r = (void *)((char *)h + h->ring_off);

	return &r[pos & ((1u << h->ring_order) - 1)];
}

/* The reader's side of the seqlock: 1 and a copy when pos is intact. */
static int read_pos(struct apiprof_shm_header *h, uint64_t pos, struct apiprof_shm_rec *out)
{
	struct apiprof_ring_view v = {(const unsigned char *)h + h->ring_off, h->ring_order,
	                              h->rec_size};

	return apiprof_ring_read(&v, pos, out);
}

static struct apiprof_shm_rec rec(uint32_t tid, uint64_t v)
{
	struct apiprof_shm_rec r;

	memset(&r, 0, sizeof(r));
	r.h.tid = tid;
	r.h.func = (uint32_t)(v % 7);
	apiprof_rec_set_kind(&r.h, APIPROF_REC_KIND_TIMES);
	r.u.times.calls = v;
	r.u.times.ticks = v * 3;
	r.u.times.hist[APIPROF_HIST_BUCKETS - 1] = v;
	return r;
}

static void test_layout(void)
{
	struct apiprof_ring_geom g = {100, 6};
	struct apiprof_shm_header *h = make_segment(6, 100);

	CHECK(h->version == APIPROF_SHM_VERSION);
	CHECK(h->header_size == APIPROF_SHM_HEADER_SIZE);
	CHECK(sizeof(struct apiprof_shm_header) <= APIPROF_SHM_HEADER_SIZE);
	CHECK(h->segment_size == apiprof_ring_size(&g));
	CHECK(h->func_off >= h->header_size);
	CHECK(h->ring_off % 4096 == 0);
	CHECK(h->ring_off >= h->func_off + 100 * sizeof(struct apiprof_shm_func));
	CHECK(h->ring_off + (64 * sizeof(struct apiprof_shm_rec)) <= h->segment_size);
	CHECK(h->rec_size == sizeof(struct apiprof_shm_rec));
	CHECK(h->head == 0 && h->dropped == 0);
	free(h);
}

static void test_publish_and_wrap(void)
{
	struct apiprof_shm_header *h = make_segment(2, 8); /* 4 slots */
	struct apiprof_shm_rec r, got;

	for (uint64_t v = 0; v < 10; v++) {
		r = rec(42, v);
		CHECK(apiprof_ring_write(h, &r) == 0);
	}
	CHECK(h->head == 10);
	CHECK(h->dropped == 0);
	for (uint64_t pos = 0; pos < 10; pos++) {
		int ok = read_pos(h, pos, &got);

		CHECK(ok == (pos >= 6)); /* positions 0..5 were overwritten */
		if (ok) {
			CHECK(got.h.tid == 42 && got.u.times.calls == pos &&
			      got.u.times.ticks == pos * 3);
			CHECK(got.u.times.hist[APIPROF_HIST_BUCKETS - 1] == pos &&
			      got.h.func == pos % 7);
		}
	}
	free(h);
}

static void test_drop_busy_slot(void)
{
	struct apiprof_shm_header *h = make_segment(2, 8);
	struct apiprof_shm_rec r = rec(1, 1), got;

	slot(h, 1)->h.seq = 2 * 1 + 1;          /* a producer is still writing position 1 */
	CHECK(apiprof_ring_write(h, &r) == 0);  /* pos 0 */
	CHECK(apiprof_ring_write(h, &r) == -1); /* pos 1: busy, dropped */
	CHECK(apiprof_ring_write(h, &r) == 0);  /* pos 2 */
	CHECK(h->head == 3 && h->dropped == 1);
	CHECK(read_pos(h, 0, &got) && !read_pos(h, 1, &got) && read_pos(h, 2, &got));
	/* A producer a lap behind may not overwrite a newer record. */
	slot(h, 3)->h.seq = 2 * 7 + 2;
	CHECK(apiprof_ring_write(h, &r) == -1);
	CHECK(slot(h, 3)->h.seq == 2 * 7 + 2 && h->dropped == 2);
	free(h);
}

static void test_funcs(void)
{
	struct apiprof_shm_header *h = make_segment(2, 2);
	struct apiprof_shm_func *f = (void *)((char *)h + h->func_off);
	char longname[200];

	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CHECK(apiprof_ring_add_func(h, 0, "zlib", "deflate", 0, 1) == 0);
	CHECK(apiprof_ring_add_func(h, 1, "zlib", longname, APIPROF_FUNC_NORETURN, 1) == 0);
	CHECK(apiprof_ring_add_func(h, 2, "zlib", "overflow", 0, 1) == -1);
	CHECK(h->func_count == 0);
	apiprof_ring_publish_funcs(h, 5); /* clamped to the capacity */
	CHECK(h->func_count == 2);
	apiprof_ring_publish_funcs(h, 1); /* never lowered */
	CHECK(h->func_count == 2);
	CHECK(strcmp(f[0].name, "deflate") == 0 && strcmp(f[0].api, "zlib") == 0);
	CHECK(strlen(f[1].name) == APIPROF_NAME_MAX - 1 && f[1].flags == APIPROF_FUNC_NORETURN);
	free(h);
}

/* The buckets as a table made on this CPU computes them (tests/e2e's
 * malloc-sizes-nolzcnt does the same on a CPU without LZCNT). */
static void test_hist_bucket(void)
{
	struct apiprof_tab tab = {.hist_xor = apiprof_cpu_hist_xor()};

	CHECK(apiprof_hist_bucket_lz(&tab, 0) == 0);
	CHECK(apiprof_hist_bucket_lz(&tab, 1) == 0);
	CHECK(apiprof_hist_bucket_lz(&tab, 2) == 1);
	CHECK(apiprof_hist_bucket_lz(&tab, 3) == 1);
	CHECK(apiprof_hist_bucket_lz(&tab, 4) == 2);
	CHECK(apiprof_hist_bucket_lz(&tab, 1000) == 9);
	CHECK(apiprof_hist_bucket_lz(&tab, 1ull << 47) == 47);
	CHECK(apiprof_hist_bucket_lz(&tab, UINT64_MAX) == APIPROF_HIST_BUCKETS - 1);
}

/* Many producers: every record is either published intact or counted as
 * dropped, and whatever a reader finds afterwards is intact. */
#define PRODUCERS    4
#define PER_PRODUCER 50000

static struct apiprof_shm_header *shared;
static int written[PRODUCERS];

static void *producer(void *arg)
{
	int id = (int)(long)arg;

	for (uint64_t i = 0; i < PER_PRODUCER; i++) {
		struct apiprof_shm_rec r = rec((uint32_t)id + 1, (uint64_t)id * 1000000 + i);

		written[id] += apiprof_ring_write(shared, &r) == 0;
	}
	return NULL;
}

static void test_many_producers(void)
{
	pthread_t t[PRODUCERS];
	uint64_t total = 0, intact = 0;
	struct apiprof_shm_rec got;

	shared = make_segment(8, 8);
	for (long i = 0; i < PRODUCERS; i++)
		pthread_create(&t[i], NULL, producer, (void *)i);
	for (int i = 0; i < PRODUCERS; i++) {
		pthread_join(t[i], NULL);
		total += (uint64_t)written[i];
	}
	CHECK(shared->head == (uint64_t)PRODUCERS * PER_PRODUCER);
	CHECK(total + shared->dropped == shared->head);
	for (uint64_t pos = shared->head - 256; pos < shared->head; pos++) {
		if (!read_pos(shared, pos, &got))
			continue;
		intact++;
		CHECK(got.u.times.ticks == got.u.times.calls * 3 &&
		      got.h.tid == got.u.times.calls / 1000000 + 1);
	}
	CHECK(intact > 0);
	free(shared);
}

int main(void)
{
	test_layout();
	test_publish_and_wrap();
	test_drop_busy_slot();
	test_funcs();
	test_hist_bucket();
	test_many_producers();
	if (failures)
		fprintf(stderr, "test_ring: %d checks failed\n", failures);
	return failures ? 1 : 0;
}
