/* SPDX-License-Identifier: MIT */
/*
 * dlplug - a plugin with state: dp_add counts its calls in a static
 * variable, which dp_state returns, and the constructor counts its runs in
 * the program's exported dlplug_ctor_runs (when there is one).  A copy that
 * really unloads comes back with the count at 0 and one more run.
 */
#include "dlplug.h"

extern int dlplug_ctor_runs __attribute__((weak));

static int calls;

__attribute__((constructor)) static void dlplug_init(void)
{
	if (&dlplug_ctor_runs != 0)
		dlplug_ctor_runs++;
}

int dp_add(int a, int b)
{
	calls++;
	return a + b;
}

int dp_state(void)
{
	return calls;
}
