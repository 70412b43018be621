/* SPDX-License-Identifier: MIT */
/*
 * idleprog.c - rows with call sites that then stay idle: `idleprog T`
 * starts T threads, each calling sitelib.sl_work 10 times from one site
 * (T rows of one site each), prints "ready" once they all have, and keeps
 * them alive, making no call, until its stdin ends.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
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
