/* SPDX-License-Identifier: MIT */
/*
 * gen_buf.h - a growable NUL-terminated string.
 *
 * The generator builds declarations piecewise (a declarator name is spliced
 * into the middle of a type), so it needs a string it can append to without
 * caring about sizes.  Allocation failure is fatal: the generator is a
 * short-lived command-line tool and has nothing sensible to fall back to.
 */
#ifndef GEN_BUF_H
#define GEN_BUF_H

#include <stddef.h>

struct gen_buf {
	char *s; /* always NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
};

void gen_buf_init(struct gen_buf *b);
void gen_buf_free(struct gen_buf *b);
void gen_buf_putn(struct gen_buf *b, const char *s, size_t n);
void gen_buf_puts(struct gen_buf *b, const char *s);
void gen_buf_putc(struct gen_buf *b, char c);
void gen_buf_printf(struct gen_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *gen_buf_str(const struct gen_buf *b);
char *gen_buf_steal(struct gen_buf *b);

void *gen_xmalloc(size_t n);
void *gen_xcalloc(size_t n, size_t size);
void *gen_xrealloc(void *p, size_t n, size_t size);
char *gen_xstrdup(const char *s);

#endif /* GEN_BUF_H */
