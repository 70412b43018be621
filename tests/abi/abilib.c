// SPDX-License-Identifier: MIT
/*
 * abilib.c - the functions of abilib.h.  Integer arithmetic is done
 * unsigned so that no argument, however extreme, is undefined behaviour
 * (the test runs under UBSan too); results mix every argument so that a
 * lost or misplaced one shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abilib.h"

#define MIX(a, b) ((uint64_t)(a)*0x9e3779b97f4a7c15u + (uint64_t)(b))

int8_t ab_i8(int8_t a, int8_t b)
{
	return (int8_t)(uint8_t)MIX(a, b);
}
uint8_t ab_u8(uint8_t a, uint8_t b)
{
	return (uint8_t)MIX(a, b);
}
int16_t ab_i16(int16_t a, int16_t b)
{
	return (int16_t)(uint16_t)MIX(a, b);
}
uint16_t ab_u16(uint16_t a, uint16_t b)
{
	return (uint16_t)MIX(a, b);
}
int32_t ab_i32(int32_t a, int32_t b)
{
	return (int32_t)(uint32_t)MIX(a, b);
}
uint32_t ab_u32(uint32_t a, uint32_t b)
{
	return (uint32_t)MIX(a, b);
}
int64_t ab_i64(int64_t a, int64_t b)
{
	return (int64_t)MIX(a, b);
}
uint64_t ab_u64(uint64_t a, uint64_t b)
{
	return MIX(a, b);
}
char ab_char(char a, signed char b, unsigned char c)
{
	return (char)(uint8_t)MIX(MIX(a, b), c);
}
bool ab_bool(bool a, bool b, int c)
{
	return (a && !b) || (c & 1);
}
short ab_short(short a, unsigned short b)
{
	return (short)(uint16_t)MIX(a, b);
}
long ab_long(long a, unsigned long b)
{
	return (long)MIX(a, b);
}
long long ab_llong(long long a, unsigned long long b)
{
	return (long long)MIX(a, b);
}
size_t ab_size(size_t a, ssize_t b)
{
	return (size_t)MIX(a, b);
}
ssize_t ab_ssize(ssize_t a, off_t b)
{
	return (ssize_t)MIX(a, b);
}
off_t ab_off(off_t a, int b)
{
	return (off_t)MIX(a, b);
}
float ab_float(float a, float b)
{
	return a * b + 0.25f;
}
double ab_double(double a, double b)
{
	return a * b - a;
}
long double ab_ldouble(long double a, long double b)
{
	return a * b + 1.0L;
}
double complex ab_complex(double complex a, double b)
{
	return a * b + I * creal(a);
}
void *ab_ptr(void *p, size_t n)
{
	return (void *)((uintptr_t)p ^ n);
}
double ab_mix(int8_t a, uint16_t b, int32_t c, uint64_t d, float e, double f, char g, bool h)
{
	return (double)MIX(MIX(MIX(a, b), MIX(c, d)), MIX(g, h)) + (double)e * f;
}

int ab_div(int a, int b, int *rem)
{
	if (b == 0 || (a == INT32_MIN && b == -1)) {
		errno = EDOM;
		return -1;
	}
	if (rem != NULL)
		*rem = a % b;
	return a / b;
}
void ab_fill(char *buf, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)((unsigned)c + (unsigned)i);
}
int ab_fail(int err)
{
	errno = err;
	return -1;
}
int ab_keep(int x)
{
	return (int)(uint32_t)MIX(x, 1);
}
double ab_root(double x)
{
	if (x < 0) {
		errno = EDOM;
		return NAN;
	}
	return x / 2 + 1;
}

int ab_apply(int (*cb)(int, void *), void *ctx, int x)
{
	return (int)(uint32_t)MIX(cb(x, ctx), x);
}

struct ab_small ab_small_op(struct ab_small a, struct ab_small b)
{
	return (struct ab_small){(int32_t)(uint32_t)MIX(a.a, b.a), a.b * b.b};
}
struct ab_two ab_two_op(struct ab_two a, int k)
{
	return (struct ab_two){a.d * k, (int64_t)MIX(a.i, k)};
}
struct ab_ff ab_ff_op(struct ab_ff a, float k)
{
	return (struct ab_ff){a.b * k, a.c + k, a.a - k};
}
struct ab_arr ab_arr_op(struct ab_arr a)
{
	struct ab_arr r = {{0}, (int32_t)(uint32_t)MIX(a.n, a.name[0])};

	for (size_t i = 0; i < sizeof a.name; i++)
		r.name[i] = (char)(a.name[sizeof a.name - 1 - i] ^ (char)a.n);
	return r;
}
union ab_u ab_union_op(union ab_u a, int k)
{
	a.i = (int64_t)MIX(a.i, k);
	return a;
}
struct ab_big ab_big_op(struct ab_big a, struct ab_big b)
{
	struct ab_big r;

	for (int i = 0; i < 5; i++)
		r.a[i] = (int64_t)MIX(a.a[i], b.a[4 - i]);
	r.d = a.d + b.d;
	return r;
}
struct ab_nested ab_nested_op(struct ab_nested a)
{
	struct ab_nested r = {{(int32_t)((uint32_t)a.s.a + (uint32_t)(a.tag & 0xf)), a.s.b * 2},
	                      (char)~a.tag,
	                      {0}};

	for (int i = 0; i < 3; i++)
		r.arr[i] = (short)(uint16_t)MIX(a.arr[2 - i], i);
	return r;
}
struct ab_ldt ab_ldt_op(struct ab_ldt a, long double k)
{
	return (struct ab_ldt){a.x * k, (int)(uint32_t)MIX(a.tag, 3)};
}
struct ab_packed ab_packed_op(struct ab_packed a, int k)
{
	struct ab_packed r;

	r.c = (char)((unsigned)a.c + (unsigned)k);
	r.x = (int64_t)MIX(a.x, k);
	r.y = (int64_t)MIX(a.y, a.x);
	r.z = (int16_t)(uint16_t)MIX(a.z, k);
	return r;
}

int ab_zero(void)
{
	return 42;
}
void ab_void(int *out, int x)
{
	*out = (int)(uint32_t)MIX(x, 7);
}
double ab_many(int a0, double a1, int8_t a2, float a3, int64_t a4, double a5, uint16_t a6, float a7,
               int32_t a8, double a9, uint64_t a10, float a11, char a12, double a13, int a14,
               float a15, long a16, double a17, short a18, long double a19)
{
	uint64_t i = MIX(MIX(MIX(a0, a2), MIX(a4, a6)),
	                 MIX(MIX(a8, a10), MIX(MIX(a12, a14), MIX(a16, a18))));
	double f = a1 + 2 * a3 + 3 * a5 + 5 * a7 + 7 * a9 + 11 * a11 + 13 * a13 + 17 * a15 +
	           19 * a17 + 23 * (double)a19;

	return (double)(i >> 11) + f;
}
uint64_t ab_many_int(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5,
                     uint64_t a6, uint64_t a7, uint64_t a8, uint64_t a9, uint64_t a10, uint64_t a11,
                     uint64_t a12, uint64_t a13, uint64_t a14, uint64_t a15, uint64_t a16,
                     uint64_t a17, uint64_t a18, uint64_t a19)
{
	uint64_t v[] = {a0,  a1,  a2,  a3,  a4,  a5,  a6,  a7,  a8,  a9,
	                a10, a11, a12, a13, a14, a15, a16, a17, a18, a19};
	uint64_t h = 0;

	for (size_t i = 0; i < 20; i++)
		h = MIX(h, v[i]);
	return h;
}
double ab_many_dbl(double a0, double a1, double a2, double a3, double a4, double a5, double a6,
                   double a7, double a8, double a9, double a10, double a11, double a12, double a13,
                   double a14, double a15, double a16, double a17, double a18, double a19)
{
	double v[] = {a0,  a1,  a2,  a3,  a4,  a5,  a6,  a7,  a8,  a9,
	              a10, a11, a12, a13, a14, a15, a16, a17, a18, a19};
	double h = 0;

	for (size_t i = 0; i < 20; i++)
		h = h * 3 + v[i];
	return h;
}

void ab_exit(int code)
{
	exit(code);
}
void ab_longjmp(jmp_buf env, int v)
{
	longjmp(env, v);
}

/* Not ab_vfmt itself: a call through the PLT would reach the shim. */
static int fmt(char *out, size_t n, const char *f, va_list ap)
{
	return vsnprintf(out, n, f, ap);
}
int ab_vfmt(char *out, size_t n, const char *f, va_list ap)
{
	return fmt(out, n, f, ap);
}
int ab_fmt(char *out, size_t n, const char *f, ...)
{
	va_list ap;
	int r;

	va_start(ap, f);
	r = fmt(out, n, f, ap);
	va_end(ap);
	return r;
}

/* Like open: the mode is read only when the flags need one. */
int ab_open(const char *path, int flags, ...)
{
	unsigned mode = 0xffff;
	va_list ap;

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return (int)(uint32_t)MIX(MIX(path ? path[0] : -1, flags), mode);
}

/* Like fcntl: the argument is absent, an int or a pointer by command. */
long ab_ctl(int fd, int cmd, ...)
{
	uint64_t *p;
	va_list ap;
	long r;

	va_start(ap, cmd);
	if (cmd == AB_CTL_SETINT) {
		r = (long)MIX(fd, va_arg(ap, int));
	} else if (cmd == AB_CTL_SETPTR) {
		p = va_arg(ap, uint64_t *);
		*p = MIX(fd, *p);
		r = (long)((uintptr_t)p >> 32);
	} else if (cmd == AB_CTL_GET) {
		r = fd;
	} else {
		errno = EINVAL;
		r = -1;
	}
	va_end(ap);
	return r;
}

/* Two versions of one symbol; the library's version script declares
 * the nodes. */
int ab_ver_v1(int x);
int ab_ver_v2(int x);
int ab_ver_v1(int x)
{
	return (int)((unsigned)x + 1);
}
int ab_ver_v2(int x)
{
	return (int)((unsigned)x + 2);
}
__asm__(".symver ab_ver_v1, ab_ver@AB_1, remove");
__asm__(".symver ab_ver_v2, ab_ver@@AB_2, remove");
