/* SPDX-License-Identifier: MIT */
/*
 * ref_shim.c - hand-written LD_PRELOAD shims for the bench library: the
 * reference points apiprof's generated shim is measured against.
 *
 * Built once per variant, with exactly one of these defined:
 *   REF_PASSTHROUGH  forwards to the real function, nothing else
 *   REF_COUNT        + one initial-exec TLS increment per call
 *   REF_IDEAL        + two rdtsc and a TLS add of the difference: the least
 *                    any profiler that times every call can do
 *   REF_CLOCK        REF_IDEAL with clock_gettime(CLOCK_MONOTONIC) (vDSO)
 *   REF_ATOMIC       REF_COUNT with one process-wide atomic counter
 *
 * Every variant shares the wrapper below, so they differ only in their
 * hooks.  The real function is looked up lazily, on the first call, as a
 * generated shim does, rather than in a constructor: the cost of the check
 * belongs to the floor.  The statistics are global symbols (hidden, like
 * everything but the wrappers): a static that is only ever written could
 * legally be optimised away, and nothing in the shim reads them.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "benchlib.h"

#define EXPORT      __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { FN_F, FN_WORK, FN_COUNT };

/* calls and time of one function side by side: one cache line touched per call. */
struct ref_stat {
	uint64_t calls;
	uint64_t ticks;
};

#if defined(REF_ATOMIC)
/* Shared by all threads on purpose: this variant shows what one cache line
 * bounced between cores costs. */
struct ref_stat ref_stats[FN_COUNT];
#else
__thread struct ref_stat ref_tls[FN_COUNT] __attribute__((tls_model("initial-exec")));
#endif

#if defined(REF_PASSTHROUGH)
#define HOOK_ENTER(i)
#define HOOK_LEAVE(i)
#elif defined(REF_COUNT)
#define HOOK_ENTER(i)
#define HOOK_LEAVE(i) (ref_tls[i].calls++)
#elif defined(REF_IDEAL)
#define HOOK_ENTER(i) uint64_t t0 = __rdtsc()
#define HOOK_LEAVE(i)                                                                              \
	do {                                                                                       \
		ref_tls[i].ticks += __rdtsc() - t0;                                                \
		ref_tls[i].calls++;                                                                \
	} while (0)
#elif defined(REF_CLOCK)
static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define HOOK_ENTER(i) uint64_t t0 = mono_ns()
#define HOOK_LEAVE(i)                                                                              \
	do {                                                                                       \
		ref_tls[i].ticks += mono_ns() - t0;                                                \
		ref_tls[i].calls++;                                                                \
	} while (0)
#elif defined(REF_ATOMIC)
#define HOOK_ENTER(i)
#define HOOK_LEAVE(i) __atomic_fetch_add(&ref_stats[i].calls, 1, __ATOMIC_RELAXED)
#else
#error "define one REF_* variant"
#endif

typedef int (*int2_fn)(int, int);

/* Out of line: it runs once per function and process. */
static __attribute__((noinline)) int2_fn resolve(int2_fn *slot, const char *name)
{
	int2_fn fn = (int2_fn)dlsym(RTLD_NEXT, name);

	if (fn == NULL) {
		fprintf(stderr, "ref_shim: %s not found\n", name);
		abort();
	}
	__atomic_store_n(slot, fn, __ATOMIC_RELAXED);
	return fn;
}

#define WRAP(fname, idx)                                                                           \
	static int2_fn real_##fname;                                                               \
	EXPORT int fname(int a, int b)                                                             \
	{                                                                                          \
		int2_fn fn = __atomic_load_n(&real_##fname, __ATOMIC_RELAXED);                     \
		int r;                                                                             \
                                                                                                   \
		if (unlikely(fn == NULL))                                                          \
			fn = resolve(&real_##fname, #fname);                                       \
		HOOK_ENTER(idx);                                                                   \
		r = fn(a, b);                                                                      \
		HOOK_LEAVE(idx);                                                                   \
		return r;                                                                          \
	}

WRAP(bench_f, FN_F)
WRAP(bench_work, FN_WORK)
