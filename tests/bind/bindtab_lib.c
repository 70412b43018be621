// SPDX-License-Identifier: MIT
/* A table of function pointers filled at load time: R_X86_64_64
 * relocations to crc32 and adler32 in .data.rel.ro, which -z now -z relro
 * makes read-only.  The index is read from memory, so the compiler
 * cannot turn the table's calls into direct ones. */
#include <zlib.h>

typedef uLong (*bindtab_fn)(uLong, const Bytef *, uInt);

static bindtab_fn const table[] = {crc32, adler32};

__attribute__((visibility("default"))) uLong bindtab_run(int n, int k)
{
	static const unsigned char buf[] = "a table of handlers";
	volatile int which = k;
	uLong c = 0;

	for (int i = 0; i < n; i++)
		c = table[which](c, buf, sizeof(buf) - 1);
	return c;
}
