/* SPDX-License-Identifier: MIT */
/*
 * bootlib - a library whose constructor uses malloc and open before the
 * runtime's own constructor has run: priority 101 runs before every
 * default-priority constructor of the same object, and the driver also
 * preloads it ahead of the shims, so the loader runs it first.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootlib.h"

int bootlib_result = -1;

__attribute__((constructor(101))) static void bootlib_early(void)
{
	char *p = calloc(1, 1);
	char *q = malloc(100);
	int fd = open("/dev/null", O_RDONLY);
	char c;

	bootlib_result = p != NULL && *p == 0 && q != NULL && fd >= 0 && read(fd, &c, 1) == 0;
	if (q != NULL)
		memset(q, 'x', 100);
	if (fd >= 0)
		close(fd);
	free(q);
	free(p);
}
