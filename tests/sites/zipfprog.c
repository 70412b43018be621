/* SPDX-License-Identifier: MIT */
/*
 * zipfprog.c - call sites that must displace the first ones seen (issue
 * 35.1): 200 cold sites of sitelib.sl_work (cold_000 ... cold_307, names
 * in octal) call it once each at start-up, then 64 hot sites (hot_00 ...
 * hot_77) share N calls (argv[1]) drawn at random with a Zipf-like skew:
 * hot site k (0 to 63, in octal in its name) is drawn with weight
 * 100000 / (k + 1).  The program counts each site's calls itself and
 * prints "NAME COUNT" for the hot ones, then "done".  With a second
 * argument "wait" it then prints "ready" and lives until its stdin
 * closes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sitelib.h"

#define HOT  64
#define COLD 200

/* One site: a function of its own, which calls sl_work from one call
 * instruction (not static: its name is in the dynamic symbols too). */
#define SITE(name)                                                                                 \
	__attribute__((noinline)) int name(int n)                                                  \
	{                                                                                          \
		return sl_work(n);                                                                 \
	}
#define SITE8(p)                                                                                   \
	SITE(p##0) SITE(p##1) SITE(p##2) SITE(p##3) SITE(p##4) SITE(p##5) SITE(p##6) SITE(p##7)
#define REF8(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7

SITE8(hot_0)
SITE8(hot_1)
SITE8(hot_2)
SITE8(hot_3)
SITE8(hot_4)
SITE8(hot_5)
SITE8(hot_6)
SITE8(hot_7)
SITE8(cold_00)
SITE8(cold_01)
SITE8(cold_02)
SITE8(cold_03)
SITE8(cold_04)
SITE8(cold_05)
SITE8(cold_06)
SITE8(cold_07)
SITE8(cold_10)
SITE8(cold_11)
SITE8(cold_12)
SITE8(cold_13)
SITE8(cold_14)
SITE8(cold_15)
SITE8(cold_16)
SITE8(cold_17)
SITE8(cold_20)
SITE8(cold_21)
SITE8(cold_22)
SITE8(cold_23)
SITE8(cold_24)
SITE8(cold_25)
SITE8(cold_26)
SITE8(cold_27)
SITE8(cold_30)

static int (*const hot[HOT])(int) = {
        REF8(hot_0), REF8(hot_1), REF8(hot_2), REF8(hot_3),
        REF8(hot_4), REF8(hot_5), REF8(hot_6), REF8(hot_7),
};

static int (*const cold[COLD])(int) = {
        REF8(cold_00), REF8(cold_01), REF8(cold_02), REF8(cold_03), REF8(cold_04),
        REF8(cold_05), REF8(cold_06), REF8(cold_07), REF8(cold_10), REF8(cold_11),
        REF8(cold_12), REF8(cold_13), REF8(cold_14), REF8(cold_15), REF8(cold_16),
        REF8(cold_17), REF8(cold_20), REF8(cold_21), REF8(cold_22), REF8(cold_23),
        REF8(cold_24), REF8(cold_25), REF8(cold_26), REF8(cold_27), REF8(cold_30),
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t cdf[HOT], total = 0;
	long count[HOT] = {0};
	unsigned acc = 0;

	for (int k = 0; k < HOT; k++)
		cdf[k] = total += 100000 / (k + 1);
	for (int k = 0; k < COLD; k++)
		acc += cold[k](k);
	for (long i = 0; i < n; i++) {
		uint64_t u = next() % total;
		int k = 0;

		while (cdf[k] <= u)
			k++;
		acc += hot[k]((int)i);
		count[k]++;
	}
	for (int k = 0; k < HOT; k++)
		printf("hot_%o%o %ld\n", k / 8, k % 8, count[k]);
	printf("done\n");
	fflush(stdout);
	if (argc > 2 && strcmp(argv[2], "wait") == 0) {
		printf("ready\n");
		fflush(stdout);
		while (getchar() != EOF)
			;
	}
	return acc == 42 ? 1 : 0;
}
