/* SPDX-License-Identifier: MIT */
/*
 * dlhandle - reaches libtestlib only through dlopen: by name, so that only
 * this program's RUNPATH ($ORIGIN) can find it, with RTLD_LOCAL, then calls
 * through dlsym(handle) and dlsym(RTLD_DEFAULT) (which finds the function
 * only when a shim exports it).  Prints the results; the
 * counts are checked in APIPROF_OUTPUT.
 *
 *   dlhandle N [deepbind]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*add_fn)(int, int);

static add_fn lookup(void *h, const char *name, int optional)
{
	add_fn f;
	void *p = dlsym(h, name);

	if (p == NULL && optional)
		return NULL;
	if (p == NULL) {
		fprintf(stderr, "dlhandle: %s: %s\n", name, dlerror());
		exit(1);
	}
	memcpy(&f, &p, sizeof(f));
	return f;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int flags = RTLD_NOW | RTLD_LOCAL;
	void *h;
	add_fn by_handle, by_default;
	long s = 0;

	if (argc > 2 && strcmp(argv[2], "deepbind") == 0)
		flags |= RTLD_DEEPBIND;
	h = dlopen("libtestlib.so", flags);
	if (h == NULL) {
		fprintf(stderr, "dlhandle: %s\n", dlerror());
		return 1;
	}
	by_handle = lookup(h, "tl_add", 0);
	/* Without a shim the RTLD_LOCAL library is not in the global scope. */
	by_default = lookup(RTLD_DEFAULT, "tl_add", 1);
	if (by_default == NULL)
		by_default = by_handle;
	for (int i = 0; i < n; i++)
		s += by_handle(i, 1);
	for (int i = 0; i < n; i++)
		s += by_default(i, 2);
	printf("dlhandle: %ld\n", s);
	return dlclose(h) != 0;
}
