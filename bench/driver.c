/* SPDX-License-Identifier: MIT */
/*
 * bench_driver - calls one function of the bench libraries N times in each
 * of T threads and prints what one call cost.
 *
 *   bench_driver [-t f|fg|fgh|work|m1|m1000|m100|m50] [-n CALLS] [-T THREADS] [-r REPS]
 *                [-P MICROSECONDS]
 *
 * Output, one line:  wall_ns W cpu_ns C calls K
 * W and C are ns per call from CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID
 * read around each thread's loop; each thread takes the median of its REPS
 * repetitions, and the line gives the mean of the threads' medians.  K is
 * the calls made in all (warm-up included), for checking a profiler's count.
 *
 * -t fg times bench_f and its twin bench_g in each repetition, one after
 * the other (f first in even repetitions, g first in odd ones), and adds
 * "twin_ns G diff_ns D": G as C for bench_g, D the median over the
 * repetitions of (g - f) in CPU time.  A shim that treats the two
 * differently is measured against itself, in one process, 2 x CALLS calls
 * apart: whatever the machine does to both at the time (this VM's host
 * runs the same calls a third slower for seconds at a time) is the same.
 * W and C are bench_f's, K counts both.
 *
 * -t fgh times bench_f, bench_g and their third twin bench_h in turn in
 * each repetition (starting with each in turn), and adds to fg's line
 * "third_ns H ratio R": H as C for bench_h, R the median over the
 * repetitions of (g - h) / (f - h).  With one tool on bench_f, another
 * on bench_g and none on bench_h, R is what the second adds to a call
 * over what the first adds, all three taken in one process; K counts the
 * three.
 *
 * The driver knows nothing of apiprof or any other tool: whatever measures
 * it is preloaded, audited or traced from outside, as with a real program.
 * The threads start each repetition together (a barrier), so that at T=2
 * both really run at once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"

/* From the generated bm1/bm1000 calls files (gen_many). */
int bm1_call_last(int x);
int bm1000_call_last(int x);
int bm1000_call_first100(int x);
int bm1000_call_first50(int x);

/* One loop per target, so that the loop body is nothing but the call (no
 * dispatch on the target inside it).  Feeding each result into the next
 * call keeps the calls in order and the compiler from dropping any. */
typedef int (*loop_fn)(long n, int x);

static int loop_f(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bench_f(x, (int)i);
	return x;
}

static int loop_g(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bench_g(x, (int)i);
	return x;
}

static int loop_h(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bench_h(x, (int)i);
	return x;
}

static int loop_work(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bench_work(x, (int)i);
	return x;
}

static int loop_m1(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bm1_call_last(x);
	return x;
}

static int loop_m1000(long n, int x)
{
	for (long i = 0; i < n; i++)
		x = bm1000_call_last(x);
	return x;
}

/* n counts calls: each iteration makes 100 of them. */
static int loop_m100(long n, int x)
{
	for (long i = 0; i < n / 100; i++)
		x = bm1000_call_first100(x);
	return x;
}

/* A program that does something between its calls, for apiprof-top's
 * cost: 50 calls, then -P microseconds asleep.  Its time per call is of
 * no interest. */
static struct timespec pace;

static int loop_m50(long n, int x)
{
	for (long i = 0; i < n / 50; i++) {
		x = bm1000_call_first50(x);
		if (pace.tv_nsec != 0 || pace.tv_sec != 0)
			nanosleep(&pace, NULL);
	}
	return x;
}

static const struct target {
	const char *name;
	loop_fn loop;
	long per_iter; /* calls per loop iteration; n is rounded down to a multiple */
	/* the loops timed in turn with loop in each repetition (-t fg and
	 * fgh), or NULL */
	loop_fn twin, third;
} targets[] = {
        {"f", loop_f, 1, NULL, NULL},         {"fg", loop_f, 1, loop_g, NULL},
        {"fgh", loop_f, 1, loop_g, loop_h},   {"work", loop_work, 1, NULL, NULL},
        {"m1", loop_m1, 1, NULL, NULL},       {"m1000", loop_m1000, 1, NULL, NULL},
        {"m100", loop_m100, 100, NULL, NULL}, {"m50", loop_m50, 50, NULL, NULL},
};

struct worker {
	pthread_t thread;
	double *wall, *cpu;    /* ns per call, one per repetition */
	double *twin, *diff;   /* the twin's CPU ns per call, and twin - cpu */
	double *third, *ratio; /* the third's, and (twin - third) / (cpu - third) */
	int sink;
};

static const struct target *target;
static long ncalls;
static int nreps;
static pthread_barrier_t start;

static double ns_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* How many loops a repetition times: 1, 2 (fg) or 3 (fgh). */
static int target_loops(void)
{
	return target->third != NULL ? 3 : target->twin != NULL ? 2 : 1;
}

/* Loop k of the target: 0 loop, 1 twin, 2 third. */
static loop_fn target_loop(int k)
{
	return k == 0 ? target->loop : k == 1 ? target->twin : target->third;
}

/* The CPU ns per call of loop k (0: loop, 1: twin, 2: third) of
 * repetition r, and for loop 0 the wall-clock ns too. */
static int time_loop(struct worker *w, int k, int r, int x)
{
	loop_fn fn = target_loop(k);
	double *cpu = k == 0 ? w->cpu : k == 1 ? w->twin : w->third;
	struct timespec m0, m1, c0, c1;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	clock_gettime(CLOCK_MONOTONIC, &m0);
	x = fn(ncalls, x);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	cpu[r] = ns_between(&c0, &c1) / (double)ncalls;
	if (k == 0)
		w->wall[r] = ns_between(&m0, &m1) / (double)ncalls;
	return x;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int x = w->sink, n = target_loops();

	/* Warm-up: lazy binding, the tool's per-thread set-up, the caches. */
	for (int k = 0; k < n; k++)
		x = target_loop(k)(target->per_iter, x);
	for (int r = 0; r < nreps; r++) {
		pthread_barrier_wait(&start);
		/* each loop goes first in turn: f first in even repetitions
		 * of fg, g first in odd ones */
		for (int k = 0; k < n; k++)
			x = time_loop(w, (r + k) % n, r, x);
		if (n > 1)
			w->diff[r] = w->twin[r] - w->cpu[r];
		if (n > 2)
			w->ratio[r] = (w->twin[r] - w->third[r]) / (w->cpu[r] - w->third[r]);
	}
	w->sink = x;
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_driver [-t f|fg|fgh|work|m1|m1000|m100|m50] [-n CALLS] "
	                "[-T THREADS] [-r REPS] [-P MICROSECONDS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long nthreads = 1;
	double wall = 0, cpu = 0, twin = 0, diff = 0, third = 0, ratio = 0;
	long per_rep;
	struct worker *w;
	int opt, err;

	target = &targets[0];
	ncalls = 1000000;
	nreps = 5;
	while ((opt = getopt(argc, argv, "t:n:T:r:P:")) != -1) {
		switch (opt) {
		case 't':
			target = NULL;
			for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
				if (strcmp(optarg, targets[i].name) == 0)
					target = &targets[i];
			if (target == NULL)
				usage();
			break;
		case 'n':
			ncalls = strtol(optarg, NULL, 10);
			break;
		case 'T':
			nthreads = strtol(optarg, NULL, 10);
			break;
		case 'r':
			nreps = (int)strtol(optarg, NULL, 10);
			break;
		case 'P': {
			long us = strtol(optarg, NULL, 10);

			pace.tv_sec = us / 1000000;
			pace.tv_nsec = us % 1000000 * 1000;
			break;
		}
		default:
			usage();
		}
	}
	ncalls -= ncalls % target->per_iter;
	if (ncalls <= 0 || nthreads < 1 || nthreads > 1024 || nreps < 1 || nreps > 1000 ||
	    optind != argc)
		usage();

	w = calloc((size_t)nthreads, sizeof(*w));
	if (w == NULL)
		return 1;
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (long t = 0; t < nthreads; t++) {
		w[t].wall = calloc((size_t)nreps, sizeof(double));
		w[t].cpu = calloc((size_t)nreps, sizeof(double));
		w[t].twin = calloc((size_t)nreps, sizeof(double));
		w[t].diff = calloc((size_t)nreps, sizeof(double));
		w[t].third = calloc((size_t)nreps, sizeof(double));
		w[t].ratio = calloc((size_t)nreps, sizeof(double));
		w[t].sink = (int)t;
		if (w[t].wall == NULL || w[t].cpu == NULL || w[t].twin == NULL ||
		    w[t].diff == NULL || w[t].third == NULL || w[t].ratio == NULL)
			return 1;
		err = pthread_create(&w[t].thread, NULL, worker_main, &w[t]);
		if (err != 0) {
			fprintf(stderr, "bench_driver: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (long t = 0; t < nthreads; t++) {
		pthread_join(w[t].thread, NULL);
		wall += median(w[t].wall, nreps);
		cpu += median(w[t].cpu, nreps);
		twin += median(w[t].twin, nreps);
		diff += median(w[t].diff, nreps);
		third += median(w[t].third, nreps);
		ratio += median(w[t].ratio, nreps);
	}
	per_rep = target_loops();
	printf("wall_ns %.3f cpu_ns %.3f calls %ld", wall / (double)nthreads,
	       cpu / (double)nthreads, nthreads * per_rep * (ncalls * nreps + target->per_iter));
	if (target->twin != NULL)
		printf(" twin_ns %.3f diff_ns %.3f", twin / (double)nthreads,
		       diff / (double)nthreads);
	if (target->third != NULL)
		printf(" third_ns %.3f ratio %.4f", third / (double)nthreads,
		       ratio / (double)nthreads);
	printf("\n");
	return 0;
}
