/* SPDX-License-Identifier: MIT */
/*
 * ref_malloc.c - a hand-written count-only shim of malloc, calloc, realloc
 * and free: the floor of the whole-program malloc workload in sampled mode.
 *
 * Each wrapper adds one initial-exec TLS increment to the call and nothing
 * else: no nesting guard, no state kept across the call, a tail jump to
 * the real function.  It is what any shim that counts every call costs
 * that program (the PLT now leads to a wrapper, the wrapper's code and
 * counter lines compete with the program's for the caches), which
 * bench/run.sh measures next to apiprof's sampled mode.
 *
 * The real functions are looked up on the first call.  dlsym can itself
 * call calloc or malloc, so while a lookup runs on a thread, allocations
 * come from a static buffer, and free ignores pointers into it.  Two
 * threads that race to the first call both look the functions up and
 * store the same pointers; the workloads it is preloaded on are
 * single-threaded python3.
 *
 * Built with REF_TIMED (bench_ref_malloc_timed), each wrapper also reads
 * the TSC before and after the real call and adds the difference to a
 * TLS counter: the ideal shim's work (ref_shim.c REF_IDEAL) on malloc,
 * what any profiler that times every call with the TSC costs the
 * program at the least: the floor of full timing.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT      __attribute__((visibility("default")))
#define unlikely(x) __builtin_expect(!!(x), 0)

enum { FN_MALLOC, FN_CALLOC, FN_REALLOC, FN_FREE, FN_COUNT };

/* Global (hidden), so that the increments are not optimised away. */
__thread uint64_t ref_calls[FN_COUNT] __attribute__((tls_model("initial-exec")));

#ifdef REF_TIMED
#include <x86intrin.h>

__thread uint64_t ref_ticks[FN_COUNT] __attribute__((tls_model("initial-exec")));
#define REF_TIMED_CALL(i, call)                                                                    \
	do {                                                                                       \
		uint64_t ref_t0 = __rdtsc();                                                       \
		call;                                                                              \
		ref_ticks[i] += __rdtsc() - ref_t0;                                                \
	} while (0)
#else
#define REF_TIMED_CALL(i, call) call
#endif

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static _Alignas(16) char boot[16384];
static size_t boot_used;
static __thread int resolving __attribute__((tls_model("initial-exec")));

/* dlsym's own allocations: 16-byte aligned, never freed, zeroed (static). */
static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 15) & ~(size_t)15, __ATOMIC_RELAXED);

	return at + n <= sizeof(boot) ? boot + at : NULL;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void *next(const char *name)
{
	void *p;

	resolving = 1;
	p = dlsym(RTLD_NEXT, name);
	resolving = 0;
	return p;
}

static void resolve(void)
{
	real_calloc = (void *(*)(size_t, size_t))next("calloc");
	real_malloc = (void *(*)(size_t))next("malloc");
	real_realloc = (void *(*)(void *, size_t))next("realloc");
	real_free = (void (*)(void *))next("free");
}

EXPORT void *malloc(size_t n)
{
	if (unlikely(real_malloc == NULL)) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	void *r;

	ref_calls[FN_MALLOC]++;
	REF_TIMED_CALL(FN_MALLOC, r = real_malloc(n));
	return r;
}

EXPORT void *calloc(size_t k, size_t n)
{
	if (unlikely(real_calloc == NULL)) {
		if (resolving)
			return n != 0 && k > SIZE_MAX / n ? NULL : boot_alloc(k * n);
		resolve();
	}
	void *r;

	ref_calls[FN_CALLOC]++;
	REF_TIMED_CALL(FN_CALLOC, r = real_calloc(k, n));
	return r;
}

/* A block of the buffer moves to the real heap, with as much of the
 * buffer after it as fits (its old size is not kept). */
static void *boot_move(void *p, size_t n)
{
	size_t left = (size_t)(boot + sizeof(boot) - (char *)p);
	void *q = malloc(n);

	if (q != NULL)
		memcpy(q, p, n < left ? n : left);
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	if (unlikely(real_realloc == NULL || in_boot(p))) {
		if (in_boot(p))
			return boot_move(p, n);
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	void *r;

	ref_calls[FN_REALLOC]++;
	REF_TIMED_CALL(FN_REALLOC, r = real_realloc(p, n));
	return r;
}

EXPORT void free(void *p)
{
	if (unlikely(real_free == NULL || in_boot(p))) {
		if (resolving || in_boot(p))
			return;
		resolve();
	}
	ref_calls[FN_FREE]++;
	REF_TIMED_CALL(FN_FREE, real_free(p));
}
