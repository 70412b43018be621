/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "testlib.h"

int tl_add(int a, int b)
{
	return (int)((unsigned)a + (unsigned)b);
}

int tl_outer(int a)
{
	return tl_add(a, 1) * 2;
}

double tl_scale(double x, float f)
{
	return x * f;
}

long double tl_ldmul(long double a, long double b)
{
	return a * b;
}

uint64_t tl_mix(uint8_t a, int16_t b, uint32_t c, int64_t d, char e, _Bool f)
{
	return (uint64_t)a * 3 + (uint64_t)(int64_t)b * 5 + (uint64_t)c * 7 + (uint64_t)d * 11 +
	       (uint64_t)(unsigned char)e * 13 + (f ? 17u : 0u);
}

struct tl_pair tl_swap(struct tl_pair p)
{
	struct tl_pair r = {(int)p.b, (float)p.a};

	return r;
}

struct tl_big tl_big_make(int seed)
{
	struct tl_big b;

	for (int i = 0; i < 8; i++)
		b.v[i] = (long)seed * (i + 1);
	memset(b.tag, 0, sizeof(b.tag));
	memcpy(b.tag, "big", 3);
	b.tag[3] = (char)('a' + (seed & 15));
	return b;
}

void tl_fill(char *buf, size_t n, char c)
{
	memset(buf, c, n);
}

const char *tl_name(int i)
{
	static const char *const names[] = {"zero", "one", "two", "three"};

	return names[i & 3];
}

int tl_fail(int err)
{
	errno = err;
	return -1;
}

int tl_keep_errno(int x)
{
	return x + 1;
}

int tl_apply(int (*cb)(int), int x)
{
	return cb(x) + 1;
}

int tl_vsum(int n, va_list ap)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	return s;
}

int tl_sum(int n, ...)
{
	va_list ap;
	int s;

	va_start(ap, n);
	s = tl_vsum(n, ap);
	va_end(ap);
	return s;
}

int tl_div(int a, int b, int *rem)
{
	*rem = a % b;
	return a / b;
}
