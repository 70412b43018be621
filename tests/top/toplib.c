/* SPDX-License-Identifier: MIT */
/* toplib.c - see toplib.h. */
#include <unistd.h>

#include "toplib.h"

int tt_work(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < 64; i++)
		acc += n * i;
	return acc;
}

void tt_idle(void)
{
}

int tt_wait(int fd)
{
	char c;

	return (int)read(fd, &c, 1);
}
