/* SPDX-License-Identifier: MIT */
/* treer.c - see treelib.h: tr_root and tr_close. */
#include <stdlib.h>

#include "treelib.h"

void tr_root(void)
{
	ta_one();
	ta_two();
}

void tr_close(void)
{
	free(malloc(24));
}
