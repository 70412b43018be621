/* SPDX-License-Identifier: MIT */
/*
 * latprog.c - two call sites of one function whose calls differ in
 * length by a fixed amount of work, not by time (issue 23, per-caller
 * p50/p99): site_fast calls sl_spin(1) LAT_FAST times, site_slow calls
 * sl_spin(LAT_WORK) LAT_SLOW times, interleaved (every call switches
 * site), so each site's latency histogram is its own.  With argv[1]
 * "thread" it runs in a thread that has exited by the end.  Built with
 * -g -O0.
 */
#include <pthread.h>
#include <string.h>

#include "sitelib.h"

#define LAT_FAST 1000
#define LAT_SLOW 250
#define LAT_WORK 20000

__attribute__((noinline)) int site_fast(void)
{
	return sl_spin(1);
}

__attribute__((noinline)) int site_slow(void)
{
	return sl_spin(LAT_WORK);
}

static void *run(void *arg)
{
	unsigned acc = 0;

	(void)arg;
	for (int i = 0; i < LAT_FAST; i++) {
		acc += (unsigned)site_fast();
		if (i % (LAT_FAST / LAT_SLOW) == 0)
			acc += (unsigned)site_slow();
	}
	return (void *)(long)acc;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2 || strcmp(argv[1], "thread") != 0)
		run(NULL);
	else if (pthread_create(&t, NULL, run, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}
