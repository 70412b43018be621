/* SPDX-License-Identifier: MIT */
/*
 * sigstartlib - preloaded after the runtime: a signal arrives while the
 * runtime starts up, and the program's handler makes calls.
 *
 * SIGSTART_AT=start: the runtime's first call of getpid() is its
 * start-up's first step (apiprof_init.c); this getpid(), which comes
 * first in the lookup order, sees that call by its return address,
 * installs a SIGUSR1 handler and raises SIGUSR1 then, once.
 * SIGSTART_AT=attach: the same at the runtime's first
 * pthread_setspecific() after its start-up, as it registers the thread
 * at its first call of an api (apiprof_thread.c).  Not prctl(), which
 * the sanitizers' runtimes intercept first.
 * SIGSTART_AT=register: the same at the runtime's first dladdr1(), as it
 * registers the api (apiprof_api.c, apiprof_wrappers.c).
 * The handler makes HANDLER_CALLS calls of tl_add and writes "handler N"
 * on stdout, N their sum.  Every other call is libc's.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testlib.h"

#define HANDLER_CALLS 6

static volatile sig_atomic_t fired;

static void handler(int sig)
{
	char line[32];
	int sum = 0;

	(void)sig;
	for (int i = 0; i < HANDLER_CALLS; i++)
		sum = tl_add(sum, 1);
	int n = snprintf(line, sizeof(line), "handler %d\n", sum);
	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		_exit(90);
}

static int from_runtime(const void *ret)
{
	Dl_info in;

	return dladdr(ret, &in) && in.dli_fname && strstr(in.dli_fname, "libapiprof.so");
}

static void fire(const char *at)
{
	const char *want = getenv("SIGSTART_AT");
	struct sigaction sa = {.sa_handler = handler};

	if (fired || want == NULL || strcmp(want, at) != 0)
		return;
	fired = 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
}

static volatile sig_atomic_t started; /* the runtime called getpid() */

pid_t getpid(void)
{
	if (from_runtime(__builtin_return_address(0))) {
		fire("start");
		started = 1;
	}
	return (pid_t)syscall(SYS_getpid);
}

int dladdr1(const void *addr, Dl_info *info, void **extra, int flags)
{
	static int (*real)(const void *, Dl_info *, void **, int);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "dladdr1");
	if (from_runtime(__builtin_return_address(0)))
		fire("register");
	return real(addr, info, extra, flags);
}

int pthread_setspecific(pthread_key_t key, const void *value)
{
	static int (*real)(pthread_key_t, const void *);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "pthread_setspecific");
	if (started && from_runtime(__builtin_return_address(0)))
		fire("attach");
	return real(key, value);
}
