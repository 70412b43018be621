/* SPDX-License-Identifier: MIT */
/*
 * smallstack - ends of a process image where the stack is small, and other
 * ways a program's end can go wrong under the runtime.  N calls of tl_add
 * first, always; then:
 *
 *   smallstack thread-exit N    exit(5) from a thread with a
 *                               PTHREAD_STACK_MIN stack
 *   smallstack altstack N SIZE  a SIGSEGV whose handler, on a SIZE-byte
 *                               alternate stack (a guard page below it),
 *                               calls _exit(6)
 *   smallstack thread-execl N   execl(self, "argc", "a", NULL) from a thread
 *                               with a 32 KiB stack
 *   smallstack execl-many N     execl(self, "argc", 5000 more arguments)
 *   smallstack argc             prints "argc: <argc>"
 *   smallstack closefd2 N FILE  closes fd 2 and opens FILE (append) there,
 *                               exits 0: FILE must stay as it was
 *   smallstack pipecheck N HOW  stderr is a pipe with no reader: HOW is
 *                               "open" (SIGPIPE as is), "blocked" (blocked)
 *                               or "own" (blocked, and one SIGPIPE of our own
 *                               made pending by a write to stderr); then a
 *                               failed execl (the runtime writes its output
 *                               and may warn), then prints whether SIGPIPE
 *                               is pending and exits 7
 *
 * Prints "calls: N" first (the calls' sum).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "testlib.h"

#define A10   "x", "x", "x", "x", "x", "x", "x", "x", "x", "x"
#define A100  A10, A10, A10, A10, A10, A10, A10, A10, A10, A10
#define A1000 A100, A100, A100, A100, A100, A100, A100, A100, A100, A100

static const char *self;
static int *volatile nowhere; /* NULL: a real fault, not raise() */

static void *exit_thread(void *arg)
{
	(void)arg;
	tl_add(0, 1);
	exit(5);
}

static void *execl_thread(void *arg)
{
	(void)arg;
	execl(self, self, "argc", "a", (char *)NULL);
	perror("execl");
	exit(1);
}

static int small_thread(void *(*fn)(void *), size_t size)
{
	pthread_attr_t a;
	pthread_t t;

	if (pthread_attr_init(&a) != 0 || pthread_attr_setstacksize(&a, size) != 0 ||
	    pthread_create(&t, &a, fn, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	return 1; /* the thread ends the process */
}

static void on_segv(int sig)
{
	(void)sig;
	_exit(6);
}

static int altstack(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
	char *m = mmap(NULL, len + (size_t)page, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss;
	struct sigaction sa;

	if (m == MAP_FAILED || mprotect(m, (size_t)page, PROT_NONE) != 0)
		return 1;
	/* The stack ends at the top of the mapping; SIZE bytes above the guard. */
	ss.ss_sp = m + (size_t)page + len - size;
	ss.ss_size = size;
	ss.ss_flags = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGSEGV, &sa, NULL) != 0)
		return 1;
	*nowhere = 1;
	return 1;
}

static int pipecheck(const char *how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	if (strcmp(how, "open") != 0)
		sigprocmask(SIG_BLOCK, &set, NULL);
	if (strcmp(how, "own") == 0 && write(STDERR_FILENO, "x", 1) != -1)
		return 1;
	execl("/nonexistent/smallstack", "smallstack", (char *)NULL);
	sigpending(&set);
	printf("after the failed exec, SIGPIPE pending: %d\n", sigismember(&set, SIGPIPE));
	return 7;
}

static int closefd2(const char *file)
{
	close(STDERR_FILENO);
	if (open(file, O_WRONLY | O_APPEND) != STDERR_FILENO)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, sum = 0;

	self = argv[0];
	if (argc < 2)
		return 2;
	if (strcmp(argv[1], "argc") == 0) {
		printf("argc: %d\n", argc);
		return 0;
	}
	for (int i = 0; i < n; i++)
		sum = tl_add(sum, 1);
	printf("calls: %d\n", sum);
	fflush(stdout);
	if (strcmp(argv[1], "thread-exit") == 0)
		return small_thread(exit_thread, PTHREAD_STACK_MIN);
	if (strcmp(argv[1], "altstack") == 0 && argc > 3)
		return altstack((size_t)atol(argv[3]));
	if (strcmp(argv[1], "thread-execl") == 0)
		return small_thread(execl_thread, 32 * 1024);
	if (strcmp(argv[1], "execl-many") == 0) {
		execl(self, self, "argc", A1000, A1000, A1000, A1000, A1000, (char *)NULL);
		perror("execl");
		return 1;
	}
	if (strcmp(argv[1], "closefd2") == 0 && argc > 3)
		return closefd2(argv[3]);
	if (strcmp(argv[1], "pipecheck") == 0 && argc > 3)
		return pipecheck(argv[3]);
	return 2;
}
