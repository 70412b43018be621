/* SPDX-License-Identifier: MIT */
/*
 * tl.h - a small header for the importer's golden test: every case
 * `apiprof-gen import` must handle, in one place (tl.c implements it).
 */
#ifndef TL_H
#define TL_H

#include <stdarg.h>
#include <stddef.h>

/* Structs and unions by value, one inside another, a bit-field. */
struct tl_pair {
	int a;
	double b;
};
typedef union tl_num {
	long i;
	double d;
	unsigned flags : 3;
} tl_num;
struct tl_outer {
	struct tl_pair p[2];
	char tag[8];
	unsigned : 4;
};

struct tl_pair tl_swap(struct tl_pair p);
tl_num tl_num_add(tl_num a, tl_num b);
double tl_outer_sum(struct tl_outer o);
/* Passed by pointer: no layout needed. */
void tl_pair_clear(struct tl_pair *p);

/* Callbacks, through a typedef and spelled out. */
typedef int (*tl_cb)(void *ctx, int n);
int tl_each(const int *v, size_t n, tl_cb cb, void *ctx);
int tl_each_key(int (*cb)(const char *key, void *ctx), void *ctx);

/* Typedefs and enums by value: the spec records their canonical and
 * integer types for dynamic mode (a wide enum is not an int). */
typedef unsigned char tl_byte;
enum tl_big { TL_SMALL, TL_BIG = 0x100000000 };
typedef enum tl_big tl_big_t;
tl_byte tl_sum(const tl_byte *p, size_t n, enum tl_big e, tl_big_t f);

/* Variadic with a va_list twin, and without one. */
int tl_printf(const char *fmt, ...);
int tl_vprintf(const char *fmt, va_list ap);
int tl_log(int level, const char *fmt, ...);

/* Macros over the real entry points. */
int tl_open_(const char *path, int flags, const char *version);
#define tl_open(p) tl_open_((p), 0, "1.0")
#define tl_open_ro tl_open_
#define TL_VERSION "1.0"

/* Deprecated, both spellings. */
__attribute__((deprecated)) int tl_old(int x);
__attribute__((deprecated("use tl_swap"))) int tl_older(int x);

/* noreturn, both spellings. */
_Noreturn void tl_die(const char *why);
void tl_abort(void) __attribute__((noreturn));

/* No exported entry point: skipped. */
static inline int tl_inline_add(int a, int b)
{
	return a + b;
}
__attribute__((unused)) static int tl_static(int x)
{
	return -x;
}

/* Declared but not in the library. */
int tl_unexported(int x);

/* Types a spec cannot write, and no prototype: kept, marked unsupported. */
enum { TL_A, TL_B } tl_mode(void);
int tl_noproto();

/* Not a keyword of the spec grammar but a GNU C type: forwarded as is. */
__int128 tl_wide(__int128 x);

#endif /* TL_H */
