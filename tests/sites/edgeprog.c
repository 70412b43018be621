/* SPDX-License-Identifier: MIT */
/*
 * edgeprog.c - a call tree across two apis (issue 23): main calls a_work
 * (api sitea) N times (argv[1], default 100), each of which calls b_leaf
 * (api siteb) SITE_LEAF_PER_WORK times; then main calls b_leaf itself 7
 * times, a root of its own.
 */
#include <stdlib.h>

#include "sitelib.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += a_work((int)i);
	for (int i = 0; i < 7; i++)
		acc += b_leaf(i);
	return acc == 42 ? 1 : 0;
}
