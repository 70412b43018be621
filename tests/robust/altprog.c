/* SPDX-License-Identifier: MIT */
/*
 * altprog - a signal handler on an alternate stack calls the api while
 * the thread it interrupted is inside a call of it, then jumps out.
 *
 *   altprog above|below N
 *
 * A thread runs on a stack carved from one mapping, with its alternate
 * signal stack carved from the same mapping above or below it, so that
 * the placement is certain.  N times, it raises SIGUSR1 between calls
 * (the handler's tl_add is outermost: counted) and calls tl_apply with a
 * callback that raises SIGUSR1 (the handler's tl_add is nested in
 * tl_apply: not counted) and then calls tl_add itself (nested too).  Then
 * a callback's signal handler siglongjmps out of one more tl_apply, and N
 * calls of tl_add follow from a deeper frame.  So the api sees N + 1
 * calls of tl_apply and 2N outermost calls of tl_add (and one more that
 * attaches the thread), wherever the alternate stack lies.  Prints the
 * sum of the results and how many times the handler ran.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "testlib.h"

#define STACK_SIZE (1024 * 1024)
#define ALT_SIZE   (256 * 1024)

static volatile sig_atomic_t jump_now, handled;
static sigjmp_buf back;
static long n;
static int above;

static void on_usr1(int sig)
{
	(void)sig;
	tl_add(1, 1);
	handled = handled + 1;
	if (jump_now)
		siglongjmp(back, 1);
}

static int cb(int x)
{
	raise(SIGUSR1);
	return tl_add(x, 1);
}

static int cb_jump(int x)
{
	jump_now = 1;
	raise(SIGUSR1);
	return x;
}

static __attribute__((noinline)) long deeper(void)
{
	volatile char pad[512];
	long sum = 0;

	pad[0] = 1;
	for (long i = 0; i < n; i++)
		sum += tl_add((int)i, pad[0]);
	return sum;
}

/* One more tl_apply, which the handler's siglongjmp abandons. */
static __attribute__((noinline)) void abandon(void)
{
	if (sigsetjmp(back, 1) == 0)
		tl_apply(cb_jump, 0);
	jump_now = 0;
}

static void *body(void *alt)
{
	stack_t ss = {.ss_sp = alt, .ss_size = ALT_SIZE};
	long sum = tl_add(0, 0);

	if (sigaltstack(&ss, NULL) != 0)
		return NULL;
	for (long i = 0; i < n; i++) {
		raise(SIGUSR1);
		sum += tl_apply(cb, (int)i);
	}
	abandon();
	sum += deeper();
	printf("sum %ld handled %ld\n", sum, (long)handled);
	return alt;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_attr_t attr;
	pthread_t t;
	void *ok = NULL;
	char *m;

	if (argc != 3 || (n = atol(argv[2])) < 1)
		return 2;
	above = strcmp(argv[1], "above") == 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	m = mmap(NULL, STACK_SIZE + ALT_SIZE, PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (m == MAP_FAILED || sigaction(SIGUSR1, &sa, NULL) != 0 ||
	    pthread_attr_init(&attr) != 0 ||
	    pthread_attr_setstack(&attr, above ? m : m + ALT_SIZE, STACK_SIZE) != 0 ||
	    pthread_create(&t, &attr, body, above ? m + STACK_SIZE : m) != 0 ||
	    pthread_join(t, &ok) != 0 || ok == NULL)
		return 3;
	return 0;
}
