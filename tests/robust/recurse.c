// SPDX-License-Identifier: MIT
/*
 * recurse.c - a callback that calls the profiled function again (issue
 * 34, point 4).
 *
 *	recurse DEPTH STACK_KIB OUTER
 *
 * On a thread with a stack of STACK_KIB KiB, makes OUTER outermost calls
 * of tl_apply(down, DEPTH), whose callback calls tl_apply(down, x - 1)
 * until x is 0: DEPTH nested calls of the api inside each outermost one.
 * Prints each result (DEPTH + 1), then the stack a level of the
 * recursion takes: the distance between a local of the callback at depth
 * 1 and at depth DEPTH, over DEPTH - 1.  A stack too small for the
 * recursion ends the program with SIGSEGV, at the thread's guard page.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int depth, outer;
static uintptr_t at_top, at_bottom; /* the local of depth 1 and of depth DEPTH */

static int down(int x)
{
	volatile char here = 0;

	if (x == depth)
		at_top = (uintptr_t)&here;
	if (x == 1)
		at_bottom = (uintptr_t)&here;
	if (x == 0)
		return here;
	return tl_apply(down, x - 1);
}

static void *run(void *arg)
{
	(void)arg;
	for (int i = 0; i < outer; i++)
		printf("result: %d\n", tl_apply(down, depth));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	pthread_t t;
	int e;

	if (argc != 4 || (depth = atoi(argv[1])) < 2 || (outer = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: recurse DEPTH STACK_KIB OUTER (DEPTH >= 2, OUTER >= 1)\n");
		return 2;
	}
	pthread_attr_init(&a);
	e = pthread_attr_setstacksize(&a, (size_t)atoi(argv[2]) * 1024);
	if (e == 0)
		e = pthread_create(&t, &a, run, NULL);
	if (e == 0)
		e = pthread_join(t, NULL);
	if (e != 0) {
		fprintf(stderr, "recurse: %s\n", strerror(e));
		return 1;
	}
	printf("bytes a level: %lu\n",
	       (unsigned long)((at_top - at_bottom) / (uintptr_t)(depth - 1)));
	return 0;
}
