/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl.c - the control block's protocol (apiprof_ctl.h): the
 * reader's half, then the runtime's.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_atomic.h"
#include "apiprof_ctl.h"

/* Not FUTEX_PRIVATE: the word is shared with other processes. */
static long futex(const uint32_t *word, int op, uint32_t val, const struct timespec *rel)
{
	return syscall(SYS_futex, word, op, val, rel, NULL, 0);
}

/* --- the reader's half -------------------------------------------------- */

/* Where a field of the block is in the segment's file. */
#define CTL_AT(field)                                                                              \
	((off_t)(offsetof(struct apiprof_shm_header, ctl) +                                        \
	         offsetof(struct apiprof_shm_ctl, field)))

static int put32(int fd, uint32_t v, off_t at)
{
	return pwrite(fd, &v, sizeof(v), at) == sizeof(v) ? 0 : -1;
}

int apiprof_ctl_watch(int fd, uint64_t until_ns)
{
	return pwrite(fd, &until_ns, sizeof(until_ns), CTL_AT(until_ns)) == sizeof(until_ns) ? 0
	                                                                                     : -1;
}

bool apiprof_ctl_idle(const struct apiprof_shm_ctl *c)
{
	return apiprof_load_seq_cst(&c->idle) != 0;
}

/* The command before the request's number: a flusher that sees the new
 * number reads the command after it (the writes are system calls). */
int apiprof_ctl_post(int fd, const struct apiprof_shm_ctl *c, enum apiprof_ctl_cmd cmd,
                     uint32_t *req)
{
	uint32_t n = apiprof_read_once(&c->req) + 1;

	if (put32(fd, (uint32_t)cmd, CTL_AT(cmd)) != 0 || put32(fd, n, CTL_AT(req)) != 0)
		return -1;
	futex(&c->req, FUTEX_WAKE, INT_MAX, NULL);
	*req = n;
	return 0;
}

uint32_t apiprof_ctl_done(const struct apiprof_shm_ctl *c)
{
	return apiprof_load_acquire(&c->done);
}

void apiprof_ctl_await(const struct apiprof_shm_ctl *c, uint32_t seen, const struct timespec *rel)
{
	futex(&c->done, FUTEX_WAIT, seen, rel);
}

/* --- the runtime's half ------------------------------------------------- */

bool apiprof_ctl_watched(const struct apiprof_shm_ctl *c, uint64_t now_ns)
{
	return now_ns < apiprof_read_once(&c->until_ns);
}

uint32_t apiprof_ctl_req(const struct apiprof_shm_ctl *c)
{
	return apiprof_load_seq_cst(&c->req);
}

enum apiprof_ctl_cmd apiprof_ctl_cmd(const struct apiprof_shm_ctl *c)
{
	switch (apiprof_read_once(&c->cmd)) {
	case APIPROF_CTL_WATCH:
		return APIPROF_CTL_WATCH;
	default:
		return APIPROF_CTL_NONE;
	}
}

void apiprof_ctl_idle_enter(struct apiprof_shm_ctl *c)
{
	apiprof_store_seq_cst(&c->idle, 1);
}

void apiprof_ctl_idle_leave(struct apiprof_shm_ctl *c)
{
	apiprof_write_once(&c->idle, 0);
}

void apiprof_ctl_wait(struct apiprof_shm_ctl *c, uint32_t seen, const struct timespec *rel)
{
	futex(&c->req, FUTEX_WAIT, seen, rel);
}

void apiprof_ctl_kick(struct apiprof_shm_ctl *c)
{
	apiprof_add_fetch_seq_cst(&c->req, 1);
	futex(&c->req, FUTEX_WAKE, INT32_MAX, NULL);
}

void apiprof_ctl_answer(struct apiprof_shm_ctl *c, uint32_t asked)
{
	uint32_t cur = apiprof_load_acquire(&c->done);

	do {
		if ((int32_t)(asked - cur) <= 0)
			return;
	} while (!apiprof_cas_seq_cst(&c->done, &cur, asked));
	futex(&c->done, FUTEX_WAKE, INT32_MAX, NULL);
}
