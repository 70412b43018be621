/* SPDX-License-Identifier: MIT */
/*
 * inflightprog - a program that blocks in a profiled call for as long as its
 * test wants, for apiprof-top's test of calls in progress.
 *
 *   inflightprog CALLS
 *
 * Calls tt_work CALLS times, prints "ready", then calls tt_wait on its
 * stdin, which blocks until the test writes a byte there; prints "done"
 * and exits at the end of its stdin.  The test synchronises on those
 * lines and on what the viewer shows, never on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "toplib.h"

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 100;
	char c;

	for (long i = 0; i < calls; i++)
		tt_work((int)i);
	printf("ready\n");
	fflush(stdout);
	if (tt_wait(0) != 1)
		return 1;
	printf("done\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
