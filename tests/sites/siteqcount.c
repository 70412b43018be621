/* SPDX-License-Identifier: MIT */
/*
 * siteqcount - the records a live process's flusher writes, counted by
 * kind and flush, read from its ring (the reader is apiprof-top's own,
 * top_shm.h, which also keeps the flusher flushing).
 *
 *   siteqcount PID FLUSHES
 *
 * Reads the segment of PID until every thread with records has had
 * FLUSHES snapshots (thread_seq), then prints, for each snapshot number
 * still whole in the ring, the records of all threads:
 *   flush SEQ times N sites N siteq N
 * and then the threads with records, and those with an APIPROF_REC_SITEQ
 * record in the ring:
 *   threads N siteq N
 * Exit 0, or 1 when it could not read the segment, or the snapshots did
 * not come.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_ringbuf.h"
#include "seg_attach.h"

#define MAX_TIDS  256
#define MAX_SEQ   4096
#define MAX_READS 2000 /* reads, 5 ms and half a flush interval apart */

struct count {
	bool wrapped; /* the ring has lost its first records */
	uint32_t tid[MAX_TIDS], nt;
	uint32_t low[MAX_TIDS]; /* each thread's oldest snapshot in the ring */
	uint32_t high[MAX_TIDS];
	bool q[MAX_TIDS];
	uint32_t times[MAX_SEQ], sites[MAX_SEQ], siteq[MAX_SEQ];
};

static uint32_t tid_slot(struct count *c, uint32_t tid)
{
	for (uint32_t i = 0; i < c->nt; i++)
		if (c->tid[i] == tid)
			return i;
	if (c->nt == MAX_TIDS)
		return MAX_TIDS;
	c->tid[c->nt] = tid;
	c->low[c->nt] = UINT32_MAX;
	return c->nt++;
}

/* The complete records of the ring as the header read last places it. */
static void count(const struct top_seg *s, struct count *c)
{
	struct apiprof_ring_view v = {s->map + s->hdr.ring_off, s->hdr.ring_order, s->hdr.rec_size};
	uint64_t cap = 1ull << s->hdr.ring_order, head = s->hdr.head;

	memset(c, 0, sizeof(*c));
	c->wrapped = head > cap;
	for (uint64_t pos = head > cap ? head - cap : 0; pos < head; pos++) {
		struct apiprof_shm_rec r;
		uint32_t t;

		if (!apiprof_ring_read(&v, pos, &r) || r.h.tid == 0 || r.h.thread_seq >= MAX_SEQ ||
		    r.h.kind == APIPROF_REC_KIND_NODES || (t = tid_slot(c, r.h.tid)) == MAX_TIDS)
			continue;
		uint32_t seq = r.h.thread_seq;
		c->low[t] = seq < c->low[t] ? seq : c->low[t];
		c->high[t] = seq > c->high[t] ? seq : c->high[t];
		c->q[t] |= r.h.kind == APIPROF_REC_KIND_SITEQ;
		if (r.h.kind == APIPROF_REC_KIND_SITEQ)
			c->siteq[seq]++;
		else if (r.h.kind == APIPROF_REC_KIND_SITES)
			c->sites[seq]++;
		else if (r.h.kind == APIPROF_REC_KIND_TIMES)
			c->times[seq]++;
	}
}

/* The snapshots every thread has, whole: from each one's oldest in the
 * ring (the one after, once the ring has lost records), up to the
 * fewest. */
static void range(const struct count *c, uint32_t *lo, uint32_t *hi)
{
	*lo = 0;
	*hi = UINT32_MAX;
	for (uint32_t i = 0; i < c->nt; i++) {
		uint32_t first = c->low[i] + (c->wrapped ? 1 : 0);

		*lo = first > *lo ? first : *lo;
		*hi = c->high[i] < *hi ? c->high[i] : *hi;
	}
	if (c->nt == 0)
		*hi = 0;
}

int main(int argc, char **argv)
{
	struct top_seg s;
	struct top_proc p;
	static struct count c;
	char err[TOP_ERR_LEN];
	uint32_t lo = 0, hi = 0;

	if (argc != 3)
		return 2;
	uint32_t want = (uint32_t)atoi(argv[2]);
	bool open = false, done = false;
	top_seg_init(&s);
	for (int i = 0; i < MAX_READS && !done; i++) {
		if (!open)
			open = seg_attach(atoi(argv[1]), &s, &p, err, sizeof(err)) >= 0;
		else if (top_seg_read(&s, &p, err, sizeof(err)) < 0)
			return 1;
		if (open) {
			count(&s, &c);
			range(&c, &lo, &hi);
			done = c.nt && hi >= want && hi >= lo;
		}
		struct timespec gap = {0, 5000000L + (open ? (long)p.interval_ms * 500000L : 0)};
		if (!done)
			nanosleep(&gap, NULL); /* poll spacing, bounded by MAX_READS */
	}
	if (!done)
		return 1;
	uint32_t q = 0;
	for (uint32_t i = 0; i < c.nt; i++)
		q += c.q[i];
	for (uint32_t k = lo; k <= hi; k++)
		printf("flush %u times %u sites %u siteq %u\n", k, c.times[k], c.sites[k],
		       c.siteq[k]);
	printf("threads %u siteq %u\n", c.nt, q);
	top_seg_close(&s);
	top_proc_free(&p);
	return 0;
}
