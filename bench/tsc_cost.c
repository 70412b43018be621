/* SPDX-License-Identifier: MIT */
/*
 * bench_tsc_cost - what one rdtsc costs on this machine, the floor under
 * every timed call (two of them a call).
 *
 *   bench_tsc_cost [N]     (N: reads a repetition, default 10,000,000)
 *
 * Prints "rdtsc_ns X clock_gettime_ns Y": the median of 7 repetitions of
 * N back-to-back reads each, timed with the thread's CPU time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

/* The thread's CPU time: a repetition preempted on a busy machine is not
 * counted the longer for it. */
static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

static double per_read(long n, int use_tsc)
{
	uint64_t acc = 0;
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (use_tsc) {
			acc += __rdtsc();
		} else {
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			acc += (uint64_t)ts.tv_nsec;
		}
	}
	double t1 = now_ns();
	sink = acc;
	return (t1 - t0) / (double)n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(long n, int use_tsc)
{
	double v[7];
	for (int i = 0; i < 7; i++)
		v[i] = per_read(n, use_tsc);
	qsort(v, 7, sizeof(v[0]), cmp);
	return v[3];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000000;
	if (n <= 0) {
		fprintf(stderr, "usage: bench_tsc_cost [N > 0]\n");
		return 2;
	}
	printf("rdtsc_ns %.2f clock_gettime_ns %.2f\n", median_of(n, 1), median_of(n / 4 + 1, 0));
	return 0;
}
