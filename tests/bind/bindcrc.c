// SPDX-License-Identifier: MIT
/* bindcrc N: calls crc32 N times and prints the result.  Built -fno-plt
 * (the calls go through GOT entries filled by GLOB_DAT relocations), with
 * and without RELRO, and with -z now -z relro (the GOT read-only). */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char **argv)
{
	static const unsigned char buf[] = "apiprof binds every slot";
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	uLong c = 0;

	for (int i = 0; i < n; i++)
		c = crc32(c, buf, sizeof(buf) - 1);
	printf("%lu\n", c);
	return 0;
}
