/* SPDX-License-Identifier: MIT */
/*
 * apiprof_arena.c - memory for thread entries and statistics tables.
 *
 * The runtime cannot use malloc: it may be the very function being
 * interposed, and it may be called from a signal handler.  So memory comes
 * from mmap'd chunks handed out with a lock-free bump pointer.  It is never
 * freed: thread entries and their tables are reused instead (see
 * apiprof_thread.c), which bounds the total by the peak number of threads.
 */
#include <sys/mman.h>

#include "apiprof_internal.h"

#define CHUNK_SIZE (1u << 20)

struct chunk {
	size_t used; /* atomic: bytes handed out, including this header */
	size_t cap;
};

static struct chunk *current;

static struct chunk *chunk_new(size_t want)
{
	size_t cap = want + 64 > CHUNK_SIZE ? ((want + 64 + 4095) & ~(size_t)4095) : CHUNK_SIZE;
	struct chunk *c =
	        mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		return NULL;
	c->used = 64; /* keep allocations cache-line aligned */
	c->cap = cap;
	return c;
}

void *apiprof_arena_alloc(size_t size)
{
	size = (size + 63) & ~(size_t)63;
	for (;;) {
		struct chunk *c = apiprof_load_acquire(&current);

		if (c != NULL) {
			size_t off = apiprof_fetch_add_relaxed(&c->used, size);

			if (off + size <= c->cap)
				return (char *)c + off;
		}
		struct chunk *n = chunk_new(size);
		if (n == NULL)
			return NULL;
		if (!apiprof_cas_acq_rel(&current, &c, n))
			munmap(n, n->cap); /* another thread installed one first */
	}
}
