/* SPDX-License-Identifier: MIT */
/* sitea.c - see sitelib.h: a_work, a caller of another api. */
#include "sitelib.h"

int a_work(int n)
{
	int acc = 0;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += b_leaf(n + i);
	return acc;
}
