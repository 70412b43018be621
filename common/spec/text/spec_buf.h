/* SPDX-License-Identifier: MIT */
/*
 * spec_buf.h - a growable NUL-terminated string.
 *
 * The generator builds declarations piecewise (a declarator name is spliced
 * into the middle of a type), so it needs a string it can append to without
 * caring about sizes.  Allocation failure is fatal: the generator is a
 * short-lived command-line tool and has nothing sensible to fall back to.
 */
#ifndef SPEC_BUF_H
#define SPEC_BUF_H

#include <stddef.h>

struct spec_buf {
	char *s; /* always NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
};

void spec_buf_init(struct spec_buf *b);
void spec_buf_free(struct spec_buf *b);
void spec_buf_putn(struct spec_buf *b, const char *s, size_t n);
void spec_buf_puts(struct spec_buf *b, const char *s);
void spec_buf_putc(struct spec_buf *b, char c);
void spec_buf_printf(struct spec_buf *b, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
const char *spec_buf_str(const struct spec_buf *b);
char *spec_buf_steal(struct spec_buf *b);

void *spec_xmalloc(size_t n);
void *spec_xcalloc(size_t n, size_t size);
void *spec_xrealloc(void *p, size_t n, size_t size);
char *spec_xstrdup(const char *s);

#endif /* SPEC_BUF_H */
