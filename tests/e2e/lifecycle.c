/* SPDX-License-Identifier: MIT */
/*
 * lifecycle - the ends of a process image under a shim.
 *
 *   lifecycle exec N      N calls of tl_add, then exec itself as "exit N+1"
 *   lifecycle execlp N    the same through execlp("lifecycle", ...), found
 *                         on PATH
 *   lifecycle execle N    the same through execle, with an environment that
 *                         adds LIFECYCLE_FORM=execle (the new image prints it)
 *   lifecycle exit N      N calls, then exit(0)
 *   lifecycle _exit N     N calls, then _exit(3) (no atexit, no destructors)
 *   lifecycle quick_exit N  N calls, then quick_exit(4), whose one
 *                         at_quick_exit handler makes 2 calls
 *   lifecycle vfork N     vfork + exec /bin/true in the child, N calls in the parent
 *   lifecycle fork N      a thread calls tl_add without pause while the main
 *                         thread forks N children; each child makes 10 calls
 *                         and exits 0; prints each child's pid and the number
 *                         of children that did.  The forks begin once that
 *                         thread has made calls and the runtime's flusher
 *                         is up (tests/tools/flusher_wait.h says why)
 *   lifecycle spawn N     posix_spawn itself as "exit 3", then N calls
 *   lifecycle errno       prints errno as main() finds it
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flusher_wait.h"
#include "testlib.h"

static int calls(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s = tl_add(s, 1);
	return s;
}

static void quick_handler(void)
{
	printf("quick_exit handler: %d\n", calls(2));
	fflush(stdout);
}

static volatile int stop, started;

static void *hammer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		calls(100);
		__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int forks(int n)
{
	pthread_t t;
	pid_t *pids = calloc((size_t)n, sizeof(*pids));
	int ok = 0;

	pthread_create(&t, NULL, hammer, NULL);
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		sched_yield();
	flusher_wait();
	for (int i = 0; i < n; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			exit(calls(10) == 10 ? 0 : 1);
		if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
		pids[i] = pid;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	/* Printed only now: stdio buffered before a fork would be flushed
	 * again by each child's exit(). */
	for (int i = 0; i < n; i++)
		printf("child %d\n", (int)pids[i]);
	printf("parent %d\n", (int)getpid());
	printf("forks: %d of %d children exited 0\n", ok, n);
	free(pids);
	return ok == n ? 0 : 1;
}

static int vforks(int n)
{
	int st;
	pid_t pid = vfork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	printf("vfork: %d\n", calls(n));
	return 0;
}

extern char **environ;

/* The child inherits LD_PRELOAD, so it is profiled on its own. */
static int spawns(const char *self, int n)
{
	char *argv[] = {(char *)self, "exit", "3", NULL};
	pid_t pid;
	int st;

	if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0 ||
	    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	printf("spawn: %d\n", calls(n));
	return 0;
}

/* An environment of environ's entries and one more. */
static char **env_plus(char *more)
{
	size_t n = 0;

	while (environ[n] != NULL)
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	if (env == NULL)
		return NULL;
	memcpy(env, environ, n * sizeof(*env));
	env[n] = more;
	return env;
}

/* N calls, then the image execs itself as "exit N+1" by the l-form FORM. */
static int execs(const char *self, const char *form, int n)
{
	char next[16];

	printf("%s: %d\n", form, calls(n));
	fflush(stdout);
	snprintf(next, sizeof(next), "%d", n + 1);
	if (strcmp(form, "exec") == 0)
		execl(self, self, "exit", next, (char *)NULL);
	else if (strcmp(form, "execlp") == 0)
		execlp("lifecycle", "lifecycle", "exit", next, (char *)NULL);
	else if (strcmp(form, "execle") == 0) {
		char **env = env_plus("LIFECYCLE_FORM=execle");
		if (env != NULL)
			execle(self, self, "exit", next, (char *)NULL, env);
	}
	return 127;
}

int main(int argc, char **argv)
{
	int e = errno;
	int n = argc > 2 ? atoi(argv[2]) : 0;

	if (argc == 2 && strcmp(argv[1], "errno") == 0) {
		printf("errno at main: %d\n", e);
		return 0;
	}
	if (argc != 3)
		return 2;
	if (strncmp(argv[1], "exec", 4) == 0)
		return execs(argv[0], argv[1], n);
	if (strcmp(argv[1], "exit") == 0) {
		printf("exit: %d\n", calls(n));
		if (getenv("LIFECYCLE_FORM") != NULL)
			printf("form: %s\n", getenv("LIFECYCLE_FORM"));
		return 0;
	}
	if (strcmp(argv[1], "_exit") == 0) {
		printf("_exit: %d\n", calls(n));
		fflush(stdout);
		_exit(3);
	}
	if (strcmp(argv[1], "quick_exit") == 0) {
		printf("quick_exit: %d\n", calls(n));
		at_quick_exit(quick_handler);
		quick_exit(4);
	}
	if (strcmp(argv[1], "vfork") == 0)
		return vforks(n);
	if (strcmp(argv[1], "fork") == 0)
		return forks(n);
	if (strcmp(argv[1], "spawn") == 0)
		return spawns(argv[0], n);
	return 2;
}
