/* SPDX-License-Identifier: MIT */
/*
 * shmpeek - prints what a test needs of a live segment's header, without
 * writing to it (a viewer would mark itself as a reader).
 *
 *   shmpeek PATH    prints "flusher_idle N head N tick_hz N"
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apiprof_abi.h"

int main(int argc, char **argv)
{
	const struct apiprof_shm_header *h;
	int fd = argc == 2 ? open(argv[1], O_RDONLY) : -1;

	if (fd < 0)
		return 2;
	h = mmap(NULL, sizeof(*h), PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED || __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != APIPROF_SHM_MAGIC)
		return 3;
	printf("flusher_idle %u head %llu tick_hz %llu\n",
	       __atomic_load_n(&h->flusher_idle, __ATOMIC_ACQUIRE),
	       (unsigned long long)__atomic_load_n(&h->head, __ATOMIC_ACQUIRE),
	       (unsigned long long)__atomic_load_n(&h->tick_hz, __ATOMIC_RELAXED));
	close(fd);
	return 0;
}
