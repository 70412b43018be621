/* SPDX-License-Identifier: MIT */
/*
 * topprog - a program with known call counts for apiprof-top's tests.
 *
 *   topprog THREADS CALLS
 *
 * Threads "tworker-N" each call tt_work CALLS times and tt_idle once, then
 * stay alive; the main thread calls tt_idle 3 times.  Then it prints
 * "ready" and serves its stdin: each line "go" makes the main thread call
 * tt_work CALLS times and print "done"; end of file makes it exit.  The
 * test synchronises on those lines, never on time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toplib.h"

static long calls;
static pthread_barrier_t worked;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t quit_cond = PTHREAD_COND_INITIALIZER;
static int quit;

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "tworker-%d", (int)(long)arg);
	pthread_setname_np(pthread_self(), name);
	for (long i = 0; i < calls; i++)
		tt_work((int)i);
	tt_idle();
	pthread_barrier_wait(&worked);
	pthread_mutex_lock(&lock);
	while (!quit)
		pthread_cond_wait(&quit_cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void serve(void)
{
	char line[64];

	while (fgets(line, sizeof(line), stdin)) {
		if (strcmp(line, "go\n"))
			continue;
		for (long i = 0; i < calls; i++)
			tt_work((int)i);
		printf("done\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof(*t));

	calls = argc > 2 ? atol(argv[2]) : 1000;
	pthread_barrier_init(&worked, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < 3; i++)
		tt_idle();
	pthread_barrier_wait(&worked);
	printf("ready\n");
	fflush(stdout);
	serve();
	pthread_mutex_lock(&lock);
	quit = 1;
	pthread_cond_broadcast(&quit_cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
