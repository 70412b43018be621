/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl.c - the control block's protocol (apiprof_ctl.h): the
 * reader's half, then the runtime's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <string.h>
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

/* --- steering: the requester's half ------------------------------------ */

const char *apiprof_ctl_result_text(int result)
{
	switch (result) {
	case APIPROF_CTL_OK:
		return "done";
	case APIPROF_CTL_REFUSED:
		return "refused: not a command this process knows";
	case APIPROF_CTL_BADMODE:
		return "refused: a mode this process cannot take";
	case APIPROF_CTL_NOAPI:
		return "refused: the process has no api of that name";
	case APIPROF_CTL_NOFILE:
		return "failed: no APIPROF_OUTPUT, or the dump could not be written (the process's "
		       "stderr says why)";
	}
	return "an answer this apiprof does not know";
}

const char *apiprof_ctl_cmd_name(uint32_t cmd)
{
	static const char *const names[] = {
	        [APIPROF_CTL_WATCH] = "watch", [APIPROF_CTL_MODE] = "mode",
	        [APIPROF_CTL_RESET] = "reset", [APIPROF_CTL_MARK] = "mark",
	        [APIPROF_CTL_DUMP] = "dump",
	};
	return cmd < sizeof(names) / sizeof(names[0]) && names[cmd] ? names[cmd] : "?";
}

/* One byte of the request: the lock's range. */
static int lock_op(int fd, short type)
{
	struct flock l = {
	        .l_type = type, .l_whence = SEEK_SET, .l_start = CTL_AT(ask_seq), .l_len = 1};

	return fcntl(fd, F_OFD_SETLK, &l);
}

int apiprof_ctl_lock(int fd)
{
	if (lock_op(fd, F_WRLCK) == 0)
		return 0;
	if (errno == EACCES)
		errno = EAGAIN;
	return -1;
}

void apiprof_ctl_unlock(int fd)
{
	lock_op(fd, F_UNLCK);
}

/* A number neither the last request's nor the last answer's, never 0. */
static uint32_t next_seq(const struct apiprof_shm_ctl *c)
{
	uint32_t a = apiprof_read_once(&c->ask_seq), b = apiprof_read_once(&c->ans_seq);
	uint32_t n = ((int32_t)(a - b) > 0 ? a : b) + 1;

	while (n == 0 || n == a || n == b)
		n++;
	return n;
}

/* The body, then its number, then the wake: a runtime that sees the
 * number reads the body after it (the writes are system calls). */
int apiprof_ctl_ask(int fd, const struct apiprof_shm_ctl *c, const struct apiprof_ctl_request *r,
                    uint32_t *seq)
{
	char text[APIPROF_CTL_TEXT_MAX] = {0};
	uint32_t n = next_seq(c), req = apiprof_read_once(&c->req) + 1;

	memcpy(text, r->text, strnlen(r->text, sizeof(text) - 1));
	if (put32(fd, r->cmd, CTL_AT(ask_cmd)) != 0 ||
	    pwrite(fd, &r->arg, sizeof(r->arg), CTL_AT(arg)) != sizeof(r->arg) ||
	    pwrite(fd, text, sizeof(text), CTL_AT(text)) != sizeof(text) ||
	    put32(fd, n, CTL_AT(ask_seq)) != 0 || put32(fd, req, CTL_AT(req)) != 0)
		return -1;
	futex(&c->req, FUTEX_WAKE, INT_MAX, NULL);
	*seq = n;
	return 0;
}

bool apiprof_ctl_reply_of(const struct apiprof_shm_ctl *c, uint32_t seq,
                          struct apiprof_ctl_reply *a)
{
	if (apiprof_load_acquire(&c->ans_seq) != seq)
		return false;
	a->cmd = apiprof_read_once(&c->ans_cmd);
	a->result = apiprof_read_once(&c->ans_result);
	a->n = apiprof_read_once(&c->ans_n);
	/* still this answer: not one of a later request, half read */
	return apiprof_load_acquire(&c->ans_seq) == seq;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

bool apiprof_ctl_await_reply(const struct apiprof_shm_ctl *c, uint32_t seq, uint64_t deadline_ns,
                             struct apiprof_ctl_reply *a)
{
	for (;;) {
		uint32_t seen = apiprof_load_acquire(&c->ans_seq);

		if (seen == seq && apiprof_ctl_reply_of(c, seq, a))
			return true;
		uint64_t now = mono_ns();
		if (now >= deadline_ns)
			return false;
		uint64_t left = deadline_ns - now;
		struct timespec rel = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
		futex(&c->ans_seq, FUTEX_WAIT, seen, &rel);
	}
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

static uint32_t steer_cmd(uint32_t v)
{
	switch (v) {
	case APIPROF_CTL_MODE:
	case APIPROF_CTL_RESET:
	case APIPROF_CTL_MARK:
	case APIPROF_CTL_DUMP:
		return v;
	default:
		return APIPROF_CTL_NONE;
	}
}

bool apiprof_ctl_asked(const struct apiprof_shm_ctl *c)
{
	uint32_t seq = apiprof_load_seq_cst(&c->ask_seq);

	return seq != 0 && seq != apiprof_read_once(&c->ans_seq);
}

/* The body is read after its number and checked against it again after:
 * a body that changed meanwhile is taken as no command (refused). */
bool apiprof_ctl_take(const struct apiprof_shm_ctl *c, struct apiprof_ctl_request *r)
{
	uint32_t seq = apiprof_load_acquire(&c->ask_seq);

	if (seq == 0 || seq == apiprof_read_once(&c->ans_seq))
		return false;
	r->seq = seq;
	r->cmd = steer_cmd(apiprof_read_once(&c->ask_cmd));
	r->arg = apiprof_read_once(&c->arg);
	for (size_t i = 0; i < sizeof(r->text); i++)
		r->text[i] = apiprof_read_once(&c->text[i]);
	r->text[sizeof(r->text) - 1] = '\0';
	apiprof_fence_acquire();
	if (apiprof_read_once(&c->ask_seq) != seq)
		r->cmd = APIPROF_CTL_NONE;
	return true;
}

void apiprof_ctl_reply(struct apiprof_shm_ctl *c, const struct apiprof_ctl_request *r,
                       const struct apiprof_ctl_reply *a)
{
	apiprof_write_once(&c->ans_cmd, r->cmd);
	apiprof_write_once(&c->ans_result, a->result);
	apiprof_write_once(&c->ans_n, a->n);
	apiprof_store_release(&c->ans_seq, r->seq);
	futex(&c->ans_seq, FUTEX_WAKE, INT32_MAX, NULL);
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
