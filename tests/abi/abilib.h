/* SPDX-License-Identifier: MIT */
/*
 * abilib.h - a library of every kind of signature C APIs use, for the
 * differential ABI test (abi_diff.c) of generated shims.
 *
 * Every function is a pure function of its arguments (plus what it is told
 * to write), so a call through the shim and a call of the real function
 * with the same arguments must agree bit for bit.
 */
#ifndef ABILIB_H
#define ABILIB_H

#include <complex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ≤ 16 bytes: registers, in every INTEGER/SSE mix. */
struct ab_small { /* one INTEGER eightbyte holding an int and a float */
	int32_t a;
	float b;
};
struct ab_two { /* SSE + INTEGER */
	double d;
	int64_t i;
};
struct ab_ff { /* SSE, SSE */
	float a, b, c;
};
struct ab_arr { /* an array member: INTEGER, INTEGER */
	char name[12];
	int32_t n;
};
union ab_u {
	double d;
	int64_t i;
	char c[8];
};
/* > 16 bytes: memory. */
struct ab_big {
	int64_t a[5];
	double d;
};
struct ab_nested { /* 16 bytes with padding inside */
	struct ab_small s;
	char tag;
	short arr[3];
};
struct ab_ldt { /* long double: X87 class, memory */
	long double x;
	int tag;
};
struct __attribute__((packed)) ab_packed { /* 19 bytes, misaligned members */
	char c;
	int64_t x;
	int64_t y;
	int16_t z;
};

/* Scalars. */
int8_t ab_i8(int8_t a, int8_t b);
uint8_t ab_u8(uint8_t a, uint8_t b);
int16_t ab_i16(int16_t a, int16_t b);
uint16_t ab_u16(uint16_t a, uint16_t b);
int32_t ab_i32(int32_t a, int32_t b);
uint32_t ab_u32(uint32_t a, uint32_t b);
int64_t ab_i64(int64_t a, int64_t b);
uint64_t ab_u64(uint64_t a, uint64_t b);
char ab_char(char a, signed char b, unsigned char c);
bool ab_bool(bool a, bool b, int c);
short ab_short(short a, unsigned short b);
long ab_long(long a, unsigned long b);
long long ab_llong(long long a, unsigned long long b);
size_t ab_size(size_t a, ssize_t b);
ssize_t ab_ssize(ssize_t a, off_t b);
off_t ab_off(off_t a, int b);
float ab_float(float a, float b);
double ab_double(double a, double b);
long double ab_ldouble(long double a, long double b);
double complex ab_complex(double complex a, double b);
void *ab_ptr(void *p, size_t n);
double ab_mix(int8_t a, uint16_t b, int32_t c, uint64_t d, float e, double f, char g, bool h);

/* Out-parameters, memory, errno. */
int ab_div(int a, int b, int *rem);
void ab_fill(char *buf, size_t n, int c);
int ab_fail(int err);
int ab_keep(int x);
double ab_root(double x);

/* Callbacks. */
int ab_apply(int (*cb)(int, void *), void *ctx, int x);

/* Structs and unions by value. */
struct ab_small ab_small_op(struct ab_small a, struct ab_small b);
struct ab_two ab_two_op(struct ab_two a, int k);
struct ab_ff ab_ff_op(struct ab_ff a, float k);
struct ab_arr ab_arr_op(struct ab_arr a);
union ab_u ab_union_op(union ab_u a, int k);
struct ab_big ab_big_op(struct ab_big a, struct ab_big b);
struct ab_nested ab_nested_op(struct ab_nested a);
struct ab_ldt ab_ldt_op(struct ab_ldt a, long double k);
struct ab_packed ab_packed_op(struct ab_packed a, int k);

/* Arity. */
int ab_zero(void);
void ab_void(int *out, int x);
double ab_many(int a0, double a1, int8_t a2, float a3, int64_t a4, double a5, uint16_t a6, float a7,
               int32_t a8, double a9, uint64_t a10, float a11, char a12, double a13, int a14,
               float a15, long a16, double a17, short a18, long double a19);
uint64_t ab_many_int(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
                     uint64_t a6, uint64_t a7, uint64_t a8, uint64_t a9, uint64_t a10, uint64_t a11,
                     uint64_t a12, uint64_t a13, uint64_t a14, uint64_t a15, uint64_t a16,
                     uint64_t a17, uint64_t a18, uint64_t a19);
double ab_many_dbl(double a0, double a1, double a2, double a3, double a4, double a5, double a6,
                   double a7, double a8, double a9, double a10, double a11, double a12, double a13,
                   double a14, double a15, double a16, double a17, double a18, double a19);

/* noreturn. */
__attribute__((noreturn)) void ab_exit(int code);
__attribute__((noreturn)) void ab_longjmp(jmp_buf env, int v);

/* Variadic. */
#define AB_CTL_GET    1 /* no argument */
#define AB_CTL_SETINT 2 /* an int */
#define AB_CTL_SETPTR 3 /* a uint64_t * to write to */
int ab_fmt(char *out, size_t n, const char *fmt, ...);
int ab_vfmt(char *out, size_t n, const char *fmt, va_list ap);
int ab_open(const char *path, int flags, ...);
long ab_ctl(int fd, int cmd, ...);

/* Symbol versions: AB_2 (default) returns x + 2, the old AB_1 x + 1. */
int ab_ver(int x);

#endif /* ABILIB_H */
