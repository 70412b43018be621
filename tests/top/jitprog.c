/* SPDX-License-Identifier: MIT */
/*
 * jitprog NMAPS NTHREADS - a process like a JIT's for the resolver's
 * maps test (issue 34): NMAPS small anonymous mappings (alternately
 * readable and not, so that none merge) and NTHREADS threads, each
 * calling tt_work from TRAMPS call sites of its own in anonymous
 * executable memory (x86-64 code written here), so NTHREADS * TRAMPS
 * return addresses that no module holds.  Prints "ready" when the calls
 * are made and waits, its threads too (each keeps its own row), for its
 * stdin to end.  Exit 77 on another machine.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "toplib.h"

#define TRAMPS 16 /* the sites a row keeps named (apiprof_sites.c) */
#define TRAMP  32 /* bytes apart */

typedef int (*work_fn)(int);

/* sub rsp,8; movabs rax,fn; call rax; add rsp,8; ret */
static void write_tramp(unsigned char *p, work_fn fn)
{
	static const unsigned char head[] = {0x48, 0x83, 0xec, 0x08, 0x48, 0xb8};
	static const unsigned char tail[] = {0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3};
	uintptr_t a = (uintptr_t)fn;

	memcpy(p, head, sizeof head);
	memcpy(p + sizeof head, &a, sizeof a);
	memcpy(p + sizeof head + sizeof a, tail, sizeof tail);
}

static unsigned char *code;
static pthread_barrier_t made;
static int stop[2]; /* closed at the end of stdin: the threads end */

static void *thread(void *arg)
{
	size_t t = (size_t)(uintptr_t)arg;

	for (size_t i = 0; i < TRAMPS; i++) {
		work_fn tramp = (work_fn)(void *)(code + (t * TRAMPS + i) * TRAMP);
		for (int k = 0; k < 10; k++)
			tramp(k);
	}
	pthread_barrier_wait(&made);
	char c;
	while (read(stop[0], &c, 1) > 0)
		;
	return NULL;
}

static int fill(long n)
{
	for (long i = 0; i < n; i++)
		if (mmap(NULL, 4096, i % 2 ? PROT_NONE : PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		         0) == MAP_FAILED)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
#if !defined(__x86_64__)
	(void)argc, (void)argv;
	return 77;
#else
	long nmaps = argc > 2 ? atol(argv[1]) : 0, nthreads = argc > 2 ? atol(argv[2]) : 0;
	size_t size = (size_t)nthreads * TRAMPS * TRAMP + 4096;
	char c;

	if (nthreads <= 0 || nthreads > 64 || fill(nmaps) != 0)
		return 2;
	code = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	for (long i = 0; i < nthreads * TRAMPS; i++)
		write_tramp(code + i * TRAMP, tt_work);
	if (mprotect(code, size, PROT_READ | PROT_EXEC) != 0)
		return 1;
	pthread_t th[64];
	if (pipe(stop) != 0 || pthread_barrier_init(&made, NULL, (unsigned)nthreads + 1) != 0)
		return 1;
	for (long t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, thread, (void *)(uintptr_t)t) != 0)
			return 1;
	pthread_barrier_wait(&made);
	puts("ready");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	close(stop[1]);
	for (long t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	return 0;
#endif
}
