/* SPDX-License-Identifier: MIT */
/* treeb.c - see treelib.h: tb_call. */
#include <stdlib.h>

#include "treelib.h"

void tb_call(void)
{
	for (int k = 0; k < TREE_B; k++)
		free(malloc(48));
}
