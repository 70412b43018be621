/* SPDX-License-Identifier: MIT */
/* symlate.c - a library sym_prog loads with dlopen after the resolver has
 * seen its mappings: its address is found after a new report. */
int symlate_fn(int x)
{
	return x + 1;
}
