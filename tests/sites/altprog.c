/* SPDX-License-Identifier: MIT */
/*
 * altprog.c - callers of siteb.b_leaf that take turns (issue 35.1's
 * parked run, apiprof_unpark), N rounds (argv[1]) of each phase:
 *   1. site_a, site_b: one call each, A B A B ... (roots);
 *   2. work_x, work_y: sitea.a_work from two sites by turns, each making
 *      5 b_leaf calls from one site in a_work: the same site of b_leaf
 *      in two paths of the call tree, by turns of 5;
 *   3. site_a, site_b, site_c: A B C A B C ... (three keys, more than a
 *      row parks: every call comes out of line).
 * So b_leaf's callers are site_a 2N, site_b 2N, site_c N and a_work 10N,
 * and its paths: roots at site_a, site_b, site_c, and 5N under each of
 * the two a_work roots.  With argv[2] "thread", in a thread that has
 * exited by the end.  Built with -g -O0.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sitelib.h"

__attribute__((noinline)) int site_a(int n)
{
	return b_leaf(n);
}

__attribute__((noinline)) int site_b(int n)
{
	return b_leaf(n);
}

__attribute__((noinline)) int site_c(int n)
{
	return b_leaf(n);
}

__attribute__((noinline)) int work_x(int n)
{
	return a_work(n);
}

__attribute__((noinline)) int work_y(int n)
{
	return a_work(n);
}

static void *run(void *arg)
{
	long n = *(long *)arg;
	unsigned acc = 0;

	for (int i = 0; i < n; i++)
		acc += (unsigned)(site_a(i) + site_b(i));
	for (int i = 0; i < n; i++)
		acc += (unsigned)(work_x(i) + work_y(i));
	for (int i = 0; i < n; i++)
		acc += (unsigned)(site_a(i) + site_b(i) + site_c(i));
	return (void *)(long)acc;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	pthread_t t;

	if (argc <= 2 || strcmp(argv[2], "thread") != 0)
		run(&n);
	else if (pthread_create(&t, NULL, run, &n) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	return 0;
}
