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

__attribute__((noinline)) int site_a(void)
{
	int acc = 0;

	for (int i = 0; i < 1000; i++)
		acc += tt_work(i);
	return acc;
}

__attribute__((noinline)) int site_b(void)
{
	int acc = 0;

	for (int i = 0; i < 2000; i++)
		acc += tt_work(i);
	return acc;
}

__attribute__((noinline)) int site_c(void)
{
	int acc = 0;

	for (int i = 0; i < 3000; i++)
		acc += tt_work(i);
	return acc;
}

int main(void)
{
	int acc = site_a() + site_b() + site_c();

	for (int i = 0; i < 10; i++)
		acc += tr_outer(i);
	printf("ready %d\n", acc & 1);
	fflush(stdout);
	while (getchar() != EOF)
		;
	return 0;
}
