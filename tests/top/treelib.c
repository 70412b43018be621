/* SPDX-License-Identifier: MIT */
/* treelib.c - see treelib.h. */
#include "toplib.h"
#include "treelib.h"

int tr_outer(int n)
{
	int acc = 0;

	for (int i = 0; i < TREELIB_INNER; i++)
		acc += tt_work(n + i);
	return acc;
}
