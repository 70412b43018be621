/* SPDX-License-Identifier: MIT */
/*
 * sitesprog.c - three call sites of one function (issue 23): site_a,
 * site_b and site_c call sl_work exactly 1000, 2000 and 3000 times K
 * (argv[1], default 1), each from one call instruction; with argv[2]
 * "thread", in a thread that has exited by the end; with "_exit", then
 * ends by _exit(0).  Built with -g
 * -O0 (and a stripped copy); the functions are not exported, so only the
 * debug information names them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sitelib.h"

__attribute__((noinline)) unsigned site_a(long n)
{
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += sl_work((int)i);
	return acc;
}

__attribute__((noinline)) unsigned site_b(long n)
{
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += sl_work((int)i);
	return acc;
}

__attribute__((noinline)) unsigned site_c(long n)
{
	unsigned acc = 0;

	for (long i = 0; i < n; i++)
		acc += sl_work((int)i);
	return acc;
}

static void *run(void *arg)
{
	long k = *(long *)arg;

	site_a(1000 * k);
	site_b(2000 * k);
	site_c(3000 * k);
	return NULL;
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1;
	pthread_t t;

	if (argc <= 2 || strcmp(argv[2], "thread") != 0)
		run(&k);
	else if (pthread_create(&t, NULL, run, &k) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	if (argc > 2 && strcmp(argv[2], "_exit") == 0)
		_exit(0);
	return 0;
}
