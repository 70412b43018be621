/* SPDX-License-Identifier: MIT */
/* difflib.c - see difflib.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "difflib.h"

static unsigned slow(const char *name)
{
	const char *s = getenv("DIFFLIB_SLOW");

	return s && (strcmp(s, name) == 0 || strcmp(s, "all") == 0) ? 2 : 1;
}

volatile unsigned long difflib_sink;

/* A chain of multiplications, each waiting for the last: a fixed time
 * per round (a loop on a volatile counter is not: stores and loads of
 * one address may be forwarded or not, 1 to 5 cycles a round). */
static void spin(unsigned rounds)
{
	unsigned long x = rounds;

	for (unsigned k = 0; k < rounds; k++) {
		x = x * 6364136223846793005ul + 1442695040888963407ul;
		__asm__ volatile("" : "+r"(x));
	}
	difflib_sink = x;
}

void dl_big(void)
{
	static unsigned f;

	if (f == 0)
		f = slow("dl_big");
	spin(4000 * f);
}

void dl_mid(void)
{
	static unsigned f;

	if (f == 0)
		f = slow("dl_mid");
	spin(1000 * f);
}

void dl_small(void)
{
	static unsigned f;

	if (f == 0)
		f = slow("dl_small");
	spin(250 * f);
}

int dl_try(int i)
{
	static int every;

	if (every == 0) {
		const char *s = getenv("DIFFLIB_FAIL");
		every = s && atoi(s) > 0 ? atoi(s) : 10;
	}
	if (i % every == every - 1) {
		errno = EAGAIN;
		return -1;
	}
	return 0;
}
