/* SPDX-License-Identifier: MIT */
/* sitea.c - see sitelib.h: a_work, a_mix and a_two, callers of another api. */
#include "sitelib.h"

int a_work(int n)
{
	int acc = 0;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += b_leaf(n + i);
	return acc;
}

/* not a tail call: the return address into b_leaf's wrapper is a_leaf's */
__attribute__((noinline)) int a_leaf(int n)
{
	return b_leaf(n) ^ 1;
}

int a_mix(int n)
{
	int acc = 0;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += a_leaf(n + i);
	return acc;
}

/* two children of known counts */
int a_two(int n)
{
	int acc = 0;

	for (int i = 0; i < SITE_TWO_LEAF; i++)
		acc += b_leaf(n + i);
	for (int i = 0; i < SITE_TWO_TWIG; i++)
		acc += b_twig(n + i);
	return acc;
}

/* A tail call (issue 35.3): b_leaf returns straight to a_tail's caller,
 * which is a_tail's wrapper in the shim when sitea is profiled.  In
 * assembly, so that it is one whatever the build's optimization. */
__attribute__((naked)) int a_tail(__attribute__((unused)) int n)
{
	__asm__("addl $1, %edi\n\t"
	        "jmp b_leaf@PLT");
}
