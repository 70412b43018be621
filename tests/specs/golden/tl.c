// SPDX-License-Identifier: MIT
/*
 * tl.c - the library behind tl.h, for the importer's golden test.  It also
 * exports tl_hidden, which tl.h does not declare.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tl.h"

struct tl_pair tl_swap(struct tl_pair p)
{
	return (struct tl_pair){.a = (int)p.b, .b = p.a};
}

tl_num tl_num_add(tl_num a, tl_num b)
{
	return (tl_num){.i = a.i + b.i};
}

double tl_outer_sum(struct tl_outer o)
{
	return o.p[0].a + o.p[0].b + o.p[1].a + o.p[1].b;
}

tl_byte tl_sum(const tl_byte *p, size_t n, enum tl_big e, tl_big_t f)
{
	tl_byte s = (tl_byte)(e == TL_BIG) + (tl_byte)(f == TL_BIG);

	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

void tl_pair_clear(struct tl_pair *p)
{
	p->a = 0;
	p->b = 0;
}

int tl_each(const int *v, size_t n, tl_cb cb, void *ctx)
{
	int sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += cb(ctx, v[i]);
	return sum;
}

int tl_each_key(int (*cb)(const char *key, void *ctx), void *ctx)
{
	return cb("k", ctx);
}

int tl_vprintf(const char *fmt, va_list ap)
{
	return vprintf(fmt, ap);
}

int tl_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = tl_vprintf(fmt, ap);
	va_end(ap);
	return n;
}

int tl_log(int level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = level + vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

int tl_open_(const char *path, int flags, const char *version)
{
	return path != NULL && version != NULL ? flags : -1;
}

int tl_old(int x)
{
	return x;
}

int tl_older(int x)
{
	return x + 1;
}

void tl_die(const char *why)
{
	fputs(why, stderr);
	exit(3);
}

void tl_abort(void)
{
	abort();
}

__int128 tl_wide(__int128 x)
{
	return x * 2;
}

int tl_noproto()
{
	return 7;
}

/* The header's anonymous enum, named the only way C can. */
__typeof__(tl_mode()) tl_mode(void)
{
	return TL_B;
}

int tl_hidden(int x);
int tl_hidden(int x)
{
	return x;
}
