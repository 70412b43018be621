// SPDX-License-Identifier: MIT
/* A plugin built -fno-plt: its crc32 calls go through its GOT.  Built
 * again with a PLT, lazily bound, as bindlazy_run (BINDPLUG_RUN). */
#include <zlib.h>

#ifndef BINDPLUG_RUN
#define BINDPLUG_RUN bindplug_run
#endif

__attribute__((visibility("default"))) uLong BINDPLUG_RUN(int n)
{
	static const unsigned char buf[] = "a plugin opened late";
	uLong c = 0;

	for (int i = 0; i < n; i++)
		c = crc32(c, buf, sizeof(buf) - 1);
	return c;
}
