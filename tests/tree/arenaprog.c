/* SPDX-License-Identifier: MIT */
/*
 * arenaprog.c - the call tree's program for a full arena (issue 35.2, see
 * treelib.h and failmmap.c): pads the runtime's arena with the malloc
 * and free entries of argv[1] call sites of its own (each an entry with a
 * histogram, so that which allocation finds the arena full moves), then
 * runs argv[2] threads one after another, each calling tr_root once and
 * tr_close three times (from three sites) and then waiting, so that the exit JSON has every one of
 * them; one of them finds the arena full.  With a third argument "exit",
 * the first thread ends before the next starts, and the others end once
 * all have run (their trees and tables folded, APIPROF_KEEP_EXITED=0).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "treelib.h"

static sem_t done, go;

/* one call site each (built without optimisation) */
#define P1(k)                                                                                      \
	if (n > (k))                                                                               \
		free(malloc(8));
#define P4(k)  P1(k) P1((k) + 1) P1((k) + 2) P1((k) + 3)
#define P16(k) P4(k) P4((k) + 4) P4((k) + 8) P4((k) + 12)
#define P64(k) P16(k) P16((k) + 16) P16((k) + 32) P16((k) + 48)

static void pad(int n)
{
	P64(0)
	P64(64)
	P64(128)
	P64(192)
}

static void *run(void *arg)
{
	(void)arg;
	tr_root();
	tr_close();
	tr_close(); /* other sites: switches, which may find room again */
	tr_close();
	sem_post(&done);
	while (sem_wait(&go) != 0)
		;
	return NULL;
}

static int start(pthread_t *th)
{
	if (pthread_create(th, NULL, run, NULL) != 0)
		return -1;
	while (sem_wait(&done) != 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	int threads = argc > 2 ? atoi(argv[2]) : 1;
	int first = argc > 3; /* "exit": the first thread ends first */
	pthread_t th[64];

	if (sem_init(&done, 0, 0) != 0 || sem_init(&go, 0, 0) != 0 || threads > 64)
		return 1;
	pad(argc > 1 ? atoi(argv[1]) : 0);
	for (int i = 0; i < threads; i++) {
		if (start(&th[i]) != 0)
			return 1;
		if (i == 0 && first && (sem_post(&go) != 0 || pthread_join(th[0], NULL) != 0))
			return 1;
	}
	if (!first)
		exit(0); /* the threads wait on: the exit JSON has each */
	for (int i = 1; i < threads; i++)
		if (sem_post(&go) != 0)
			return 1;
	for (int i = 1; i < threads; i++)
		if (pthread_join(th[i], NULL) != 0)
			return 1;
	return 0;
}
