// SPDX-License-Identifier: MIT
/* A plugin built -fno-plt: its crc32 calls go through its GOT. */
#include <zlib.h>

__attribute__((visibility("default"))) uLong bindplug_run(int n)
{
	static const unsigned char buf[] = "a plugin opened late";
	uLong c = 0;

	for (int i = 0; i < n; i++)
		c = crc32(c, buf, sizeof(buf) - 1);
	return c;
}
