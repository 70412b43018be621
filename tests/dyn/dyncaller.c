// SPDX-License-Identifier: MIT
/* dyncaller.c - a library that calls the api from inside, loaded only by
 * dlopen after start-up (dynbind.c). */
#include "testlib.h"

int dc_run(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += tl_add(i, 4);
	return s;
}
