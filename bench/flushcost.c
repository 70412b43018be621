/* SPDX-License-Identifier: MIT */
/*
 * flushcost - the CPU time of one flush of 100 active functions.
 *
 * The runtime's flush path (apiprof_flush_all) is internal to libapiprof.so,
 * so this program is built from the runtime's own sources and calls it
 * directly, on the real segment in /dev/shm: each round makes one call of
 * each of 100 functions (so all 100 have changed and are written to the
 * ring, as for a thread that keeps 100 functions busy), then times one
 * flush.  The flusher thread is turned off, so nothing else flushes.
 *
 *   flushcost [ROUNDS]     prints: flush_us MEDIAN keyframe_us MEDIAN funcs 100
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "apiprof_internal.h"

#define NFUNCS 100

static struct apiprof_sym syms[NFUNCS];
static uint32_t warned[NFUNCS];

static struct apiprof_api api = {
        .abi = APIPROF_SHIM_ABI,
        .name = "flushcost",
        .library = "libc.so.6", /* loaded: no never-loaded line at exit */
        .spec = "flushcost",
        .nfuncs = NFUNCS,
        .func_base = APIPROF_FUNC_UNSET,
        .syms = syms,
        .missing_warned = warned,
};

/* Before the runtime's own constructor (default priority) starts it: no
 * flusher thread, no exit outputs. */
__attribute__((constructor(101))) static void quiet_runtime(void)
{
	setenv("APIPROF_INTERVAL_MS", "0", 1);
	unsetenv("APIPROF_OUTPUT");
	unsetenv("APIPROF_SUMMARY");
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One call of every function, through the same inline hot path a
 * generated wrapper uses (the "real" function being empty). */
static void touch_all(void)
{
	for (uint32_t i = 0; i < NFUNCS; i++) {
		struct apiprof_call c;
		unsigned route = apiprof_enter_any(&api, &c, i, 0);

		if (route == APIPROF_CALL_TIMED) {
			apiprof_start(&api, &c, i);
			apiprof_leave(&api, &c, i);
		} else {
			apiprof_leave_other(&api, &c, route, i);
		}
	}
}

static double median_flush(double *v, int rounds, bool keyframe)
{
	for (int r = 0; r < rounds; r++) {
		double t0;

		touch_all();
		t0 = now_us();
		apiprof_flush_all(keyframe);
		v[r] = now_us() - t0;
	}
	qsort(v, (size_t)rounds, sizeof(*v), cmp_double);
	return v[rounds / 2];
}

int main(int argc, char **argv)
{
	static char namebuf[NFUNCS][16];
	int rounds = argc > 1 ? atoi(argv[1]) : 2000;
	double *v, inc, key;

	if (rounds < 1)
		return 2;
	v = malloc((size_t)rounds * sizeof(*v));
	if (v == NULL)
		return 1;
	for (int i = 0; i < NFUNCS; i++) {
		snprintf(namebuf[i], sizeof(namebuf[i]), "f%d", i);
		syms[i] = (struct apiprof_sym){
		        .symbol = namebuf[i], .display = namebuf[i], .row = (uint32_t)i};
	}
	touch_all(); /* registers the api and this thread */
	/* as a reader's first look makes the flusher do */
	if (apiprof_segment() == NULL || !apiprof_segment_ring_reserve()) {
		fprintf(stderr, "flushcost: no segment (is /dev/shm writable?)\n");
		return 1;
	}
	inc = median_flush(v, rounds, false);
	key = median_flush(v, rounds, true);
	printf("flush_us %.3f keyframe_us %.3f funcs %d\n", inc, key, NFUNCS);
	free(v);
	return 0;
}
