/* SPDX-License-Identifier: MIT */
/* apiprof_title.c - a cmdline made into a title (apiprof_title.h). */
#include "apiprof_title.h"

size_t apiprof_title_clean(char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\0')
			buf[i] = ' ';
		else if (c < 0x20 || c >= 0x7f)
			buf[i] = '?';
	}
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	return n;
}
