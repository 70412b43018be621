/* SPDX-License-Identifier: MIT */
/*
 * modeprog.c - a program that steers its own profiling (issue 37) through
 * libapiprof.so's apiprof_control_mode, found by a weak reference (run
 * without apiprof it is NULL, and the program says so).
 *
 *   modeprog phases N M K   ma_call and ma_put(100): N calls in full, M off, K in count
 *   modeprog phases-hold N M K  the same, then "ready" and waits for a byte on stdin
 *   modeprog timing N M K   ma_call and ma_put(100): N in full, M in sampled:4, K in full
 *   modeprog perapi N M K   ma_call and mb_call N each in full; then modeb off
 *                           for M each; then modeb count for K each
 *   modeprog blocked        a thread blocked inside ma_wait across a switch to
 *                           off and back; prints the call's least duration in ns
 *   modeprog flip T F       T threads call ma_call and mb_call while main flips
 *                           the mode F times at random; prints the calls made
 *                           while their api was counting
 *   modeprog start N        N calls of ma_call (the mode is APIPROF_MODE's)
 *   modeprog startab N      N calls each of ma_call and mb_call (APIPROF_MODE's)
 *   modeprog own P B N      the process in mode P, modeb in B, then N calls each
 *                           of ma_call and mb_call
 *   modeprog own2 P B N Q C M  own P B N, then the process in Q (which clears
 *                           modeb's own), modeb in C, and M calls each
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "modelib.h"

extern int apiprof_control_mode(const char *api, const char *mode) __attribute__((weak));

static void steer(const char *api, const char *mode)
{
	if (apiprof_control_mode == NULL) {
		fprintf(stderr, "modeprog: not run under apiprof\n");
		exit(2);
	}
	if (apiprof_control_mode(api, mode) != 0) {
		fprintf(stderr, "modeprog: apiprof_control_mode(%s, %s) failed\n",
		        api ? api : "(process)", mode);
		exit(1);
	}
}

static _Thread_local volatile unsigned sink; /* per thread: no race for TSan to see; wraps */

static void calls_a(long n)
{
	for (long i = 0; i < n; i++) {
		sink += ma_call((int)i);
		sink += (int)ma_put(100);
	}
}

static void calls_ab(long n)
{
	for (long i = 0; i < n; i++) {
		sink += ma_call((int)i);
		sink += mb_call((int)i);
	}
}

static int phases(long n, long m, long k)
{
	calls_a(n);
	steer(NULL, "off");
	calls_a(m);
	steer(NULL, "count");
	calls_a(k);
	return 0;
}

static int timing(long n, long m, long k)
{
	calls_a(n);
	steer(NULL, "sampled:4");
	calls_a(m);
	steer(NULL, "full");
	calls_a(k);
	return 0;
}

/* The process in mode p and modeb in b (its own timing), n calls each. */
static void own(const char *p, const char *b, long n)
{
	steer(NULL, p);
	steer("modeb", b);
	calls_ab(n);
}

static int perapi(long n, long m, long k)
{
	calls_ab(n);
	steer("modeb", "off");
	calls_ab(m);
	steer("modeb", "count");
	calls_ab(k);
	return 0;
}

struct waiter {
	int in_fd, ack_fd, r;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;

	w->r = ma_wait(w->in_fd, w->ack_fd);
	return NULL;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* The thread is inside ma_wait once it wrote its byte: the wrapper's clock
 * started before.  It returns after the byte main writes: the call lasted
 * at least from the first byte read here to the second written. */
static int blocked(void)
{
	int in[2], ack[2];
	char c;
	pthread_t th;

	if (pipe(in) != 0 || pipe(ack) != 0)
		return 1;
	struct waiter w = {in[0], ack[1], 0};
	if (pthread_create(&th, NULL, wait_thread, &w) != 0 || read(ack[0], &c, 1) != 1)
		return 1;
	long long t0 = now_ns();
	steer(NULL, "off");
	calls_a(5);
	steer(NULL, "full");
	calls_a(3);
	long long t1 = now_ns();
	c = 'x';
	if (write(in[1], &c, 1) != 1 || pthread_join(th, NULL) != 0 || w.r != 'x')
		return 1;
	printf("lower_ns %lld\n", t1 - t0);
	return 0;
}

/* --- flip: workers and a flipper with a handshake around each flip ------
 * A worker makes its calls holding a read lock, the flipper flips holding
 * the write lock (writers preferred, so it is not starved): no call is in
 * progress while the mode changes, and a worker that reads `counting`
 * under the read lock knows exactly whether its calls are counted.  The
 * waiting is in the kernel, not spinning, on however few CPUs. */
#define MAXT  256
#define BATCH 16

static struct {
	pthread_rwlock_t lock;
	atomic_int stop;
	int counting[2]; /* modea, modeb: written under the write lock */
	struct {
		long counted[2];
		char pad[64];
	} w[MAXT];
} fl;

static void *flip_worker(void *p)
{
	long me = (long)p;

	while (!atomic_load(&fl.stop)) {
		pthread_rwlock_rdlock(&fl.lock);
		for (int i = 0; i < BATCH; i++) {
			sink += ma_call(1);
			sink += mb_call(2);
		}
		fl.w[me].counted[0] += BATCH * fl.counting[0];
		fl.w[me].counted[1] += BATCH * fl.counting[1];
		pthread_rwlock_unlock(&fl.lock);
	}
	return NULL;
}

/* The flipper's view of the modes: the process's level, each api's own
 * (NULL: the process's), and the process's timing. */
struct view {
	const char *proc, *api[2];
	char timing[24];
};

static const char *const apis[2] = {"modea", "modeb"};

static int counting(const struct view *v, int a)
{
	const char *m = v->api[a] ? v->api[a] : v->proc;

	return strcmp(m, "off") != 0;
}

/* One random change, checked against what the runtime must answer. */
static void flip_one(struct view *v, unsigned *seed)
{
	static char sampled[24];
	unsigned r = (unsigned)rand_r(seed);
	int a = (int)(r >> 8) & 1;

	switch (r % 7) {
	case 0:
	case 1:
	case 2:
		v->proc = (const char *[]){"off", "count", "full"}[r % 7];
		if (r % 7 == 2)
			strcpy(v->timing, "full");
		v->api[0] = v->api[1] = NULL;
		steer(NULL, v->proc);
		return;
	case 3:
		snprintf(sampled, sizeof(sampled), "sampled:%u", 2 + (r >> 9) % 60);
		strcpy(v->timing, sampled);
		v->proc = sampled;
		v->api[0] = v->api[1] = NULL;
		steer(NULL, v->proc);
		return;
	case 4:
	case 5:
		v->api[a] = r % 7 == 4 ? "off" : "count";
		steer(apis[a], v->api[a]);
		return;
	default: /* a timed mode for one api, its own whatever the process's */
		v->api[a] = (r >> 9) & 1 ? "full" : (r >> 10) & 1 ? "sampled:3" : "sampled:50";
		steer(apis[a], v->api[a]);
	}
}

static int flip(long nthreads, long flips)
{
	pthread_t th[MAXT];
	struct view v = {"full", {NULL, NULL}, "full"};
	unsigned seed = (unsigned)getpid();
	long total[2] = {0, 0};

	if (nthreads < 1 || nthreads > MAXT)
		return 1;
	pthread_rwlockattr_t ra;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setkind_np(&ra, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&fl.lock, &ra);
	steer(NULL, "full");
	fl.counting[0] = fl.counting[1] = 1;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, flip_worker, (void *)i) != 0)
			return 1;
	for (long f = 0; f < flips; f++) {
		pthread_rwlock_wrlock(&fl.lock);
		flip_one(&v, &seed);
		fl.counting[0] = counting(&v, 0);
		fl.counting[1] = counting(&v, 1);
		pthread_rwlock_unlock(&fl.lock);
	}
	atomic_store(&fl.stop, 1);
	for (long i = 0; i < nthreads; i++) {
		pthread_join(th[i], NULL);
		total[0] += fl.w[i].counted[0];
		total[1] += fl.w[i].counted[1];
	}
	printf("counted ma_call %ld mb_call %ld\n", total[0], total[1]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
	long c = argc > 4 ? atol(argv[4]) : 0;

	if (strcmp(cmd, "phases") == 0)
		return phases(a, b, c);
	if (strcmp(cmd, "phases-hold") == 0) { /* then waits for a byte on stdin */
		char byte;
		int r = phases(a, b, c);
		printf("ready\n");
		fflush(stdout);
		return r != 0 || read(0, &byte, 1) < 0;
	}
	if (strcmp(cmd, "timing") == 0)
		return timing(a, b, c);
	if (strcmp(cmd, "perapi") == 0)
		return perapi(a, b, c);
	if (strcmp(cmd, "blocked") == 0)
		return blocked();
	if (strcmp(cmd, "flip") == 0)
		return flip(a, b);
	if (strcmp(cmd, "startab") == 0) {
		calls_ab(a);
		return 0;
	}
	if (strcmp(cmd, "own") == 0 && argc == 5) {
		own(argv[2], argv[3], atol(argv[4]));
		return 0;
	}
	if (strcmp(cmd, "own2") == 0 && argc == 8) {
		own(argv[2], argv[3], atol(argv[4]));
		own(argv[5], argv[6], atol(argv[7]));
		return 0;
	}
	if (strcmp(cmd, "start") == 0) {
		for (long i = 0; i < a; i++)
			sink += ma_call((int)i);
		return 0;
	}
	fprintf(stderr, "usage: modeprog phases|perapi N M K | blocked | flip T F | start N\n");
	return 2;
}
