/* SPDX-License-Identifier: MIT */
/*
 * ctlpoke - a hostile writer of a segment's control block, of the
 * process's own uid (issue 37): random steering requests.
 *
 *   ctlpoke SEGMENT SEED COUNT
 *   ctlpoke --lock-offset    where the requesters' lock is, in the file
 *
 * Writes COUNT requests of random bytes (command, argument, a text with
 * no NUL; every fourth one a MODE with a random word and text) the way a
 * requester would, wakes the runtime, and waits at most 10 s for each
 * answer.  Prints "answered N refused R badmode B noapi A other O";
 * exits 1 when a request went unanswered.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_ctl.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t rnd64(void)
{
	return (uint64_t)random() << 33 ^ (uint64_t)random() << 11 ^ (uint64_t)random();
}

static void garbage(struct apiprof_ctl_request *r, int i)
{
	r->cmd = i % 4 == 0 ? APIPROF_CTL_MODE : (uint32_t)rnd64();
	r->arg = i % 8 == 0 ? rnd64() & 0xffff : rnd64();
	for (size_t k = 0; k < sizeof(r->text); k++)
		r->text[k] = (char)(1 + random() % 255);
}

int main(int argc, char **argv)
{
	if (argc == 2) {
		printf("%zu\n", offsetof(struct apiprof_shm_header, ctl) +
		                        offsetof(struct apiprof_shm_ctl, ask_seq));
		return 0;
	}
	if (argc != 4)
		return 2;
	int fd = open(argv[1], O_RDWR);
	const struct apiprof_shm_header *h =
	        fd < 0 ? MAP_FAILED
	               : mmap(NULL, APIPROF_SHM_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		perror(argv[1]);
		return 2;
	}
	srandom((unsigned)atoi(argv[2]));
	int n = atoi(argv[3]), res[5] = {0};
	for (int i = 0; i < n; i++) {
		struct apiprof_ctl_request r;
		struct apiprof_ctl_reply a;
		uint32_t seq;

		garbage(&r, i);
		off_t at = (off_t)(offsetof(struct apiprof_shm_header, ctl) +
		                   offsetof(struct apiprof_shm_ctl, text));
		if (apiprof_ctl_ask(fd, &h->ctl, &r, &seq) != 0 ||
		    pwrite(fd, r.text, sizeof(r.text), at) != (ssize_t)sizeof(r.text))
			return 2;
		if (!apiprof_ctl_await_reply(&h->ctl, seq, mono_ns() + 10000000000ull, &a)) {
			printf("request %d (cmd %u) not answered\n", i, r.cmd);
			return 1;
		}
		res[a.result >= 0 && a.result < 5 ? a.result : 0]++;
	}
	printf("answered %d refused %d badmode %d noapi %d other %d\n", n, res[1], res[2], res[3],
	       res[0] + res[4]);
	return 0;
}
