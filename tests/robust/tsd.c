/* SPDX-License-Identifier: MIT */
/*
 * tsd - thread-specific-data destructors that call the API after the
 * runtime's own destructor ran.
 *
 *   tsd THREADS CALLS exact|four
 *
 * Two keys: one created before the program's first call of tl_add, one
 * after.  Each worker sets both, makes CALLS calls and exits; each key's
 * destructor calls tl_add once per round and sets its value again, so that
 * glibc runs further rounds.  Keys are run in the order they were created
 * in every round, and the runtime's key was created at start-up, before
 * ours: in every round the runtime's destructor runs first, so our calls
 * come after it.
 *
 *   exact  the values are set again in rounds 1 and 2 only: our calls
 *          happen in rounds 1-3, which the runtime's re-armed destructor
 *          must cover; every call is counted.
 *   four   set again every time, so glibc runs all of its
 *          PTHREAD_DESTRUCTOR_ITERATIONS rounds and stops; the runtime
 *          retires the thread at the start of the last round, so that
 *          round's calls can only pass through uncounted.
 *
 * Prints the calls made in total and the calls made in the last round.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static pthread_key_t key_before, key_after;
static int four;
static long made, made_last_round;

static void dtor(pthread_key_t key, void *v)
{
	uintptr_t round = (uintptr_t)v;

	__atomic_fetch_add(&made, 1, __ATOMIC_RELAXED);
	if (round == PTHREAD_DESTRUCTOR_ITERATIONS)
		__atomic_fetch_add(&made_last_round, 1, __ATOMIC_RELAXED);
	tl_add((int)round, 1);
	if (four || round < 3)
		pthread_setspecific(key, (void *)(round + 1));
}

static void dtor_before(void *v)
{
	dtor(key_before, v);
}

static void dtor_after(void *v)
{
	dtor(key_after, v);
}

static long calls;

static void *worker(void *arg)
{
	(void)arg;
	pthread_setspecific(key_before, (void *)1);
	pthread_setspecific(key_after, (void *)1);
	for (long i = 0; i < calls; i++)
		tl_add((int)i, 1);
	__atomic_fetch_add(&made, calls, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	long threads;
	pthread_t *ts;

	if (argc != 4)
		return 2;
	threads = atol(argv[1]);
	calls = atol(argv[2]);
	four = strcmp(argv[3], "four") == 0;
	if (threads < 1 || (ts = calloc(threads, sizeof(*ts))) == NULL)
		return 2;
	if (pthread_key_create(&key_before, dtor_before) != 0)
		return 3;
	made = 1;
	tl_add(0, 1);
	if (pthread_key_create(&key_after, dtor_after) != 0)
		return 3;
	for (long i = 0; i < threads; i++)
		if (pthread_create(&ts[i], NULL, worker, NULL) != 0)
			return 4;
	for (long i = 0; i < threads; i++)
		pthread_join(ts[i], NULL);
	printf("made %ld last-round %ld\n", made, made_last_round);
	return 0;
}
