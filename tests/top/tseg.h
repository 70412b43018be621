/* SPDX-License-Identifier: MIT */
/*
 * tseg.h - synthetic segments for the reader's tests, written the way the
 * runtime lays them out, into a file the test maps read-write.
 */
#ifndef TSEG_H
#define TSEG_H

#include <stddef.h>
#include <stdint.h>

#include "apiprof_abi.h"
#include "apiprof_segname.h"

struct tseg {
	char dir[64];
	char path[160];
	char name[APIPROF_SEGNAME_MAX];
	int fd;
	unsigned char *mem;
	size_t size;
	struct apiprof_shm_header *h;
	struct apiprof_segid id; /* what the name says */
};

/* A test's failure: message with the line, then exit 1. */
#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			tfail(__FILE__, __LINE__, #c);                                             \
	} while (0)
void tfail(const char *file, int line, const char *what) __attribute__((noreturn));

void tseg_create(struct tseg *t, uint32_t func_cap, uint32_t ring_order);
void tseg_create_named(struct tseg *t, uint32_t func_cap, uint32_t ring_order, int pid,
                       uint64_t starttime);
void tseg_destroy(struct tseg *t);
void tseg_func(struct tseg *t, uint32_t idx, const char *api, const char *name);
struct apiprof_shm_rec *tseg_slot(struct tseg *t, uint64_t pos);
uint64_t tseg_write(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick, uint64_t calls,
                    uint64_t ticks_each);
uint64_t tseg_write_nodes(struct tseg *t, uint32_t tid, uint64_t tick,
                          const struct apiprof_shm_node *node, uint32_t n);
uint64_t tseg_write_sites(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                          uint64_t calls, const struct apiprof_shm_site *site);
uint64_t tseg_write_siteq(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                          uint64_t calls, const struct apiprof_shm_siteq *q);
uint64_t tseg_write_siteq_timed(struct tseg *t, uint32_t tid, uint32_t func, uint64_t tick,
                                uint64_t calls, uint64_t timed, const struct apiprof_shm_siteq *q);
uint64_t tseg_self_starttime(void);

#endif /* TSEG_H */
