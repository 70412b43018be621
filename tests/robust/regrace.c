/* SPDX-License-Identifier: MIT */
/*
 * regrace - threads making an api's first call at the same time: the api
 * is registered by whichever of them gets there (apiprof_register), and
 * every call must be counted under its function's name.
 *
 *   regrace SHIM forced CALLS
 *       two threads: L makes the first call and is held inside the
 *       registration (at its second rt_sigprocmask SIG_BLOCK, after it
 *       saw the api without an id) until W has registered the api and
 *       made its first call; then each makes CALLS - 1 more
 *   regrace SHIM barrier THREADS CALLS
 *       THREADS threads released by a barrier, CALLS calls each
 *
 * SHIM is the testlib shim built with regrace_shim.c (its constructor
 * registers nothing), dlopen()ed here.  The hold is this program's own
 * syscall(), which the runtime calls for rt_sigprocmask: no change to the
 * runtime, and every wait is on a flag another thread sets, never on time.
 * Prints "pid PID", then "held: 1" in forced mode, then "sum S".
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_shim.h"
#include "testlib.h"

typedef int (*add_fn)(int, int);

/* glibc's syscall(), which the one below calls on. */
__attribute__((visibility("hidden"))) void *real_syscall;
static add_fn add;
static struct apiprof_api *api;
static long calls;
static pthread_barrier_t start;

/* L's hold: armed before its first call; the SIG_BLOCKs it has made. */
static __thread int armed, blocks;
static int at_hold, w_done, l_done, held_unregistered;

static void wait_for(int *flag)
{
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void set(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

/* The first SIG_BLOCK is apiprof_thread_attach's, the second the
 * registration's, made once it saw the api without an id. */
static void hold(void)
{
	if (++blocks != 2)
		return;
	armed = 0;
	held_unregistered = __atomic_load_n(&api->id, __ATOMIC_ACQUIRE) == 0;
	set(&at_hold);
	wait_for(&w_done);
}

/* The hold's check, made by syscall() below with its first two arguments. */
__attribute__((visibility("hidden"))) void regrace_check(long n, long how);

void regrace_check(long n, long how)
{
	if (armed && n == SYS_rt_sigprocmask && how == SIG_BLOCK)
		hold();
}

/* syscall() itself (the runtime's calls come here first): the check, then
 * glibc's with every register and the stack as the caller left them, as
 * a C function could not pass on arguments it does not know the number
 * of.  Seven pushes keep the stack aligned for the call. */
__asm__(".text\n"
        ".globl syscall\n"
        ".type syscall, @function\n"
        "syscall:\n"
        "\tendbr64\n"
        "\tpush %rax\n\tpush %rdi\n\tpush %rsi\n\tpush %rdx\n"
        "\tpush %rcx\n\tpush %r8\n\tpush %r9\n"
        "\tcall regrace_check\n"
        "\tpop %r9\n\tpop %r8\n\tpop %rcx\n\tpop %rdx\n"
        "\tpop %rsi\n\tpop %rdi\n\tpop %rax\n"
        "\tjmp *real_syscall(%rip)\n"
        ".size syscall, .-syscall\n");

static long more(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += add((int)i, 1);
	return s;
}

static void *thread_l(void *arg)
{
	(void)arg;
	armed = 1;
	long s = add(0, 1);
	armed = 0;
	set(&l_done); /* W goes on if L was never held: main says so */
	set(&at_hold);
	return (void *)(s + more(calls - 1));
}

static void *thread_w(void *arg)
{
	(void)arg;
	wait_for(&at_hold);
	long s = add(0, 1);
	set(&w_done);
	return (void *)(s + more(calls - 1));
}

static void *thread_b(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	return (void *)more(calls);
}

static long join_all(pthread_t *t, int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		void *r;

		pthread_join(t[i], &r);
		sum += (long)r;
	}
	return sum;
}

static int run_forced(void)
{
	pthread_t t[2];

	pthread_create(&t[0], NULL, thread_l, NULL);
	pthread_create(&t[1], NULL, thread_w, NULL);
	long sum = join_all(t, 2);
	if (!held_unregistered) {
		printf("held: 0 (L was not held inside the registration)\n");
		return 4;
	}
	printf("held: 1\nsum %ld\n", sum);
	return 0;
}

static int run_barrier(int n)
{
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread_b, NULL);
	printf("sum %ld\n", join_all(t, n));
	return 0;
}

/* The shim's tl_add and the api it did not register. */
static int open_shim(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL) {
		printf("regrace: %s\n", dlerror());
		return -1;
	}
	void *p = dlsym(h, "tl_add"), *q = dlsym(h, "regrace_api");
	if (p == NULL || q == NULL)
		return -1;
	struct apiprof_api *(*get)(void);
	memcpy(&add, &p, sizeof(p));
	memcpy(&get, &q, sizeof(q));
	api = get();
	return 0;
}

int main(int argc, char **argv)
{
	real_syscall = dlsym(RTLD_NEXT, "syscall");
	/* bound to the library itself (not counted): the shim finds it next */
	if (tl_add(0, 0) != 0 || argc < 4 || real_syscall == NULL || open_shim(argv[1]) != 0)
		return 3;
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	if (api == NULL || api->id != 0)
		return 3; /* the constructor registered it: the test would prove nothing */
	calls = atol(argv[argc - 1]);
	if (strcmp(argv[2], "forced") == 0)
		return run_forced();
	return run_barrier(atoi(argv[3]));
}
