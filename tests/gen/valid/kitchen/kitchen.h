/* kitchen.h - prototypes exercising every form of the spec type grammar;
 * the generated shim must compile against them unchanged. */
#ifndef KITCHEN_H
#define KITCHEN_H

/* The spec's "defines" come before any header, as -D would. */
#if !defined(KITCHEN_DEFINED) || KITCHEN_DEFINED != 1 || KITCHEN_LEVEL != 2
#error "the spec's defines did not reach the header"
#endif
#ifndef KITCHEN_EMPTY
#error "KITCHEN_EMPTY= is not defined"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct k_pair {
	int a, b;
};
union k_num {
	long l;
	double d;
};
enum k_mode { K_A, K_B };
typedef struct k_pair *k_pairp;
typedef int (*k_cb)(void *ctx, int n);

unsigned long long k_ull(unsigned long long a, long double b, _Complex double c);
bool k_bool(bool a, _Bool b, signed char c, unsigned short d);
const char *k_str(const char *restrict s, char *const *argv);
struct k_pair k_pair(struct k_pair p, union k_num n, enum k_mode m);
union k_num k_union(void);
enum k_mode k_enum(enum k_mode m);
void k_void(void);
int k_array(char buf[16], int grid[4][4], const char name[]);
int k_funcptr(int (*cb)(void *, int), void *ctx, k_cb cb2, void (*done)(void));
void (*k_retfn(int sig, void (*handler)(int)))(int);
int (*k_retarr(void))[3];
k_pairp k_typedef(k_pairp p, size_t n, ssize_t m, off_t o);
float k_float(float f, double d, long double ld, float _Complex fc);
volatile int *k_volatile(volatile int *p, const volatile unsigned *q);
_Noreturn void k_exit(int code);
void k_abort(void) __attribute__((noreturn));
int k_printf(const char *fmt, ...);
int k_vprintf(const char *fmt, va_list ap);
int k_open(const char *path, int flags, ...);
long k_ctl(int fd, unsigned long req, ...);
long long k_ll(long long a, long int b, short int c, unsigned d, signed e);
char k_char(char c, unsigned char uc, int *restrict p, char **pp);
void *k_ptr(void **pp, const void *cp, void *(*alloc)(size_t));
int k_unnamed(int, int, const char *);

#endif
