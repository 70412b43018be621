// SPDX-License-Identifier: MIT
/*
 * spec_buf.c - growable strings and checked allocation.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"

static void spec_oom(void)
{
	fputs("apiprof-gen: out of memory\n", stderr);
	exit(1);
}

void *spec_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		spec_oom();
	return p;
}

/* realloc(p, n * size), dying on overflow or exhaustion like the others. */
void *spec_xrealloc(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		spec_oom();
	p = realloc(p, n != 0 && size != 0 ? n * size : 1);
	if (p == NULL)
		spec_oom();
	return p;
}

void *spec_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		spec_oom();
	return p;
}

char *spec_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(spec_xmalloc(n), s, n);
}

void spec_buf_init(struct spec_buf *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void spec_buf_free(struct spec_buf *b)
{
	free(b->s);
	spec_buf_init(b);
}

static void spec_buf_reserve(struct spec_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (need < b->len)
		spec_oom();
	b->cap = need < 64 ? 64 : need * 2;
	char *s = realloc(b->s, b->cap);
	if (s == NULL)
		spec_oom();
	b->s = s;
}

void spec_buf_putn(struct spec_buf *b, const char *s, size_t n)
{
	spec_buf_reserve(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void spec_buf_puts(struct spec_buf *b, const char *s)
{
	spec_buf_putn(b, s, strlen(s));
}

void spec_buf_putc(struct spec_buf *b, char c)
{
	spec_buf_putn(b, &c, 1);
}

void spec_buf_printf(struct spec_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		spec_oom();
	spec_buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Never NULL, so callers can print an empty buffer. */
const char *spec_buf_str(const struct spec_buf *b)
{
	return b->s ? b->s : "";
}

char *spec_buf_steal(struct spec_buf *b)
{
	char *s = b->s ? b->s : spec_xstrdup("");

	spec_buf_init(b);
	return s;
}
