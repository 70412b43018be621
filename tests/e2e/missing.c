/* SPDX-License-Identifier: MIT */
/*
 * missing - calls functions a shim wraps but no library defines.  The shim
 * must not jump to NULL: each call fails with ENOSYS (-1 or NULL), and the
 * warning is printed once per function, however many calls are made.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

#include "testlib.h"

int main(void)
{
	void *p = dlsym(RTLD_DEFAULT, "tl_gone");
	void *q = dlsym(RTLD_DEFAULT, "tl_gone_ptr");
	int (*gone)(int);
	const char *(*gone_ptr)(void);
	int bad = 0;

	if (p == NULL || q == NULL) {
		fprintf(stderr, "missing: no shim preloaded\n");
		return 2;
	}
	*(void **)&gone = p;
	*(void **)&gone_ptr = q;
	for (int i = 0; i < 3; i++) {
		errno = 0;
		bad += gone(i) != -1 || errno != ENOSYS;
		errno = 0;
		bad += gone_ptr() != NULL || errno != ENOSYS;
	}
	bad += tl_add(2, 3) != 5; /* the rest of the spec still works */
	printf("missing: %d bad results\n", bad);
	return bad != 0;
}
