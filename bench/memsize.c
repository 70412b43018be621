/* SPDX-License-Identifier: MIT */
/*
 * memsize - the runtime's memory per thread, per function and for the
 * ring, from the sizes of its own structures (so it follows them when
 * they change) and the ring geometry function of the runtime itself.
 *
 *   memsize [FUNC_CAP [RING_RECORDS]]     defaults: the runtime's, 2048 and 4096
 *
 * The arena hands out memory in 64-byte multiples (apiprof_arena.c), which
 * is accounted for here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "apiprof_internal.h"

static size_t line_up(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

int main(int argc, char **argv)
{
	uint32_t cap = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 2048;
	uint32_t recs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 4096;
	struct apiprof_ring_geom g = {cap, 31u - (uint32_t)__builtin_clz(recs | 1u)};

	/* A thread: its TLS block, its registry entry. */
	printf("tls_per_thread %zu\n", sizeof(struct apiprof_tls));
	printf("entry_per_thread %zu\n", line_up(sizeof(struct apiprof_thread)));
	/* A function, in each thread that calls anything of its api: its
	 * cold row, its call count, its call sites, the flusher's shadow
	 * count and its marks of the row's latest quantiles record. */
	printf("stat_per_func_thread %zu\n",
	       sizeof(struct apiprof_row) + sizeof(struct apiprof_sites) + 2 * sizeof(uint64_t) +
	               sizeof(struct apiprof_qmark));
	/* A function, once per process: the exited threads' folded totals
	 * (with their call sites) and its entry in the shared function table. */
	printf("per_func_process %zu\n", sizeof(struct apiprof_row) + sizeof(struct apiprof_sites) +
	                                         sizeof(uint64_t) +
	                                         sizeof(struct apiprof_shm_func));
	/* Each call site a row has used, in each thread and in the folded
	 * totals: its latency histogram, from the arena when first used. */
	printf("hist_per_site %zu\n", line_up(APIPROF_HIST_BUCKETS * sizeof(uint64_t)));
	printf("rec_size %zu\n", sizeof(struct apiprof_shm_rec));
	printf("ring_records %u\n", 1u << g.ring_order);
	printf("func_cap %u\n", cap);
	printf("segment_bytes %zu\n", apiprof_ring_size(&g));
	/* Once per process: the flusher's stack, untouched pages cost nothing. */
	printf("flusher_stack %u\n", APIPROF_FLUSHER_STACK);
	return 0;
}
