/* SPDX-License-Identifier: MIT */
/* modea.c - api "modea" of the modes tests. */
#include <unistd.h>

#include "modelib.h"

int ma_call(int x)
{
	return x + 1;
}

size_t ma_put(size_t n)
{
	return n;
}

int ma_wait(int in_fd, int ack_fd)
{
	char c = 'e';

	if (write(ack_fd, &c, 1) != 1 || read(in_fd, &c, 1) != 1)
		return -1;
	return c;
}
