/* SPDX-License-Identifier: MIT */
/*
 * empty.c - a preload library that does nothing: no symbol a program
 * calls, no thread.  bench/run.sh preloads it on the whole-program
 * workloads to measure what loading any library costs a program before a
 * single call is intercepted.  That is not always nothing: each library
 * adds mappings to the process, and the kernel's tree of mappings changes
 * shape with their number, which can make every brk() of a program that
 * shrinks and regrows its heap dearer (see the README).
 *
 * With BENCH_EMPTY_MAPS=N, its constructor adds N one-page mappings, so
 * that the bench can show the cost moving with the number of mappings
 * alone.  Each is mapped PROT_NONE or PROT_READ in turn: the kernel
 * places each new mapping right below the last one, and two neighbours
 * with the same protection would merge into one.
 */
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((constructor)) static void bench_empty_maps(void)
{
	const char *s = getenv("BENCH_EMPTY_MAPS");
	long n = s ? strtol(s, NULL, 10) : 0;

	for (long i = 0; i < n && i < 1000; i++)
		mmap(NULL, 4096, (i & 1) ? PROT_READ : PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		     0);
}
