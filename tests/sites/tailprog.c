/* SPDX-License-Identifier: MIT */
/*
 * tailprog.c - a library function that tail-calls another api (issue
 * 35.3): tail_one and tail_two call a_tail (api sitea) N times in all
 * (argv[1], default 1000), by turns, which tail-calls b_leaf (api
 * siteb); then main calls b_leaf itself M times (argv[2], default 7).  With a third argument "wait"
 * it then prints "ready" and lives until its stdin closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitelib.h"

/* not tail calls: b_leaf's calls through a_tail return here */
__attribute__((noinline)) int tail_one(int n)
{
	return a_tail(n) ^ 1;
}

__attribute__((noinline)) int tail_two(int n)
{
	return a_tail(n) ^ 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long m = argc > 2 ? atol(argv[2]) : 7;
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += (i & 1 ? tail_two : tail_one)((int)i);
	for (long i = 0; i < m; i++)
		acc += b_leaf((int)i);
	if (argc > 3 && strcmp(argv[3], "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return acc == 42 ? 1 : 0;
}
