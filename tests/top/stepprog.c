/* SPDX-License-Identifier: MIT */
/*
 * stepprog - makes its calls when its test says so, then waits.
 *
 *   stepprog K
 *
 * For each byte read from stdin, calls tt_work K times and prints "done
 * N" (N: its calls so far); in between it blocks in read(2), unprofiled.
 * Exits 0 at the end of its stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "toplib.h"

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1, n = 0;
	char c;

	printf("ready\n");
	fflush(stdout);
	while (read(0, &c, 1) == 1) {
		for (long i = 0; i < k; i++)
			tt_work((int)i);
		n += k;
		printf("done %ld\n", n);
		fflush(stdout);
	}
	return 0;
}
