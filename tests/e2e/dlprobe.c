/* SPDX-License-Identifier: MIT */
/*
 * dlprobe - a program that uses zlib only if it is there, the way programs
 * probe for optional libraries: dlsym(RTLD_DEFAULT, "zlibVersion"), and,
 * with "load", again after dlopen("libz.so.1", RTLD_GLOBAL), calling what
 * it finds N times.  Not linked to libz.  Exits 3 when zlib is absent.
 *
 *   dlprobe N [load]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*version_fn)(void);

static int probe(int n)
{
	void *p = dlsym(RTLD_DEFAULT, "zlibVersion");
	const char *err = dlerror();
	const char *s = "";
	version_fn v;
	size_t len = 0;

	if (p == NULL) {
		/* glibc names the object the lookup was made from first */
		printf("absent%s\n", err && strstr(err, "undefined symbol: zlibVersion")
		                             ? ", undefined symbol"
		                             : "");
		return 3;
	}
	memcpy(&v, &p, sizeof(v));
	for (int i = 0; i < n; i++) {
		s = v();
		len += strlen(s);
	}
	printf("present: %s, %zu\n", s, len);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	int st = probe(n);

	if (argc > 2 && strcmp(argv[2], "load") == 0) {
		if (dlopen("libz.so.1", RTLD_NOW | RTLD_GLOBAL) == NULL) {
			fprintf(stderr, "dlprobe: %s\n", dlerror());
			return 2;
		}
		st = probe(n);
	}
	return st;
}
