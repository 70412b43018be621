/* SPDX-License-Identifier: MIT */
/*
 * failmmap.c - an mmap for the full arena's test (issue 35.2), preloaded
 * ahead of the runtime: with TREE_FAILMMAP_AFTER=N, every anonymous
 * mapping of exactly 1 MiB (a chunk of the runtime's arena,
 * preload/life/apiprof_arena.c) after the first N fails with ENOMEM, as on a
 * machine out of memory, or, with TREE_FAILMMAP_COUNT=M, the M after
 * them only (memory that comes back).  Every other mapping is the
 * kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static long chunks;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const char *after = getenv("TREE_FAILMMAP_AFTER"), *count = getenv("TREE_FAILMMAP_COUNT");

	if (after != NULL && len == (size_t)1 << 20 && (flags & MAP_ANONYMOUS)) {
		long k = __atomic_fetch_add(&chunks, 1, __ATOMIC_RELAXED) - atol(after);

		if (k >= 0 && (count == NULL || k < atol(count))) {
			errno = ENOMEM;
			return MAP_FAILED;
		}
	}
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}
