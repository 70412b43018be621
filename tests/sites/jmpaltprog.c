/* SPDX-License-Identifier: MIT */
/*
 * jmpaltprog.c - callers of testlib.tl_apply that take turns, one of
 * whose calls never return: N rounds (argv[1]) of site_ret, whose
 * callback returns, then site_jump, whose callback jumps back out of
 * tl_apply (longjmp: the call is abandoned, counted with no time).  The
 * second caller's run is the one parked from the second round on (the
 * first switch to a new site parks nothing), so each of its calls is
 * timed where it is (APIPROF_CALL_PARKED) and each is abandoned:
 * tl_apply's callers are site_jump N and site_ret N.
 * Built with -g -O0.
 */
#include <setjmp.h>
#include <stdlib.h>

#include "testlib.h"

static jmp_buf env;

static int jump_out(int x)
{
	longjmp(env, x);
}

static int give_back(int x)
{
	return x;
}

__attribute__((noinline)) int site_jump(int n)
{
	int r = setjmp(env);

	if (r != 0)
		return r;
	return tl_apply(jump_out, n | 1);
}

__attribute__((noinline)) int site_ret(int n)
{
	return tl_apply(give_back, n);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += (unsigned)site_ret((int)i) + (unsigned)site_jump((int)i);
	return acc == 0; /* site_jump's are odd: never 0 */
}
