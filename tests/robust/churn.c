/* SPDX-License-Identifier: MIT */
/*
 * churn - thread churn with exact call counts and a memory bound.
 *
 *   churn ALIVE SEQ CHECK BOUND_KB
 *
 * Phase 1: SEQ short-lived threads one after another, each making 2 calls
 * of tl_add.  Phase 2: ALIVE threads (small stacks), each makes 3 calls and
 * waits on a barrier, so that all of them are alive at once.  Phase 3:
 * CHECK more short-lived threads, which must reuse the burst's slots.  The
 * main thread makes 1 call.  Prints the number of calls made, which the driver
 * compares with the sum over threads in APIPROF_OUTPUT.
 *
 * Memory: VmRSS and VmHWM are read from /proc/self/status after CHECK and
 * after SEQ short-lived threads, and before and after phase 3; more than
 * BOUND_KB of growth in either fails (exit 3).  Nothing in the program itself grows with the number
 * of threads that ever lived, so any growth is a leak per thread: the
 * runtime must reuse the slots of exited threads.  The numbers go to
 * stderr, which is not compared with the bare run.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "testlib.h"

#define STACK (64 * 1024) /* plus glibc's guard page and static TLS */

static pthread_barrier_t all_alive;
static int sink;

static void *alive_main(void *arg)
{
	int s = 0;

	(void)arg;
	for (int i = 0; i < 3; i++)
		s = tl_add(s, 1);
	__atomic_fetch_add(&sink, s, __ATOMIC_RELAXED);
	pthread_barrier_wait(&all_alive);
	return NULL;
}

static void *short_main(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&sink, tl_add(tl_add(0, 1), 1), __ATOMIC_RELAXED);
	return NULL;
}

/* VmRSS and VmHWM in kB. */
static int mem_kb(long *rss, long *hwm)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	*rss = *hwm = -1;
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %ld", rss);
		sscanf(line, "VmHWM: %ld", hwm);
	}
	fclose(f);
	return *rss < 0 || *hwm < 0 ? -1 : 0;
}

static int spawn(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *))
{
	int err = pthread_create(t, a, fn, NULL);

	if (err != 0)
		fprintf(stderr, "churn: pthread_create: %s\n", strerror(err));
	return err;
}

/* n short-lived threads one after another; memory after the first `at`
 * and after all n. */
static int sequential(const pthread_attr_t *attr, long at, long n, long *rss0, long *hwm0,
                      long *rss1, long *hwm1)
{
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (spawn(&t, attr, short_main) != 0)
			return -1;
		pthread_join(t, NULL);
		if (i + 1 == at && mem_kb(rss0, hwm0) != 0)
			return -1;
	}
	return mem_kb(rss1, hwm1);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *ts;
	long alive, seq, check, bound, rss0 = 0, hwm0 = 0, rss1, hwm1;
	struct rlimit lim;
	int bad = 0;

	if (argc != 5)
		return 2;
	alive = atol(argv[1]);
	seq = atol(argv[2]);
	check = atol(argv[3]);
	bound = atol(argv[4]);
	if (alive < 1 || check < 1 || seq < check || (ts = calloc(alive, sizeof(*ts))) == NULL)
		return 2;
	/* Root has no process limit; others may: raise it or skip. */
	if (getrlimit(RLIMIT_NPROC, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
	    lim.rlim_cur < (rlim_t)alive + 1000) {
		lim.rlim_cur = lim.rlim_max;
		if (setrlimit(RLIMIT_NPROC, &lim) != 0 ||
		    (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < (rlim_t)alive + 1000)) {
			printf("SKIP: RLIMIT_NPROC is too low for %ld threads\n", alive);
			return 77;
		}
	}
	sink = tl_add(0, 1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK);

	if (sequential(&attr, check, seq, &rss0, &hwm0, &rss1, &hwm1) != 0)
		return 4;
	fprintf(stderr,
	        "churn: after %ld threads: VmRSS %ld kB VmHWM %ld kB; after %ld: %ld, %ld\n", check,
	        rss0, hwm0, seq, rss1, hwm1);
	if (rss1 - rss0 > bound || hwm1 - hwm0 > bound) {
		fprintf(stderr, "churn: memory grew by more than %ld kB\n", bound);
		bad = 1;
	}

	pthread_barrier_init(&all_alive, NULL, (unsigned)alive + 1);
	for (long i = 0; i < alive; i++)
		if (spawn(&ts[i], &attr, alive_main) != 0)
			return 4;
	pthread_barrier_wait(&all_alive);
	for (long i = 0; i < alive; i++)
		pthread_join(ts[i], NULL);

	/* After the burst: the burst's exited entries are reused too. */
	if (sequential(&attr, 1, check, &rss0, &hwm0, &rss1, &hwm1) != 0)
		return 4;
	fprintf(stderr,
	        "churn: after the burst: VmRSS %ld kB VmHWM %ld kB; %ld threads later: %ld, %ld\n",
	        rss0, hwm0, check, rss1, hwm1);
	if (rss1 - rss0 > bound || hwm1 - hwm0 > bound) {
		fprintf(stderr, "churn: memory grew by more than %ld kB after the burst\n", bound);
		bad = 1;
	}
	printf("calls %ld sum %d\n", 1 + 3 * alive + 2 * (seq + check), sink);
	return bad ? 3 : 0;
}
