/* SPDX-License-Identifier: MIT */
/*
 * sigstorm - a SIGUSR1 storm whose handler calls the API the main thread
 * is calling in a loop.
 *
 *   sigstorm N
 *
 * A storm thread sends SIGUSR1 to the main thread 200,000 times without
 * pause, and a
 * timer sends it every 20 us from the main thread's own CPU (a loaded
 * machine may leave the storm thread little time; the timer's interrupt
 * lands anywhere in the main thread's code), while the main thread calls
 * tl_add N times (and tl_apply every 64th iteration).
 * Only the outermost call of an api is counted, so whether a handler's
 * call counts depends on where it interrupted the main thread; the main
 * thread says where it is in `where`:
 *
 *   OUT    between calls: the handler's tl_add is outermost, counted;
 *   IN     inside tl_apply's callback, i.e. inside the api for certain:
 *          the handler's tl_add is nested, not counted (the callback
 *          raises SIGUSR1 itself, so this happens every time);
 *   EDGE   around a call, on either side of the wrapper's nesting bit:
 *          the handler calls tl_keep_errno instead, counted or not, and
 *          the exact tl_add count shows it disturbed nothing.
 *
 * stdout: the loop's result (the same bare and under the shim).  stderr:
 * what the handler did, which the driver checks against APIPROF_OUTPUT:
 * tl_add == N + out, tl_apply == N / 64, tl_keep_errno <= edge.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

enum { OUT, IN, EDGE, DONE };

static volatile sig_atomic_t where = DONE;
static volatile long h_out, h_in, h_edge;
static volatile int stop;
static pthread_t main_thread;

#define FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

static void on_usr1(int sig)
{
	int saved = errno;

	(void)sig;
	switch (where) {
	case OUT:
		tl_add(1, 2);
		h_out = h_out + 1;
		break;
	case IN:
		tl_add(1, 2);
		h_in = h_in + 1;
		break;
	case EDGE:
		tl_keep_errno(3);
		h_edge = h_edge + 1;
		break;
	}
	errno = saved;
}

static int callback(int x)
{
	where = IN;
	FENCE();
	raise(SIGUSR1); /* delivered before raise returns */
	FENCE();
	where = EDGE;
	return x + 1;
}

static void *storm(void *arg)
{
	(void)arg;
	/* Bounded: each signal that finds the main thread back from a
	 * handler keeps it in the handler, and an unbounded storm on a busy
	 * machine would stretch the test for nothing. */
	for (long i = 0; i < 200000 && !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++)
		pthread_kill(main_thread, SIGUSR1);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t usr1;
	pthread_t t;
	long n, sum = 0;
	struct sigevent sev;
	struct itimerspec its = {{0, 20000}, {0, 20000}};
	timer_t timer;

	if (argc != 2 || (n = atol(argv[1])) < 1)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	/* The storm thread must not take its own signals: block them while
	 * it is created, it inherits the mask. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (pthread_create(&t, NULL, storm, NULL) != 0)
		return 3;
	pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0 || timer_settime(timer, 0, &its, NULL))
		return 3;

	where = OUT;
	for (long i = 0; i < n; i++) {
		FENCE();
		where = EDGE;
		FENCE();
		sum = tl_add((int)sum, 1);
		FENCE();
		where = OUT;
		if (i % 64 == 0) {
			FENCE();
			where = EDGE;
			FENCE();
			sum += tl_apply(callback, (int)(i & 7));
			FENCE();
			where = OUT;
		}
	}
	timer_delete(timer);
	FENCE();
	where = DONE;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	fprintf(stderr, "out %ld in %ld edge %ld\n", h_out, h_in, h_edge);
	printf("sum %ld\n", sum);
	return 0;
}
