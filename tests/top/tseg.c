/* SPDX-License-Identifier: MIT */
/* tseg.c - synthetic segments (see tseg.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_ringbuf.h"
#include "tseg.h"

void tfail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	exit(1);
}

uint64_t tseg_self_starttime(void)
{
	uint64_t st;

	return apiprof_proc_starttime("/proc", getpid(), &st) == 0 ? st : 0;
}

static void layout(struct tseg *t, uint32_t func_cap, uint32_t ring_order, int pid,
                   uint64_t starttime)
{
	struct apiprof_shm_header *h = t->h;
	struct apiprof_ring_geom g = {func_cap, ring_order};

	h->version = APIPROF_SHM_VERSION;
	h->header_size = APIPROF_SHM_HEADER_SIZE;
	h->segment_size = t->size;
	h->pid = pid;
	h->uid = (uint32_t)getuid();
	h->starttime = starttime;
	h->start_realtime_ns = 1000000000ull;
	memcpy(h->comm, "synthetic", 10);
	h->state = APIPROF_PROC_RUNNING;
	h->clock = APIPROF_CLOCK_MONOTONIC;
	h->interval_ms = 1000;
	h->tick_hz = 1000000000ull;
	h->func_off = APIPROF_SHM_HEADER_SIZE;
	h->func_size = sizeof(struct apiprof_shm_func);
	h->func_cap = func_cap;
	h->ring_off = apiprof_ring_offset(&g);
	h->rec_size = sizeof(struct apiprof_shm_rec);
	h->ring_order = ring_order;
	h->magic = APIPROF_SHM_MAGIC;
}

/* The runtime's name: our pid namespace, a nonce of our own. */
static void name_it(struct tseg *t, int pid, uint64_t starttime)
{
	static uint64_t nonce = 0x5e6d000000000000ull;
	struct stat st;

	t->id.uid = (uint32_t)getuid();
	t->id.pid = pid;
	t->id.starttime = starttime;
	t->id.pidns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
	t->id.nonce = ++nonce;
	CHECK(apiprof_segname_format(t->name, sizeof(t->name), &t->id) == 0);
}

/* A segment file named as the runtime would name it, in a private
 * temporary directory, mapped read-write. */
void tseg_create_named(struct tseg *t, uint32_t func_cap, uint32_t ring_order, int pid,
                       uint64_t starttime)
{
	struct apiprof_ring_geom g = {func_cap, ring_order};

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/apiprof-top-test-XXXXXX");
	CHECK(mkdtemp(t->dir));
	name_it(t, pid, starttime);
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, t->name);
	t->size = apiprof_ring_size(&g);
	t->fd = open(t->path, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(t->fd >= 0);
	CHECK(ftruncate(t->fd, (off_t)t->size) == 0);
	t->mem = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	CHECK(t->mem != MAP_FAILED);
	t->h = (struct apiprof_shm_header *)t->mem;
	layout(t, func_cap, ring_order, pid, starttime);
	t->h->pidns = t->id.pidns;
	t->h->nonce = t->id.nonce;
}

void tseg_create(struct tseg *t, uint32_t func_cap, uint32_t ring_order)
{
	tseg_create_named(t, func_cap, ring_order, getpid(), tseg_self_starttime());
}

void tseg_destroy(struct tseg *t)
{
	munmap(t->mem, t->size);
	close(t->fd);
	unlink(t->path);
	rmdir(t->dir);
}

void tseg_func(struct tseg *t, uint32_t idx, const char *api, const char *name)
{
	struct apiprof_shm_func *f = (struct apiprof_shm_func *)(t->mem + t->h->func_off) + idx;

	/* Like the runtime's NUL padding, but a full-length name is left
	 * unterminated on purpose: the reader must cope. */
	memset(f, 0, sizeof(*f));
	memcpy(f->api, api, strlen(api) < sizeof(f->api) ? strlen(api) : sizeof(f->api));
	memcpy(f->name, name, strlen(name) < sizeof(f->name) ? strlen(name) : sizeof(f->name));
	if (idx + 1 > t->h->func_count)
		t->h->func_count = idx + 1;
}

struct apiprof_shm_rec *tseg_slot(struct tseg *t, uint64_t pos)
{
	uint64_t mask = ((uint64_t)1 << t->h->ring_order) - 1;

	return (struct apiprof_shm_rec *)(t->mem + t->h->ring_off + (pos & mask) * t->h->rec_size);
}

/* Takes the next position for a record of kind k of (tid, func) at
 * tick, its head filled and its payload zero; the caller fills the
 * payload and publishes it (publish). */
static struct apiprof_shm_rec *begin(struct tseg *t, uint64_t *pos, uint32_t tid, uint32_t func,
                                     enum apiprof_rec_kind k)
{
	struct apiprof_shm_rec *r;

	*pos = t->h->head++;
	r = tseg_slot(t, *pos);
	memset(r, 0, sizeof(*r));
	r->h.tid = tid;
	r->h.func = func;
	snprintf(r->h.comm, sizeof(r->h.comm), "t%u", tid);
	apiprof_rec_set_kind(&r->h, k);
	return r;
}

static uint64_t publish(struct apiprof_shm_rec *r, uint64_t pos)
{
	apiprof_seq_publish(&r->h.seq, apiprof_seq_complete(pos));
	return pos;
}

/* Publishes a complete record of `calls` calls lasting ticks_each each;
 * returns its position. */
uint64_t tseg_write(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick, uint64_t calls,
                    uint64_t ticks_each)
{
	uint64_t pos;
	struct apiprof_shm_rec *r = begin(t, &pos, tid, func, APIPROF_REC_KIND_TIMES);
	struct apiprof_rec_times *x = &r->u.times;
	int b = 0;

	r->h.tick = tick;
	x->calls = x->timed = calls;
	x->ticks = calls * ticks_each;
	x->min_ticks = calls ? ticks_each : UINT64_MAX;
	x->max_ticks = calls ? ticks_each : 0;
	while (b < APIPROF_HIST_BUCKETS - 1 && ((ticks_each | 1) >> (b + 1)))
		b++;
	x->hist[b] = calls;
	return publish(r, pos);
}

/* An APIPROF_REC_NODES record of n nodes (at most APIPROF_NREC_NODES). */
uint64_t tseg_write_nodes(struct tseg *t, uint32_t tid, uint64_t tick,
                          const struct apiprof_shm_node *node, uint32_t n)
{
	uint64_t pos;
	struct apiprof_shm_rec *r = begin(t, &pos, tid, 0, APIPROF_REC_KIND_NODES);

	r->h.tick = tick;
	r->u.nodes.n = n;
	r->u.nodes.count = n;
	memcpy(r->u.nodes.node, node, n * sizeof(*node));
	return publish(r, pos);
}

/* An APIPROF_REC_SITES record: the 1 + APIPROF_SITES entries of site
 * (key 0: unused). */
uint64_t tseg_write_sites(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                          uint64_t calls, const struct apiprof_shm_site *site)
{
	uint64_t pos;
	struct apiprof_shm_rec *r = begin(t, &pos, tid, func, APIPROF_REC_KIND_SITES);

	r->h.tick = tick;
	r->u.sites.calls = calls;
	memcpy(r->u.sites.site, site, sizeof(r->u.sites.site));
	return publish(r, pos);
}

/* An APIPROF_REC_SITEQ record: the quantiles q of the 1 + APIPROF_SITES
 * entries. */
uint64_t tseg_write_siteq(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                          uint64_t calls, const struct apiprof_shm_siteq *q)
{
	return tseg_write_siteq_timed(t, tid, func, tick, calls, 0, q);
}

/* The same, saying that its sites had timed calls (0: not known). */
uint64_t tseg_write_siteq_timed(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                                uint64_t calls, uint64_t timed, const struct apiprof_shm_siteq *q)
{
	uint64_t pos;
	struct apiprof_shm_rec *r = begin(t, &pos, tid, func, APIPROF_REC_KIND_SITEQ);

	r->h.tick = tick;
	r->u.siteq.calls = calls;
	r->u.siteq.timed = timed;
	memcpy(r->u.siteq.site, q, sizeof(r->u.siteq.site));
	return publish(r, pos);
}
