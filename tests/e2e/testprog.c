/* SPDX-License-Identifier: MIT */
/*
 * testprog - a multithreaded program that uses libtestlib and knows
 * nothing of apiprof.  It prints a checksum of every result per thread, so
 * a run under a shim can be compared byte for byte with a bare run, and it
 * checks errno itself after the calls that set or keep it.
 *
 *   testprog [THREADS [ITERATIONS]]
 *
 * Each worker thread, named "worker-N", calls tl_add ITERATIONS times and
 * every other function (but tl_vsum) ITERATIONS/100 times; the main thread
 * calls tl_add 7 times.  Nested calls (tl_outer -> tl_add, the callback of
 * tl_apply -> tl_add, tl_sum -> tl_vsum) happen inside the library.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int iterations = 100000;

struct worker {
	pthread_t t;
	int n;
	uint64_t sum;
	int errors;
};

static uint64_t mixin(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define MIX(h, v)                                                                                  \
	do {                                                                                       \
		__typeof__(v) mix_v_ = (v);                                                        \
		h = mixin(h, &mix_v_, sizeof(mix_v_));                                             \
	} while (0)

static int callback(int x)
{
	return tl_add(x, 100);
}

static uint64_t rare_calls(int i, int *errors)
{
	uint64_t h = 0;
	struct tl_pair p = {i, (float)i / 2};
	struct tl_big b = tl_big_make(i);
	char buf[32];
	const char *name;
	int rem;
	long double ld = tl_ldmul((long double)i, 1.25L);

	MIX(h, tl_outer(i));
	MIX(h, tl_scale(i * 0.5, 1.5f));
	h = mixin(h, &ld, 10); /* the 80 value bits, not the padding */
	MIX(h, tl_mix((uint8_t)i, (int16_t)-i, (uint32_t)i * 7u, -(int64_t)i, (char)i, i & 1));
	p = tl_swap(p);
	MIX(h, p.a);
	MIX(h, p.b);
	h = mixin(h, b.v, sizeof(b.v));
	h = mixin(h, b.tag, sizeof(b.tag));
	tl_fill(buf, sizeof(buf), (char)('a' + i % 26));
	h = mixin(h, buf, sizeof(buf));
	name = tl_name(i);
	h = mixin(h, name, strlen(name));
	errno = 0;
	if (tl_fail(EDOM) != -1 || errno != EDOM)
		(*errors)++;
	errno = 1234;
	MIX(h, tl_keep_errno(i));
	if (errno != 1234)
		(*errors)++;
	MIX(h, tl_apply(callback, i));
	MIX(h, tl_sum(3, i, 2 * i, 3 * i));
	MIX(h, tl_div(i + 17, 5, &rem));
	MIX(h, rem);
	return h;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];
	uint64_t h = 0xcbf29ce484222325ull;

	snprintf(name, sizeof(name), "worker-%d", w->n);
	pthread_setname_np(pthread_self(), name);
	for (int i = 0; i < iterations; i++) {
		MIX(h, tl_add(i, w->n));
		if (i % 100 == 0)
			MIX(h, rare_calls(i + w->n, &w->errors));
	}
	w->sum = h;
	return NULL;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 8;
	struct worker *w;
	int s = 0;

	if (argc > 2)
		iterations = atoi(argv[2]);
	if (nthreads < 1 || nthreads > 1000 || iterations < 1) {
		fprintf(stderr, "usage: testprog [THREADS(1-1000) [ITERATIONS]]\n");
		return 2;
	}
	w = calloc((size_t)nthreads, sizeof(*w));
	for (int i = 0; i < nthreads; i++) {
		w[i].n = i;
		if (pthread_create(&w[i].t, NULL, work, &w[i]) != 0)
			return 3;
	}
	for (int i = 0; i < 7; i++)
		s = tl_add(s, i);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(w[i].t, NULL);
		printf("worker-%d checksum %016llx errors %d\n", i, (unsigned long long)w[i].sum,
		       w[i].errors);
	}
	printf("main sum %d\n", s);
	free(w);
	return 0;
}
