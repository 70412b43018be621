/* SPDX-License-Identifier: MIT */
/*
 * siteprog - known call sites for apiprof-top's tests (issue 23).
 *
 * site_a, site_b and site_c call tt_work 1000, 2000 and 3000 times, each
 * from one call instruction; then tr_outer (api treelib) is called 10
 * times, each calling tt_work TREELIB_INNER times.  Then it prints
 * "ready" and waits for its stdin to end, so that a viewer can look.
 * Built with -g -O0: the sites are named by the debug information.
 */
#include <stdio.h>

#include "toplib.h"
#include "treelib.h"

__attribute__((noinline)) unsigned site_a(void)
{
	unsigned acc = 0;

	for (int i = 0; i < 1000; i++)
		acc += (unsigned)tt_work(i);
	return acc;
}

__attribute__((noinline)) unsigned site_b(void)
{
	unsigned acc = 0;

	for (int i = 0; i < 2000; i++)
		acc += (unsigned)tt_work(i);
	return acc;
}

__attribute__((noinline)) unsigned site_c(void)
{
	unsigned acc = 0;

	for (int i = 0; i < 3000; i++)
		acc += (unsigned)tt_work(i);
	return acc;
}

int main(void)
{
	unsigned acc = site_a() + site_b() + site_c();

	for (int i = 0; i < 10; i++)
		acc += (unsigned)tr_outer(i);
	printf("ready %u\n", acc & 1);
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
