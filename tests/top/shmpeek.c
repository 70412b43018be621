/* SPDX-License-Identifier: MIT */
/*
 * shmpeek - prints what a test needs of a live segment's header, without
 * writing to it (a viewer would mark itself as a reader).
 *
 *   shmpeek PATH        prints "flusher_idle N head N tick_hz N"
 *   shmpeek PATH funcs  prints "API.NAME FLAGS" per function entry
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_abi.h"

/* The function table, each entry checked to lie inside the file. */
static int funcs(int fd)
{
	struct stat st;
	const char *m;

	if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct apiprof_shm_header))
		return 3;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 3;
	const struct apiprof_shm_header *h = (const void *)m;
	uint32_t n = __atomic_load_n(&h->func_count, __ATOMIC_ACQUIRE);
	if (h->magic != APIPROF_SHM_MAGIC || h->func_size != sizeof(struct apiprof_shm_func) ||
	    n > h->func_cap ||
	    (uint64_t)h->func_off + (uint64_t)n * h->func_size > (uint64_t)st.st_size)
		return 3;
	for (uint32_t i = 0; i < n; i++) {
		const struct apiprof_shm_func *f =
		        (const void *)(m + h->func_off + i * h->func_size);

		printf("%.*s.%.*s %u\n", (int)strnlen(f->api, sizeof(f->api)), f->api,
		       (int)strnlen(f->name, sizeof(f->name)), f->name,
		       __atomic_load_n(&f->flags, __ATOMIC_RELAXED));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct apiprof_shm_header *h;
	int fd = argc >= 2 ? open(argv[1], O_RDONLY) : -1;

	if (fd < 0)
		return 2;
	if (argc == 3 && !strcmp(argv[2], "funcs"))
		return funcs(fd);
	h = mmap(NULL, sizeof(*h), PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED || __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != APIPROF_SHM_MAGIC)
		return 3;
	printf("flusher_idle %u head %llu tick_hz %llu\n",
	       __atomic_load_n(&h->ctl.idle, __ATOMIC_ACQUIRE),
	       (unsigned long long)__atomic_load_n(&h->head, __ATOMIC_ACQUIRE),
	       (unsigned long long)__atomic_load_n(&h->tick_hz, __ATOMIC_RELAXED));
	close(fd);
	return 0;
}
