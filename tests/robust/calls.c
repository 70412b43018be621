/* SPDX-License-Identifier: MIT */
/*
 * calls - a plain producer of calls: N calls of tl_add from the main
 * thread, then prints their sum.
 *
 *   calls N          start at once
 *   calls N wait     print "ready", then wait for one byte on stdin (a
 *                    reader attaches to the segment meanwhile)
 *   calls N loop     call without end (N per round), for being killed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

int main(int argc, char **argv)
{
	long n, sum = 0;
	char c;

	if (argc < 2 || (n = atol(argv[1])) < 1)
		return 2;
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		if (read(STDIN_FILENO, &c, 1) != 1)
			return 3;
	}
	do {
		for (long i = 0; i < n; i++)
			sum = tl_add((int)sum, 1);
	} while (argc > 2 && strcmp(argv[2], "loop") == 0);
	printf("sum %ld\n", sum);
	return 0;
}
