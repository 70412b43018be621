/* SPDX-License-Identifier: MIT */
/*
 * treeprog.c - the calling-context tree's program (issue 35.2, see
 * treelib.h): calls tr_root N times (argv[1], default 1), then tr_close
 * once; with a second argument "thread", in a thread of its own that
 * ends before main does (its tree is folded into the process's); with
 * "wait", then prints "ready" and lives until its stdin closes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treelib.h"

static void *run(void *arg)
{
	long n = *(long *)arg;

	for (long i = 0; i < n; i++)
		tr_root();
	tr_close();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	pthread_t th;

	if (argc > 2 && strcmp(argv[2], "thread") == 0) {
		if (pthread_create(&th, NULL, run, &n) != 0 || pthread_join(th, NULL) != 0)
			return 1;
		return 0;
	}
	run(&n);
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return 0;
}
