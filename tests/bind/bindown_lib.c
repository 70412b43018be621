// SPDX-License-Identifier: MIT
/* A plugin that bundles its own crc32 and calls it through its PLT: opened
 * RTLD_DEEPBIND, its slot binds to its own copy, not to libz's.  The
 * engine must leave that slot alone (the program's output shows which
 * crc32 ran: this one counts up). */
#include <zlib.h>

__attribute__((visibility("default"))) uLong crc32(uLong crc, const Bytef *buf, uInt len)
{
	(void)buf;
	(void)len;
	return crc + 1;
}

__attribute__((visibility("default"))) uLong bindplug_run(int n)
{
	static const unsigned char buf[] = "its own crc32";
	uLong c = 0;

	for (int i = 0; i < n; i++)
		c = crc32(c, buf, sizeof(buf) - 1);
	return c;
}
