// SPDX-License-Identifier: MIT
/*
 * tl_prog - calls tl.h's functions a known number of times and prints
 * what they returned, so that a run under the shim of the imported spec
 * can be compared with a bare run: same output, exact counts.
 */
#include <stdio.h>

#include "tl.h"

/* tl_old is called on purpose: deprecated functions are profiled too. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int add(void *ctx, int n)
{
	*(int *)ctx += n;
	return n;
}

int main(void)
{
	struct tl_pair p = {1, 2.5};
	struct tl_outer o = {{{1, 0.5}, {2, 0.25}}, "tag"};
	tl_num a = {.i = 40}, b = {.i = 2};
	int v[3] = {1, 2, 3}, sum = 0;

	for (int i = 0; i < 3; i++)
		p = tl_swap(p);
	printf("swap %d %g\n", p.a, p.b);
	printf("num %ld\n", tl_num_add(a, b).i);
	printf("outer %g\n", tl_outer_sum(o));
	printf("each %d %d\n", tl_each(v, 3, add, &sum), sum);
	fflush(stdout);
	tl_printf("printf %d %s\n", 7, "x");
	tl_printf("printf %g\n", 1.5);
	fflush(stdout);
	printf("open %d %d\n", tl_open("f"), tl_open_ro("g", 2, "1.0"));
	printf("old %d\n", tl_old(4));
	printf("wide %d\n", (int)tl_wide(21));
	tl_log(0, "%s", "");
	return 0;
}
