// SPDX-License-Identifier: MIT
/*
 * dynbind.c - every way a call can be bound, for dynamic mode:
 *
 *   dynbind CALLER_LIB now|lazy
 *
 * 100 calls of tl_add through this program's PLT (the build decides lazy
 * or -z now), 20 through dlsym(RTLD_DEFAULT), 30 through dlsym on the
 * library's handle, 40 from a library dlopen()ed now (CALLER_LIB, with
 * RTLD_NOW or RTLD_LAZY): 190 in all, on the main thread.  Prints a sum
 * that must not change under the profiler.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "testlib.h"

typedef int (*add_fn)(int, int);
typedef int (*run_fn)(int);

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (p == NULL)
		fprintf(stderr, "dynbind: %s: %s\n", name, dlerror());
	return p;
}

int main(int argc, char **argv)
{
	long sum = 0;
	add_fn f, g;
	run_fn run;
	void *p, *h, *c;

	if (argc != 3)
		return fprintf(stderr, "usage: dynbind CALLER_LIB now|lazy\n"), 2;
	for (int i = 0; i < 100; i++)
		sum += tl_add(i, 1);
	if ((p = sym(RTLD_DEFAULT, "tl_add")) == NULL)
		return 1;
	memcpy(&f, &p, sizeof(f));
	for (int i = 0; i < 20; i++)
		sum += f(i, 2);
	h = dlopen("libtestlib.so", RTLD_NOW | RTLD_NOLOAD);
	if (h == NULL || (p = sym(h, "tl_add")) == NULL)
		return 1;
	memcpy(&g, &p, sizeof(g));
	for (int i = 0; i < 30; i++)
		sum += g(i, 3);
	c = dlopen(argv[1], strcmp(argv[2], "now") == 0 ? RTLD_NOW : RTLD_LAZY);
	if (c == NULL || (p = sym(c, "dc_run")) == NULL)
		return fprintf(stderr, "dynbind: %s\n", dlerror()), 1;
	memcpy(&run, &p, sizeof(run));
	sum += run(40);
	printf("dynbind sum %ld\n", sum);
	return 0;
}
