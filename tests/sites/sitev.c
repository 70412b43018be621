/* SPDX-License-Identifier: MIT */
/* sitev.c - api "sitev": sitea.c's a_work in two versions, SV_1 and SV_2
 * (the default), and once more under a C++ name, each calling b_leaf
 * SITE_LEAF_PER_WORK times.  Their wrappers in the shim are versioned
 * (.symver) or named by an asm label, whose own addresses the runtime's
 * table of wrappers must still know (apiprof_wrappers.c). */
#include "sitelib.h"

int sv_work_v1(int n);
int sv_work_v2(int n);
int sv_work_cxx(int n) __asm__("_ZN5sitev4workEi");

int sv_work_v1(int n)
{
	int acc = 1;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += b_leaf(n + i);
	return acc;
}

int sv_work_v2(int n)
{
	int acc = 2;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += b_leaf(n + i);
	return acc;
}

int sv_work_cxx(int n)
{
	int acc = 3;

	for (int i = 0; i < SITE_LEAF_PER_WORK; i++)
		acc += b_leaf(n + i);
	return acc;
}

__asm__(".symver sv_work_v1, a_work@SV_1, remove");
__asm__(".symver sv_work_v2, a_work@@SV_2, remove");
