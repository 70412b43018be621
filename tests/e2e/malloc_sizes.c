// SPDX-License-Identifier: MIT
/*
 * malloc_sizes - allocations of known sizes, and nothing else that
 * allocates (no stdio): 1000 x malloc(100), 3 x malloc(1 MiB), 10 x
 * calloc(10, 1000), 5 x realloc of a malloc(16) to 5000.  malloc_sizes.sh checks
 * the bytes and size histograms the malloc spec declares.
 */
#include <stdlib.h>

int main(void)
{
	static void *keep[1000];
	int bad = 0;

	for (int i = 0; i < 1000; i++)
		bad |= (keep[i] = malloc(100)) == NULL;
	for (int i = 0; i < 1000; i++)
		free(keep[i]);
	for (int i = 0; i < 3; i++) {
		void *p = malloc(1 << 20);
		bad |= p == NULL;
		free(p);
	}
	for (int i = 0; i < 10; i++) {
		void *p = calloc(10, 1000);
		bad |= p == NULL;
		free(p);
	}
	for (int i = 0; i < 5; i++) {
		void *p = malloc(16), *q = p ? realloc(p, 5000) : NULL;
		bad |= q == NULL;
		free(q ? q : p);
	}
	return bad;
}
