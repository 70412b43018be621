/* SPDX-License-Identifier: MIT */
/*
 * benchlib.c - the target library the benchmark intercepts.
 *
 * Both functions live in a shared library so that every call goes through
 * the PLT, exactly like a call into a real library: that is the path
 * LD_PRELOAD shims, LD_AUDIT, ltrace and uftrace all hook.
 */
#include "benchlib.h"

#define EXPORT __attribute__((visibility("default"), noinline))

/* How many multiply-adds bench_work chains.  Each step depends on the
 * previous one (imul + add, about 4 cycles), so the latency is fixed by the
 * count alone: ~100 ns at the 2.5-3 GHz of the VMs this was tuned on. */
#define WORK_STEPS 90

EXPORT int bench_f(int a, int b)
{
	return a + b;
}

EXPORT int bench_g(int a, int b)
{
	return a + b;
}

EXPORT int bench_h(int a, int b)
{
	return a + b;
}

EXPORT int bench_work(int a, int b)
{
	unsigned x = (unsigned)a;

	for (unsigned i = 0; i < WORK_STEPS; i++) {
		x = x * 2654435761u + (unsigned)b;
		/* Keeps the compiler from vectorising or folding the chain. */
		__asm__("" : "+r"(x));
	}
	return (int)x;
}
