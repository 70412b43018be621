/* SPDX-License-Identifier: MIT */
/*
 * late - dlopen()s a shim after start-up, as a plugin host might, then
 * calls through it: the shim's initial-exec TLS must come from glibc's
 * static TLS reserve.
 *
 *   late SHIM N
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

int main(int argc, char **argv)
{
	void *h, *p;
	int (*add)(int, int);
	long s = 0;
	int n = argc > 2 ? atoi(argv[2]) : 10;

	s += tl_add(1, 1); /* bound to the library before the shim exists */
	h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		printf("late: %s\n", dlerror());
		return 1;
	}
	p = dlsym(h, "tl_add");
	if (p == NULL)
		return 2;
	memcpy(&add, &p, sizeof(add));
	for (int i = 0; i < n; i++)
		s += add(i, 1);
	printf("late: %ld\n", s);
	return 0;
}
