/* SPDX-License-Identifier: MIT */
/*
 * idleprog.c - rows with call sites that then stay idle: `idleprog T`
 * starts T threads, each calling sitelib.sl_work 10 times from one site
 * (T rows of one site each), prints "ready" once they all have, and keeps
 * them alive, making no call, until its stdin ends.
 *
 * `idleprog fork` makes the 10 calls itself, prints "ready", and at the
 * line "fork" on its stdin forks a child that makes 10 calls of its own
 * from the same site, prints "child PID" and keeps alive until stdin
 * ends; the parent waits for it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flusher_wait.h"
#include "sitelib.h"

#define CALLS 10

static pthread_barrier_t made, done;

__attribute__((noinline)) static int idle_site(void)
{
	int acc = 0;

	for (int i = 0; i < CALLS; i++)
		acc += sl_work(1);
	return acc;
}

static void *run(void *arg)
{
	(void)arg;
	idle_site();
	pthread_barrier_wait(&made);
	pthread_barrier_wait(&done);
	return NULL;
}

/* The same row with the same calls, in a fork child: its quantiles are
 * its own, written again (apiprof_flush.c siteq_due). */
static int forked(void)
{
	char line[16];
	int st;

	idle_site();
	flusher_wait();
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || strcmp(line, "fork\n") != 0)
		return 2;
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0) {
		idle_site();
		printf("child %d\n", (int)getpid());
		fflush(stdout);
		while (getchar() != EOF)
			;
		return 0;
	}
	return waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "fork") == 0)
		return forked();
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t *t = calloc(n > 0 ? (size_t)n : 1, sizeof(*t));

	if (n < 1 || t == NULL)
		return 2;
	pthread_barrier_init(&made, NULL, (unsigned)n + 1);
	pthread_barrier_init(&done, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, run, NULL) != 0)
			return 1;
	pthread_barrier_wait(&made);
	printf("ready\n");
	fflush(stdout);
	while (getchar() != EOF)
		;
	pthread_barrier_wait(&done);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
