// SPDX-License-Identifier: MIT
/*
 * failsprog [wait] - every "fails" rule at its boundary values, and every
 * errno the runtime names (issue 34, points 19 and 20), through failslib.
 *
 * The cases are a table: each function of fails.json with the values it
 * is given and whether its rule calls that a failure.  The i-th value of
 * a function is passed 2^i times, so a function's failure count says
 * exactly which of its values were judged failures.  fl_errno fails with
 * the errno of slot k of apiprof_errno_values k times, and with two values
 * the table does not know ("other") 12 and 13 times.  It prints one line
 * a case ("case FUNCTION WEIGHT fail|ok VALUE RESULT"), one an errno name
 * ("errno NAME COUNT"), and the results and errno it got, which must be
 * the same bare and under the shim.  With "wait" it then prints "ready"
 * and lives until its stdin closes.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apiprof_abi.h"
#include "failslib.h"

typedef unsigned long long u64;

#define CALL(fn, type)                                                                             \
	static u64 call_##fn(u64 v)                                                                \
	{                                                                                          \
		return (u64)fn((type)v);                                                           \
	}
CALL(fl_neg_int, int)
CALL(fl_neg_long, long)
CALL(fl_nonpos_int, int)
CALL(fl_nonpos_long, long)
CALL(fl_nonpos_short, short)
CALL(fl_m1_int, int)
CALL(fl_m1_short, short)
CALL(fl_m1_uint, unsigned)
CALL(fl_m1_ushort, unsigned short)
CALL(fl_m1_size, size_t)
CALL(fl_zero_int, int)
CALL(fl_zero_ulong, unsigned long)
CALL(fl_nonzero_int, int)
CALL(fl_nonzero_ulong, unsigned long)
CALL(fl_not_int, int)
CALL(fl_not_long, long)
CALL(fl_not_uchar, unsigned char)

static u64 call_fl_null(u64 v)
{
	return (u64)(uintptr_t)fl_null((void *)(uintptr_t)v);
}

#define MAXV 7
struct value {
	const char *text;
	u64 v;
	bool fails;
};
struct fcase {
	const char *name;
	u64 (*call)(u64 v);
	struct value vals[MAXV]; /* up to the first with text NULL */
};

#define V(x, f)                                                                                    \
	{                                                                                          \
		.text = #x, .v = (u64)(x), .fails = f                                              \
	}
#define F(fn) #fn, call_##fn
static const struct fcase cases[] = {
        {F(fl_neg_int), {V(INT_MIN, 1), V(-1, 1), V(0, 0), V(1, 0), V(INT_MAX, 0)}},
        {F(fl_neg_long), {V(LONG_MIN, 1), V(-1, 1), V(0, 0), V(LONG_MAX, 0), V(UINT_MAX, 0)}},
        {F(fl_nonpos_int), {V(INT_MIN, 1), V(-1, 1), V(0, 1), V(1, 0), V(INT_MAX, 0)}},
        {F(fl_nonpos_long), {V(LONG_MIN, 1), V(0, 1), V(1, 0), V(LONG_MAX, 0), V(UINT_MAX, 0)}},
        {F(fl_nonpos_short), {V(SHRT_MIN, 1), V(-1, 1), V(0, 1), V(1, 0), V(SHRT_MAX, 0)}},
        {F(fl_m1_int), {V(-1, 1), V(-2, 0), V(0, 0), V(1, 0), V(INT_MIN, 0), V(INT_MAX, 0)}},
        {F(fl_m1_short), {V(-1, 1), V(0, 0), V(SHRT_MIN, 0), V(SHRT_MAX, 0)}},
        {F(fl_m1_uint), {V(UINT_MAX, 1), V(UINT_MAX - 1, 0), V(0, 0), V(1, 0)}},
        {F(fl_m1_ushort), {V(USHRT_MAX, 1), V(USHRT_MAX - 1, 0), V(0, 0), V(1, 0)}},
        {F(fl_m1_size), {V(SIZE_MAX, 1), V(SIZE_MAX - 1, 0), V(UINT_MAX, 0), V(0, 0)}},
        {F(fl_null), {V(0, 1), V(1, 0), V(UINTPTR_MAX, 0)}},
        {F(fl_zero_int), {V(0, 1), V(1, 0), V(-1, 0), V(INT_MIN, 0)}},
        {F(fl_zero_ulong), {V(0, 1), V(1, 0), V(ULONG_MAX, 0), V(1UL << 32, 0)}},
        {F(fl_nonzero_int), {V(0, 0), V(1, 1), V(-1, 1), V(INT_MIN, 1)}},
        {F(fl_nonzero_ulong), {V(0, 0), V(1UL << 32, 1), V(ULONG_MAX, 1)}},
        {F(fl_not_int), {V(0, 0), V(100, 0), V(101, 0), V(-1, 1), V(1, 1), V(99, 1), V(102, 1)}},
        {F(fl_not_long), {V(-1, 0), V(0, 0), V(1, 1), V(-2, 1), V(UINT_MAX, 1)}},
        {F(fl_not_uchar), {V(0, 0), V(255, 0), V(1, 1), V(254, 1)}},
};

static void run_case(const struct fcase *c)
{
	for (int i = 0; i < MAXV && c->vals[i].text; i++) {
		const struct value *v = &c->vals[i];
		u64 r = 0;

		for (int k = 0; k < 1 << i; k++)
			r = c->call(v->v);
		printf("case %s %d %s %s %llu\n", c->name, 1 << i, v->fails ? "fail" : "ok",
		       v->text, r);
	}
}

/* n failures of fl_errno with errno e: errno as it left it each time. */
static int fail_with(int e, int n)
{
	int wrong = 0;

	for (int k = 0; k < n; k++) {
		errno = 0;
		wrong += fl_errno(e) != -1 || errno != e;
	}
	return wrong;
}

static bool in_table(int e)
{
	for (int k = 1; k < APIPROF_ERRNO_SLOTS; k++)
		if (apiprof_errno_values[k] == e)
			return true;
	return false;
}

/* Slot k's errno k times, by its name; two others 12 and 13 times. */
static int errnos(void)
{
	int wrong = 0, others = 0;

	for (int k = 1; k < APIPROF_ERRNO_SLOTS; k++) {
		int e = apiprof_errno_values[k];
		const char *name = strerrorname_np(e);

		for (int j = 1; j < k; j++)
			wrong += apiprof_errno_values[j] == e; /* each once */
		wrong += fail_with(e, k);
		printf("errno %s %d\n", name ? name : "(unnamed)", k);
	}
	for (int e = 1; others < 2; e++)
		if (!in_table(e))
			wrong += fail_with(e, 12 + others++);
	printf("errno other 25\n");
	return wrong;
}

int main(int argc, char **argv)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		run_case(&cases[i]);
	int wrong = errnos();
	printf("wrong %d\n", wrong);
	if (argc == 2 && strcmp(argv[1], "wait") == 0) { /* a viewer reads the numbers */
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return wrong != 0;
}
