/* SPDX-License-Identifier: MIT */
/* testlib.h - a library with functions of many signatures, for end-to-end
 * tests of generated shims.  Nothing here knows about apiprof. */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct tl_pair {
	int a;
	float b;
};

struct tl_big {
	long v[8];
	char tag[24];
};

int tl_add(int a, int b);
int tl_outer(int a); /* calls tl_add through the PLT: a nested call */
double tl_scale(double x, float f);
long double tl_ldmul(long double a, long double b);
uint64_t tl_mix(uint8_t a, int16_t b, uint32_t c, int64_t d, char e, _Bool f);
struct tl_pair tl_swap(struct tl_pair p);
struct tl_big tl_big_make(int seed);
void tl_fill(char *buf, size_t n, char c);
const char *tl_name(int i);
int tl_fail(int err);     /* sets errno = err and returns -1 */
int tl_keep_errno(int x); /* must leave errno alone */
int tl_apply(int (*cb)(int), int x);
int tl_sum(int n, ...);
int tl_vsum(int n, va_list ap);
int tl_div(int a, int b, int *rem); /* out-parameter */

#endif
