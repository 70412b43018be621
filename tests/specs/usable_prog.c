// SPDX-License-Identifier: MIT
/*
 * usable_prog.c - N rounds of malloc, malloc_usable_size and free, for
 * the malloc spec's malloc_usable_size row: exactly N calls.  Prints the
 * sum of the usable sizes, which must be the same under the shim.
 *
 *   usable_prog N
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	unsigned long long sum = 0;

	for (long i = 0; i < n; i++) {
		void *p = malloc((size_t)(i % 4096) + 1);
		if (p == NULL)
			return 1;
		sum += malloc_usable_size(p);
		free(p);
	}
	printf("%ld rounds, %llu usable bytes\n", n, sum);
	return 0;
}
