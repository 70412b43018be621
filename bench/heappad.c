/* SPDX-License-Identifier: MIT */
/*
 * heappad.c - a preload library whose constructor allocates
 * BENCH_HEAP_PAD bytes (0-4095) and keeps them, so that every heap block
 * the program allocates after it lies that much further into its page.
 *
 * Where a block falls within its page decides which cache sets its lines
 * use, and the kernel randomises only which page the heap starts at, not
 * where in it.  So a whole program's heap layout is the same in every run,
 * and a few hundred bytes allocated before main move it.  The apiprof
 * runtime's own start-up does: a program's first block lands 432 bytes
 * further on under a shim (128 with no flusher thread).  Under cachegrind,
 * a pad of 0, 1000, 2000 or 3000 bytes moves the bare malloc workload's
 * data-cache misses by up to 12%, with the same instructions.
 * bench/run.sh preloads this on every run of a round, bare ones included,
 * with a pad drawn anew for each round, so that no mode keeps one layout
 * for the whole bench.
 */
#include <stdlib.h>

/* Kept, so that the block is never freed nor optimised away. */
void *bench_heap_pad;

__attribute__((constructor)) static void bench_heap_pad_init(void)
{
	const char *s = getenv("BENCH_HEAP_PAD");
	unsigned long n = s ? strtoul(s, NULL, 10) : 0;

	if (n > 0 && n < 4096)
		bench_heap_pad = malloc(n);
}
