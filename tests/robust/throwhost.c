/* SPDX-License-Identifier: MIT */
/*
 * throwhost - a C program that dlopen()s throwprog's code built as a
 * plugin, with RTLD_LOCAL: libstdc++ and libgcc_s come into the plugin's
 * own scope, not the global one, as for a Python extension written in C++.
 *
 *   throwhost PLUGIN ARGS...   runs the plugin's throw_main(ARGS)
 *
 * Prints what dlerror() says before the dlopen and after the run: what
 * the runtime looked up must leave no error of its own there.
 */
#include <dlfcn.h>
#include <stdio.h>

static void say_dlerror(const char *when)
{
	const char *e = dlerror();

	printf("dlerror %s: %s\n", when, e ? e : "none");
}

int main(int argc, char **argv)
{
	int (*run)(int, char **);
	int st;

	say_dlerror("at start");
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;

	if (h == NULL) {
		fprintf(stderr, "throwhost: %s\n", argc > 1 ? dlerror() : "no plugin");
		return 2;
	}
	*(void **)&run = dlsym(h, "throw_main");
	if (run == NULL) {
		fprintf(stderr, "throwhost: %s\n", dlerror());
		return 2;
	}
	st = run(argc - 1, argv + 1);
	say_dlerror("after the run");
	return st;
}
