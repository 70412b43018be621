/* SPDX-License-Identifier: MIT */
/*
 * twoprog.c - a function with two different children (issue 34, point
 * 21): main calls a_two (api sitea) N times (argv[1], default 100), each
 * of which calls b_leaf SITE_TWO_LEAF times and b_twig SITE_TWO_TWIG
 * times (api siteb), which nothing else calls.  With a second argument
 * "wait" it then prints "ready" and lives until its stdin closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitelib.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += a_two((int)i);
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return acc == 42 ? 1 : 0;
}
