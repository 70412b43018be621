/* SPDX-License-Identifier: MIT */
/*
 * edgeprog.c - a call tree across two apis (issue 23): main calls a_work
 * (api sitea) N times (argv[1], default 100), each of which calls b_leaf
 * (api siteb) SITE_LEAF_PER_WORK times; then main calls b_leaf itself
 * M times (argv[2], default 7), a root of its own.
 *
 * With a third argument P: P rounds of N calls of a_mix (api sitea), which
 * calls b_leaf through a_leaf, then M calls of a_leaf by main: b_leaf's
 * calls from the one site in a_leaf are inside a_mix or roots by turns.
 */
#include <stdlib.h>

#include "sitelib.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	long m = argc > 2 ? atol(argv[2]) : 7;
	unsigned acc = 0;

	if (argc > 3) {
		for (long p = atol(argv[3]); p > 0; p--) {
			for (long i = 0; i < n; i++)
				acc += a_mix((int)i);
			for (long i = 0; i < m; i++)
				acc += a_leaf((int)i);
		}
		return acc == 42 ? 1 : 0;
	}

	for (long i = 0; i < n; i++)
		acc += a_work((int)i);
	for (long i = 0; i < m; i++)
		acc += b_leaf((int)i);
	return acc == 42 ? 1 : 0;
}
