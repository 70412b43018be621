/* SPDX-License-Identifier: MIT */
/*
 * jmpprog - a callback that jumps out of a profiled call, then calls from
 * a deeper frame than the abandoned one.
 *
 *   jmpprog longjmp|_longjmp|siglongjmp N
 *
 * First a tl_apply whose callback jumps within itself and then calls
 * tl_add (nested: not counted), and returns.  Then main calls tl_apply
 * with a callback that jumps back to main with the function named, which
 * abandons that tl_apply.  Then N calls of tl_add come from a function
 * with a large frame (deeper than the abandoned call's), and N more from
 * main itself.  So 2 calls of tl_apply (the second with no time) and 2N
 * of tl_add are outermost.  Built with _FORTIFY_SOURCE as jmpprog_chk,
 * longjmp is __longjmp_chk.  Prints the sum of the results.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static jmp_buf env;
static sigjmp_buf senv;
static const char *how;

static int jump_out(int x)
{
	if (strcmp(how, "_longjmp") == 0)
		_longjmp(env, x);
	if (strcmp(how, "siglongjmp") == 0)
		siglongjmp(senv, x);
	longjmp(env, x);
}

/* A jump that stays inside the call that made it. */
static __attribute__((noinline)) int jump_within(int x)
{
	static jmp_buf in;
	static sigjmp_buf sin;

	if (strcmp(how, "_longjmp") == 0) {
		if (_setjmp(in) == 0)
			_longjmp(in, 1);
	} else if (strcmp(how, "siglongjmp") == 0) {
		if (sigsetjmp(sin, 1) == 0)
			siglongjmp(sin, 1);
	} else if (setjmp(in) == 0) {
		longjmp(in, 1);
	}
	return tl_add(x, 1);
}

/* The pad puts the calls a few hundred bytes below main's frame. */
static __attribute__((noinline)) long deeper(long n)
{
	volatile char pad[512];
	long sum = 0;

	pad[0] = 1;
	for (long i = 0; i < n; i++)
		sum += tl_add((int)i, pad[0]);
	return sum;
}

/* The call to abandon; returns only if the callback does not jump. */
static __attribute__((noinline)) int abandon(void)
{
	int r;

	if (strcmp(how, "_longjmp") == 0)
		r = _setjmp(env);
	else if (strcmp(how, "siglongjmp") == 0)
		r = sigsetjmp(senv, 1);
	else
		r = setjmp(env);
	if (r != 0)
		return r;
	tl_apply(jump_out, 7);
	return 0;
}

int main(int argc, char **argv)
{
	long n, sum;

	if (argc != 3 || (n = atol(argv[2])) < 1)
		return 2;
	how = argv[1];
	sum = tl_apply(jump_within, 1);
	if (abandon() != 7) {
		fprintf(stderr, "jmpprog: the callback did not jump\n");
		return 3;
	}
	sum += deeper(n);
	for (long i = 0; i < n; i++)
		sum += tl_add((int)i, 2);
	printf("sum %ld\n", sum);
	return 0;
}
