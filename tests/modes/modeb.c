/* SPDX-License-Identifier: MIT */
/* modeb.c - api "modeb" of the modes tests. */
#include "modelib.h"

int mb_call(int x)
{
	return x + 2;
}
