/* SPDX-License-Identifier: MIT */
/*
 * throwhost - a C program that dlopen()s throwprog's code built as a
 * plugin, with RTLD_LOCAL: libstdc++ and libgcc_s come into the plugin's
 * own scope, not the global one, as for a Python extension written in C++.
 *
 *   throwhost PLUGIN ARGS...   runs the plugin's throw_main(ARGS)
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	int (*run)(int, char **);

	if (h == NULL) {
		fprintf(stderr, "throwhost: %s\n", argc > 1 ? dlerror() : "no plugin");
		return 2;
	}
	*(void **)&run = dlsym(h, "throw_main");
	if (run == NULL) {
		fprintf(stderr, "throwhost: %s\n", dlerror());
		return 2;
	}
	return run(argc - 1, argv + 1);
}
