// SPDX-License-Identifier: MIT
/*
 * gen_buf.c - growable strings and checked allocation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gen_buf.h"

static void gen_oom(void)
{
	fputs("apiprof-gen: out of memory\n", stderr);
	exit(1);
}

void *gen_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		gen_oom();
	return p;
}

/* realloc(p, n * size), dying on overflow or exhaustion like the others. */
void *gen_xrealloc(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		gen_oom();
	p = realloc(p, n != 0 && size != 0 ? n * size : 1);
	if (p == NULL)
		gen_oom();
	return p;
}

void *gen_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		gen_oom();
	return p;
}

char *gen_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(gen_xmalloc(n), s, n);
}

void gen_buf_init(struct gen_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void gen_buf_free(struct gen_buf *b)
{
	free(b->s);
	gen_buf_init(b);
}

static void gen_buf_reserve(struct gen_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	char *s;

	if (need <= b->cap)
		return;
	if (need < b->len)
		gen_oom();
	b->cap = need < 64 ? 64 : need * 2;
	s = realloc(b->s, b->cap);
	if (s == NULL)
		gen_oom();
	b->s = s;
}

void gen_buf_putn(struct gen_buf *b, const char *s, size_t n)
{
	gen_buf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void gen_buf_puts(struct gen_buf *b, const char *s)
{
	gen_buf_putn(b, s, strlen(s));
}

void gen_buf_putc(struct gen_buf *b, char c)
{
	gen_buf_putn(b, &c, 1);
}

void gen_buf_printf(struct gen_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		gen_oom();
	gen_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Never NULL, so callers can print an empty buffer. */
const char *gen_buf_str(const struct gen_buf *b)
{
	return b->s ? b->s : "";
}

char *gen_buf_steal(struct gen_buf *b)
{
	char *s = b->s ? b->s : gen_xstrdup("");

	gen_buf_init(b);
	return s;
}
