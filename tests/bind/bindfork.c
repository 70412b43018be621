// SPDX-License-Identifier: MIT
/*
 * bindfork: a fork while another thread is inside the engine (issue 38).
 *
 * crc32's slots are bound once; a thread then walks the objects again and
 * again (apiprof_bind_object, the engine's lock held for each walk) while
 * the main thread forks 300 children.  Each child asks the engine for a
 * walk itself and exits: a child that inherited the lock held by the
 * walker (a thread it does not have) would wait for it forever.  Every
 * child must exit 0, each within a watchdog of 60 s; crc32's result is the
 * same in parent and children.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "apiprof_bind.h"

uLong bindplug_run(int n);

static struct apiprof_bind_sym syms[1];
static int stop;
static struct link_map *self;

static uLong counting_crc32(uLong c, const Bytef *buf, uInt len)
{
	uLong (*real)(uLong, const Bytef *, uInt);
	void *p = __atomic_load_n(&syms[0].real, __ATOMIC_ACQUIRE);

	memcpy(&real, &p, sizeof(real));
	return real(c, buf, len);
}

static void *walker(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		apiprof_bind_object(self);
	return NULL;
}

/* The child's status, or -1 when it has not ended within 60 s (a hang). */
static int reap(pid_t pid)
{
	struct timespec tick = {0, 1000000};
	int st = 0;

	for (int i = 0; i < 60000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int main(void)
{
	pthread_t t;
	uLong want = bindplug_run(10);

	syms[0] = (struct apiprof_bind_sym){"crc32", (void *)counting_crc32, NULL};
	self = dlopen(NULL, RTLD_NOW);
	if (self == NULL || apiprof_bind_apply(syms, 1) <= 0) {
		printf("FAIL: nothing bound\n");
		return 1;
	}
	pthread_create(&t, NULL, walker, NULL);
	for (int i = 0; i < 300; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			apiprof_bind_object(self);
			_exit(bindplug_run(10) == want ? 0 : 3);
		}
		int st = reap(pid);
		if (st != 0) {
			printf("FAIL: child %d of 300: %s\n", i + 1,
			       st < 0 ? "hung in the engine's lock (a fork while another thread "
			                "held it)"
			              : "a result changed");
			return 1;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	apiprof_bind_revert();
	printf("ok: 300 forks while another thread walked: every child exited 0\n");
	return 0;
}
