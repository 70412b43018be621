/* SPDX-License-Identifier: MIT */
/* sitelib.c - see sitelib.h: sl_work. */
#include "sitelib.h"

int sl_work(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < 8; i++)
		acc += n * i;
	return acc;
}

int sl_spin(int n)
{
	volatile unsigned acc = 0;

	for (int i = 0; i < n; i++)
		acc += (unsigned)i;
	return (int)(acc & 0x7fffffff);
}
