/* SPDX-License-Identifier: MIT */
/* treelib.c - see treelib.h. */
#include "toplib.h"
#include "treelib.h"

int tr_outer(int n)
{
	unsigned acc = 0;

	for (int i = 0; i < TREELIB_INNER; i++)
		acc += (unsigned)tt_work(n + i);
	return (int)(acc & 0x7fffffff);
}
