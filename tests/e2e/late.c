/* SPDX-License-Identifier: MIT */
/*
 * late - dlopen()s a shim after start-up, as a plugin host might, then
 * calls through it: the runtime's TLS must come from glibc's static TLS
 * reserve.  The hogs are dlopen()ed first, each taking what it can of the
 * reserve (a hog that does not fit is skipped), so that after them
 * nothing of any size is left.
 *
 *   late SHIM N [HOG...]   prints "via: FILE" (the object tl_add was
 *                          found in), "spare: 0|1" (whether the runtime
 *                          took its TLS from libapiprof-tls.so) and
 *                          "late: SUM"
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int hogs;

static void hog(const char *path)
{
	if (dlopen(path, RTLD_NOW | RTLD_LOCAL) != NULL)
		hogs++;
}

int main(int argc, char **argv)
{
	void *h, *p;
	int (*add)(int, int);
	long s = 0;
	int n = argc > 2 ? atoi(argv[2]) : 10;
	Dl_info info;

	s += tl_add(1, 1); /* bound to the library before the shim exists */
	for (int i = 3; i < argc; i++)
		hog(argv[i]);
	if (argc > 3 && hogs == 0)
		return 3; /* the test would prove nothing */
	h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (h == NULL) {
		printf("late: %s\n", dlerror());
		return 1;
	}
	p = dlsym(h, "tl_add");
	if (p == NULL || dladdr(p, &info) == 0)
		return 2;
	memcpy(&add, &p, sizeof(add));
	for (int i = 0; i < n; i++)
		s += add(i, 1);
	printf("via: %s\n",
	       strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname);
	printf("spare: %d\n", dlopen("libapiprof-tls.so.0", RTLD_LAZY | RTLD_NOLOAD) != NULL);
	printf("late: %ld\n", s);
	return 0;
}
