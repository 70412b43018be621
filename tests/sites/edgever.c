/* SPDX-License-Identifier: MIT */
/*
 * edgever.c - edgeprog.c through versioned and asm-labelled wrappers: main
 * calls a_work of libsitev.so at both its versions, SV_2 (the default) and
 * SV_1, and its C++-named copy, N times each (argv[1], default 100), each
 * call making SITE_LEAF_PER_WORK calls of b_leaf (api siteb); then b_leaf
 * itself 7 times.
 */
#include <stdlib.h>

#include "sitelib.h"

int a_work_at1(int n);
__asm__(".symver a_work_at1, a_work@SV_1");
int a_work_cxx(int n) __asm__("_ZN5sitev4workEi");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	unsigned acc = 0;

	for (long i = 0; i < n; i++) {
		acc += (unsigned)a_work((int)i);
		acc += (unsigned)a_work_at1((int)i);
		acc += (unsigned)a_work_cxx((int)i);
	}
	for (int i = 0; i < 7; i++)
		acc += (unsigned)b_leaf(i);
	return acc == 42 ? 1 : 0;
}
