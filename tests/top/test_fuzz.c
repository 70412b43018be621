/* SPDX-License-Identifier: MIT */
/*
 * test_fuzz.c - the reader against hostile segments: deterministic
 * corruptions of a valid image (random bytes, every interesting truncation,
 * extreme header fields, bad function indices), fully random files, and a
 * file that shrinks under the mapping.  The reader must return an error or
 * a sane model, and never crash.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "top_feed.h"
#include "tseg.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct tseg base;
static unsigned char *image;
static unsigned long invalid, valid;

/* Writes len bytes of img as the segment file, then reads it twice. */
static void feed(const unsigned char *img, size_t len)
{
	struct top_seg s;
	struct top_proc p;
	char err[TOP_ERR_LEN];
	int rc;

	CHECK(ftruncate(base.fd, 0) == 0);
	CHECK(pwrite(base.fd, img, len, 0) == (ssize_t)len);
	top_proc_init(&p, getpid(), 0);
	rc = top_seg_open(&s, base.path, err, sizeof(err));
	for (int i = 0; rc == 0 && i < 2; i++)
		rc = top_seg_read(&s, &p, err, sizeof(err));
	if (rc == 0) {
		const struct apiprof_shm_header *h = &s.hdr;

		CHECK(p.nfuncs <= h->func_cap && p.ncells <= TOP_MAX_CELLS);
		for (size_t i = 0; i < p.ncells; i++)
			CHECK(p.cells[i].func < p.nfuncs);
		for (uint32_t i = 0; i < p.nfuncs; i++)
			CHECK(strlen(p.funcs[i].name) < TOP_NAME_LEN);
		valid++;
	} else {
		invalid++;
	}
	top_seg_close(&s);
	top_proc_free(&p);
}

static void set_field(unsigned char *img, size_t off, size_t width, uint64_t v)
{
	memcpy(img + off, &v, width); /* little-endian */
}

#define FIELD(f) offsetof(struct apiprof_shm_header, f), sizeof(((struct apiprof_shm_header *)0)->f)

static void extreme_fields(void)
{
	static const uint64_t vals[] = {
	        0,          1,  7,  8,  4095, 4096, 0x7fffffff, 0xffffffff, 0xfffffffffffff000ull,
	        UINT64_MAX, 25, 63, 255};
	struct {
		size_t off, width;
	} fields[] = {{FIELD(version)},   {FIELD(header_size)}, {FIELD(func_off)},
	              {FIELD(func_size)}, {FIELD(func_cap)},    {FIELD(func_count)},
	              {FIELD(ring_off)},  {FIELD(rec_size)},    {FIELD(ring_order)},
	              {FIELD(tick_hz)},   {FIELD(head)},        {FIELD(pid)},
	              {FIELD(magic)},     {FIELD(state)}};
	unsigned char *img = malloc(base.size);

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
			memcpy(img, image, base.size);
			set_field(img, fields[f].off, fields[f].width, vals[v]);
			feed(img, base.size);
		}
	free(img);
}

static void truncations(void)
{
	const struct apiprof_shm_header *h = (const void *)image;
	size_t cuts[] = {0,
	                 1,
	                 8,
	                 sizeof(*h) - 1,
	                 sizeof(*h),
	                 h->header_size - 1,
	                 h->func_off,
	                 h->func_off + h->func_size - 1,
	                 h->ring_off - 1,
	                 h->ring_off,
	                 h->ring_off + h->rec_size,
	                 base.size - 1};

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		feed(image, cuts[i]);
	for (size_t cut = 0; cut < base.size; cut += 509)
		feed(image, cut);
}

static void random_flips(void)
{
	unsigned char *img = malloc(base.size);

	for (int iter = 0; iter < 3000; iter++) {
		int flips = 1 + (int)(next() % 8);

		memcpy(img, image, base.size);
		for (int k = 0; k < flips; k++) {
			/* Mostly the header and the first records, where it matters. */
			size_t lim = next() % 2 ? sizeof(struct apiprof_shm_header) : base.size;

			img[next() % lim] = (unsigned char)next();
		}
		feed(img, base.size);
	}
	free(img);
}

static void random_files(void)
{
	unsigned char *img = malloc(base.size);

	for (int iter = 0; iter < 200; iter++) {
		for (size_t i = 0; i < base.size; i++)
			img[i] = (unsigned char)next();
		if (iter % 2) /* plausible magic and version, the rest random */
			memcpy(img, image, 16);
		feed(img, (size_t)(next() % base.size));
	}
	free(img);
}

static void bad_records(void)
{
	unsigned char *img = malloc(base.size);
	const struct apiprof_shm_header *h = (const void *)image;

	for (uint64_t pos = 0; pos < 8; pos++) {
		static const uint32_t funcs[] = {2, 3, 4, 1000, UINT32_MAX};

		for (size_t k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++) {
			struct apiprof_shm_rec *r;

			memcpy(img, image, base.size);
			r = (void *)(img + h->ring_off + pos * h->rec_size);
			r->h.func = funcs[k];
			feed(img, base.size);
		}
	}
	free(img);
}

/* --- shrinking ------------------------------------------------------------ */

static void shrink_deterministic(void)
{
	struct tseg t;
	struct top_seg s;
	struct top_proc p;
	char err[TOP_ERR_LEN], buf[64];

	tseg_create(&t, 4, 6);
	tseg_func(&t, 0, "a", "f");
	tseg_write(&t, 1, 0, 1, 1, 1);
	top_proc_init(&p, getpid(), 0);
	CHECK(top_seg_open(&s, t.path, err, sizeof(err)) == 0);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == 0);
	CHECK(ftruncate(t.fd, 4096) == 0);
	/* Touching the cut-off pages raises SIGBUS: the guard survives it. */
	CHECK(top_shm_copy_guarded(buf, s.map + s.map_size - 64, 64) == -1);
	CHECK(top_shm_copy_guarded(buf, s.map, 64) == 0);
	CHECK(top_seg_read(&s, &p, err, sizeof(err)) == TOP_SEG_INVALID);
	CHECK(strstr(err, "shrank"));
	top_seg_close(&s);
	top_proc_free(&p);
	tseg_destroy(&t);
}

struct shrinker {
	int fd;
	size_t size;
	volatile int stop;
};

static void *shrink_loop(void *arg)
{
	struct shrinker *k = arg;

	while (!k->stop) {
		if (ftruncate(k->fd, 4096) || ftruncate(k->fd, (off_t)k->size))
			break;
	}
	return NULL;
}

/* The file shrinks and grows again while the reader reads: every read
 * either succeeds or reports the shrink; the process survives. */
static void shrink_concurrent(void)
{
	struct tseg t;
	struct shrinker k;
	pthread_t th;
	int outcomes[2] = {0, 0};

	tseg_create(&t, 4, 12);
	tseg_func(&t, 0, "a", "f");
	k.fd = t.fd;
	k.size = t.size;
	k.stop = 0;
	CHECK(pthread_create(&th, NULL, shrink_loop, &k) == 0);
	for (int i = 0; i < 2000; i++) {
		struct top_seg s;
		struct top_proc p;
		char err[TOP_ERR_LEN];
		int rc;

		top_proc_init(&p, getpid(), 0);
		rc = top_seg_open(&s, t.path, err, sizeof(err));
		if (rc == 0)
			rc = top_seg_read(&s, &p, err, sizeof(err));
		outcomes[rc == 0]++;
		top_seg_close(&s);
		top_proc_free(&p);
	}
	k.stop = 1;
	pthread_join(th, NULL);
	printf("shrink: %d reads ok, %d refused\n", outcomes[1], outcomes[0]);
	tseg_destroy(&t);
}

int main(void)
{
	tseg_create(&base, 4, 3);
	tseg_func(&base, 0, "libc", "malloc");
	tseg_func(&base, 1, "libc", "free");
	for (uint64_t i = 0; i < 11; i++)
		tseg_write(&base, (uint32_t)(1 + i % 3), (uint32_t)(i % 2), i + 1, i * 7, i + 1);
	image = malloc(base.size);
	memcpy(image, base.mem, base.size);
	munmap(base.mem, base.size);

	feed(image, base.size);
	CHECK(valid == 1);
	truncations();
	extreme_fields();
	bad_records();
	random_flips();
	random_files();
	printf("fuzz: %lu valid, %lu refused\n", valid, invalid);
	CHECK(invalid > 0 && valid > 1);
	shrink_deterministic();
	shrink_concurrent();
	free(image);
	close(base.fd);
	unlink(base.path);
	rmdir(base.dir);
	return 0;
}
