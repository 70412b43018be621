// SPDX-License-Identifier: MIT
/* bindtab N: calls crc32 N times through libbindtab.so's table. */
#include <stdio.h>
#include <stdlib.h>

unsigned long bindtab_run(int n, int k);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;

	printf("%lu\n", bindtab_run(n, 0));
	return 0;
}
