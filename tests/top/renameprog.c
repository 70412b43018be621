/* SPDX-License-Identifier: MIT */
/*
 * renameprog - threads renamed after their first calls, as a JVM or a
 * thread pool renames them (issue 22).
 *
 *   renameprog THREADS
 *
 * Threads "before-N" call tt_work 10 times each, the main thread tt_idle
 * once; then it prints "ready".  On the line "rename" the main thread
 * names itself "after-main" and each worker "after-N", then it and every
 * worker call tt_work 5 times more, and it prints "renamed".  On the line
 * "load PATH" it dlopen()s PATH and prints "loaded" (or "not loaded").  At
 * the end of its input the workers exit, then the program.  The test
 * synchronises on those lines, never on time.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toplib.h"

static pthread_barrier_t step;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int phase; /* 1: call again, 2: exit */

static void work(int n)
{
	for (int i = 0; i < n; i++)
		tt_work(i);
}

static void wait_phase(int p)
{
	pthread_mutex_lock(&lock);
	while (phase < p)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void set_phase(int p)
{
	pthread_mutex_lock(&lock);
	phase = p;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "before-%d", (int)(long)arg & 0xffff);
	pthread_setname_np(pthread_self(), name);
	work(10);
	pthread_barrier_wait(&step);
	wait_phase(1);
	pthread_mutex_lock(&lock);
	int renamed = phase == 1; /* not when the input ended at once */
	pthread_mutex_unlock(&lock);
	if (renamed) {
		work(5);
		pthread_barrier_wait(&step);
	}
	wait_phase(2);
	return NULL;
}

static void rename_all(pthread_t *t, int n)
{
	char name[16];

	pthread_setname_np(pthread_self(), "after-main");
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "after-%d", i & 0xffff);
		pthread_setname_np(t[i], name);
	}
	set_phase(1);
	work(5);
	pthread_barrier_wait(&step);
	printf("renamed\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t *t = calloc((size_t)(n > 0 ? n : 1), sizeof(*t));
	char line[4096];

	pthread_barrier_init(&step, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(long)i);
	tt_idle();
	pthread_barrier_wait(&step);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "rename\n") && phase == 0)
			rename_all(t, n);
		if (!strncmp(line, "load ", 5)) {
			line[strcspn(line, "\n")] = '\0';
			printf("%s\n",
			       dlopen(line + 5, RTLD_NOW | RTLD_LOCAL) ? "loaded" : "not loaded");
			fflush(stdout);
		}
	}
	set_phase(2);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
