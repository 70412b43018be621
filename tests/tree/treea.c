/* SPDX-License-Identifier: MIT */
/* treea.c - see treelib.h: ta_one and ta_two. */
#include <stdlib.h>

#include "treelib.h"

/* one call site of malloc each (built without optimisation) */
#define ALLOC4(p, k)                                                                               \
	do {                                                                                       \
		(p)[(k)] = malloc(16);                                                             \
		(p)[(k) + 1] = malloc(16);                                                         \
		(p)[(k) + 2] = malloc(16);                                                         \
		(p)[(k) + 3] = malloc(16);                                                         \
	} while (0)

void ta_one(void)
{
	void *p[TREE_ONE_SITES];

	_Static_assert(TREE_ONE_SITES == 20 && TREE_ONE % TREE_ONE_SITES == 0, "20 sites");
	for (int r = 0; r < TREE_ONE / TREE_ONE_SITES; r++) {
		ALLOC4(p, 0);
		ALLOC4(p, 4);
		ALLOC4(p, 8);
		ALLOC4(p, 12);
		ALLOC4(p, 16);
		for (int k = 0; k < TREE_ONE_SITES; k++)
			free(p[k]);
	}
	tb_call();
}

void ta_two(void)
{
	for (int k = 0; k < TREE_TWO; k++)
		free(malloc(32));
}
