/* SPDX-License-Identifier: MIT */
/*
 * diffprog.c - the diff's test program (difflib.h): N rounds (argv[1],
 * default 2000) of dl_big, dl_mid, dl_small and dl_try.
 */
#include <stdlib.h>

#include "difflib.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000;

	for (int i = 0; i < n; i++) {
		dl_big();
		dl_mid();
		dl_small();
		dl_try(i);
	}
	return 0;
}
