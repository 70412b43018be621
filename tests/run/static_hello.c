/* SPDX-License-Identifier: MIT */
/* A statically linked program: the loader never runs, LD_PRELOAD cannot. */
#include <stdio.h>

int main(void)
{
	puts("static ok");
	return 0;
}
