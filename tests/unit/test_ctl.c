/* SPDX-License-Identifier: MIT */
/*
 * test_ctl - the control block's two halves against each other
 * (common/ctl/apiprof_ctl.h), on a segment header in a memfd: a reader's
 * writes (pwrite) seen through a read-only mapping, the runtime's through
 * a writable one, as in a real segment.  A posted WATCH is taken and
 * answered; a command the runtime does not know is taken as none; the
 * answer never goes back; a waiting flusher is woken by a request, and a
 * waiting reader by the answer (threads joined: no sleeping).
 */
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apiprof_ctl.h"
#include "check.h"

struct seg {
	int fd;
	struct apiprof_shm_header *rt;       /* the runtime's mapping */
	const struct apiprof_shm_header *rd; /* the reader's, read-only */
};

static int seg_open(struct seg *s)
{
	s->fd = memfd_create("test_ctl", 0);
	if (s->fd < 0 || ftruncate(s->fd, APIPROF_SHM_HEADER_SIZE) != 0)
		return -1;
	s->rt = mmap(NULL, APIPROF_SHM_HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	s->rd = mmap(NULL, APIPROF_SHM_HEADER_SIZE, PROT_READ, MAP_SHARED, s->fd, 0);
	return s->rt == MAP_FAILED || s->rd == MAP_FAILED ? -1 : 0;
}

static void test_watch_taken_and_answered(struct seg *s)
{
	uint32_t req = 0;

	CHECK(!apiprof_ctl_watched(&s->rt->ctl, 1000));
	CHECK(apiprof_ctl_watch(s->fd, 5000) == 0);
	CHECK(apiprof_ctl_watched(&s->rt->ctl, 1000));
	CHECK(!apiprof_ctl_watched(&s->rt->ctl, 5000));

	uint32_t before = apiprof_ctl_req(&s->rt->ctl);
	CHECK(apiprof_ctl_post(s->fd, &s->rd->ctl, APIPROF_CTL_WATCH, &req) == 0);
	CHECK(req == before + 1 && apiprof_ctl_req(&s->rt->ctl) == req);
	CHECK(apiprof_ctl_cmd(&s->rt->ctl) == APIPROF_CTL_WATCH);
	CHECK(!apiprof_ctl_reached(apiprof_ctl_done(&s->rd->ctl), req));
	apiprof_ctl_answer(&s->rt->ctl, req);
	CHECK(apiprof_ctl_reached(apiprof_ctl_done(&s->rd->ctl), req));
	/* an older answer (the end of the image's, late) does not go back */
	apiprof_ctl_answer(&s->rt->ctl, req - 1);
	CHECK(apiprof_ctl_done(&s->rd->ctl) == req);
}

/* What a hostile writer of the block may put in cmd asks for nothing. */
static void test_unknown_command(struct seg *s)
{
	static const uint32_t bad[] = {APIPROF_CTL_NONE, 2, 0xdeadbeef, UINT32_MAX};
	off_t at = (off_t)(offsetof(struct apiprof_shm_header, ctl) +
	                   offsetof(struct apiprof_shm_ctl, cmd));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(pwrite(s->fd, &bad[i], sizeof(bad[i]), at) == sizeof(bad[i]));
		CHECK(apiprof_ctl_cmd(&s->rt->ctl) == APIPROF_CTL_NONE);
	}
}

struct waiter {
	struct seg *s;
	uint32_t seen; /* req as the flusher read it, before the reader posts */
};

static void *flusher_waits(void *arg)
{
	struct waiter *w = arg;

	apiprof_ctl_idle_enter(&w->s->rt->ctl);
	apiprof_ctl_wait(&w->s->rt->ctl, w->seen, NULL);
	apiprof_ctl_idle_leave(&w->s->rt->ctl);
	return NULL;
}

/* A flusher waiting (idle, no timeout) returns once a reader posts,
 * whether the post comes before its wait or after. */
static void test_post_wakes_flusher(struct seg *s)
{
	struct waiter w = {s, apiprof_ctl_req(&s->rt->ctl)};
	uint32_t req = 0;
	pthread_t t;

	CHECK(pthread_create(&t, NULL, flusher_waits, &w) == 0);
	CHECK(apiprof_ctl_post(s->fd, &s->rd->ctl, APIPROF_CTL_WATCH, &req) == 0);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(req == w.seen + 1 && !apiprof_ctl_idle(&s->rd->ctl));
	apiprof_ctl_kick(&s->rt->ctl); /* the runtime's own wake moves req too */
	CHECK(apiprof_ctl_req(&s->rt->ctl) == req + 1);
}

struct answer {
	struct seg *s;
	uint32_t req;
};

static void *runtime_answers(void *arg)
{
	struct answer *a = arg;

	apiprof_ctl_answer(&a->s->rt->ctl, a->req);
	return NULL;
}

/* A reader waiting for its answer is woken by it. */
static void test_answer_wakes_reader(struct seg *s)
{
	struct answer a = {s, 0};
	pthread_t t;

	CHECK(apiprof_ctl_post(s->fd, &s->rd->ctl, APIPROF_CTL_WATCH, &a.req) == 0);
	CHECK(pthread_create(&t, NULL, runtime_answers, &a) == 0);
	for (uint32_t cur; !apiprof_ctl_reached(cur = apiprof_ctl_done(&s->rd->ctl), a.req);)
		apiprof_ctl_await(&s->rd->ctl, cur, NULL);
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(apiprof_ctl_done(&s->rd->ctl) == a.req);
}

static const struct apiprof_ctl_request mark_req = {0, APIPROF_CTL_MARK, 7, "warm-up done"};

/* Taken once: neither the runtime's own wake nor a reader's WATCH
 * presents it again, and its answer names it. */
static void test_steer_taken_once(struct seg *s)
{
	struct apiprof_ctl_request r;
	struct apiprof_ctl_reply a = {0, APIPROF_CTL_OK, 3}, got;
	uint32_t seq = 0, req = 0;

	CHECK(!apiprof_ctl_take(&s->rt->ctl, &r) && !apiprof_ctl_asked(&s->rt->ctl));
	CHECK(apiprof_ctl_ask(s->fd, &s->rd->ctl, &mark_req, &seq) == 0 && seq != 0);
	CHECK(apiprof_ctl_asked(&s->rt->ctl));
	CHECK(!apiprof_ctl_reply_of(&s->rd->ctl, seq, &got));
	CHECK(apiprof_ctl_take(&s->rt->ctl, &r));
	CHECK(r.seq == seq && r.cmd == APIPROF_CTL_MARK && r.arg == 7 &&
	      strcmp(r.text, "warm-up done") == 0);
	apiprof_ctl_reply(&s->rt->ctl, &r, &a);
	CHECK(apiprof_ctl_reply_of(&s->rd->ctl, seq, &got));
	CHECK(got.cmd == APIPROF_CTL_MARK && got.result == APIPROF_CTL_OK && got.n == 3);
	apiprof_ctl_kick(&s->rt->ctl);
	CHECK(apiprof_ctl_post(s->fd, &s->rd->ctl, APIPROF_CTL_WATCH, &req) == 0);
	CHECK(!apiprof_ctl_take(&s->rt->ctl, &r) && !apiprof_ctl_asked(&s->rt->ctl));
	/* the next request has another number */
	uint32_t next = 0;
	CHECK(apiprof_ctl_ask(s->fd, &s->rd->ctl, &mark_req, &next) == 0 && next != seq);
	CHECK(apiprof_ctl_take(&s->rt->ctl, &r) && r.seq == next);
	apiprof_ctl_reply(&s->rt->ctl, &r, &a);
}

/* A hostile body: a command not known is none (the runtime refuses it),
 * a text without a NUL is cut at APIPROF_CTL_TEXT_MAX - 1. */
static void test_steer_hostile_body(struct seg *s)
{
	static const uint32_t bad[] = {APIPROF_CTL_NONE, APIPROF_CTL_WATCH, 6, 0xdeadbeef,
	                               UINT32_MAX};
	struct apiprof_ctl_request r;
	struct apiprof_ctl_reply a = {0, APIPROF_CTL_REFUSED, 0};
	char text[APIPROF_CTL_TEXT_MAX];
	off_t at = (off_t)(offsetof(struct apiprof_shm_header, ctl) +
	                   offsetof(struct apiprof_shm_ctl, text));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct apiprof_ctl_request q = {0, bad[i], 0, ""};
		uint32_t seq;

		CHECK(apiprof_ctl_ask(s->fd, &s->rd->ctl, &q, &seq) == 0);
		memset(text, 'x', sizeof(text));
		CHECK(pwrite(s->fd, text, sizeof(text), at) == (ssize_t)sizeof(text));
		CHECK(apiprof_ctl_take(&s->rt->ctl, &r) && r.seq == seq);
		CHECK(r.cmd == APIPROF_CTL_NONE);
		CHECK(strlen(r.text) == APIPROF_CTL_TEXT_MAX - 1);
		apiprof_ctl_reply(&s->rt->ctl, &r, &a);
		struct apiprof_ctl_reply got;
		CHECK(apiprof_ctl_reply_of(&s->rd->ctl, seq, &got) && got.cmd == APIPROF_CTL_NONE &&
		      got.result == APIPROF_CTL_REFUSED);
	}
}

struct replier {
	struct seg *s;
};

static void *runtime_replies(void *arg)
{
	struct replier *p = arg;
	struct apiprof_ctl_request r;
	struct apiprof_ctl_reply a = {0, APIPROF_CTL_OK, 1};

	if (apiprof_ctl_take(&p->s->rt->ctl, &r))
		apiprof_ctl_reply(&p->s->rt->ctl, &r, &a);
	return NULL;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A requester waiting for its answer is woken by it; with no answer it
 * gives up at its deadline. */
static void test_steer_await(struct seg *s)
{
	struct replier p = {s};
	struct apiprof_ctl_reply got;
	uint32_t seq;
	pthread_t t;

	CHECK(apiprof_ctl_ask(s->fd, &s->rd->ctl, &mark_req, &seq) == 0);
	CHECK(pthread_create(&t, NULL, runtime_replies, &p) == 0);
	CHECK(apiprof_ctl_await_reply(&s->rd->ctl, seq, mono_ns() + 60000000000ull, &got));
	CHECK(pthread_join(t, NULL) == 0);
	CHECK(got.cmd == APIPROF_CTL_MARK && got.n == 1);
	CHECK(apiprof_ctl_ask(s->fd, &s->rd->ctl, &mark_req, &seq) == 0);
	CHECK(!apiprof_ctl_await_reply(&s->rd->ctl, seq, mono_ns() + 1000000u, &got));
}

/* One requester at a time: another open of the file cannot lock. */
static void test_steer_lock(struct seg *s)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", s->fd);
	int other = open(path, O_RDWR);
	CHECK(other >= 0);
	CHECK(apiprof_ctl_lock(s->fd) == 0);
	CHECK(apiprof_ctl_lock(other) == -1 && errno == EAGAIN);
	apiprof_ctl_unlock(s->fd);
	CHECK(apiprof_ctl_lock(other) == 0);
	close(other);
}

int main(void)
{
	struct seg s;

	if (seg_open(&s) != 0) {
		perror("test_ctl: memfd segment");
		return 1;
	}
	test_watch_taken_and_answered(&s);
	test_unknown_command(&s);
	test_post_wakes_flusher(&s);
	test_answer_wakes_reader(&s);
	test_steer_taken_once(&s);
	test_steer_hostile_body(&s);
	test_steer_await(&s);
	test_steer_lock(&s);
	return failures != 0;
}
