/* SPDX-License-Identifier: MIT */
/* siteb.c - see sitelib.h: b_leaf and b_twig. */
#include "sitelib.h"

int b_leaf(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < 16; i++)
		acc += n ^ i;
	return acc;
}

int b_twig(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < 32; i++)
		acc += n ^ i;
	return acc;
}
