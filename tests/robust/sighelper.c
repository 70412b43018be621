/* SPDX-License-Identifier: MIT */
/*
 * sighelper - no thread the program did not create ever takes one of its
 * signals, and every such thread blocks all signals.
 *
 *   sighelper N
 *
 * The program has its main thread and one worker that calls tl_add without
 * pause; both know their own tids.  Four signals are caught, none blocked.
 * Phase 1: the main thread sends itself N signals with kill(getpid()).
 * Phase 2: the main thread blocks them and sends N more, so the kernel has
 * to pick another thread for each: the worker, or any helper thread that
 * had left them unblocked.  A handler that runs on a thread other than
 * these two counts a foreign delivery.
 *
 * Then every thread in /proc/self/task that is not ours is reported on
 * stderr with its name and whether its SigBlk covers every signal a
 * thread can block (all but SIGKILL, SIGSTOP and glibc's two internal
 * ones, which pthread_sigmask never blocks).  stdout is the same bare or
 * under the shim; exit 1 on a foreign delivery or a helper that does not
 * block everything.
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testlib.h"

static const int sigs[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH};
#define NSIGS (int)(sizeof(sigs) / sizeof(sigs[0]))

static pid_t main_tid, worker_tid;
/* Handlers run on two threads at once: atomic counters. */
static int foreign, handled;
static volatile int stop;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void on_signal(int sig)
{
	pid_t t = tid();

	(void)sig;
	if (t != main_tid && t != __atomic_load_n(&worker_tid, __ATOMIC_RELAXED))
		__atomic_fetch_add(&foreign, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	int s = 0;

	(void)arg;
	__atomic_store_n(&worker_tid, tid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		s = tl_add(s, 1);
	return NULL;
}

/* 1 when the SigBlk line of /proc/self/task/T/status blocks every signal
 * a thread can block. */
static int blocks_all(const char *t)
{
	const unsigned long long unblockable = (1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)) |
	                                       (1ull << 31) | (1ull << 32); /* 32, 33 */
	char path[300], line[256];
	unsigned long long blk = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%s/status", t);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SigBlk: %llx", &blk) == 1)
			found = 1;
	fclose(f);
	return found && (blk | unblockable) == ~0ull;
}

/* Reports the threads that are not ours; returns how many do not block
 * every signal. */
static int check_helpers(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int bad = 0;

	if (d == NULL)
		return 1;
	while ((e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		pid_t t = atoi(e->d_name);
		FILE *f;

		if (t <= 0 || t == main_tid || t == worker_tid)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (blocks_all(e->d_name)) {
			fprintf(stderr, "helper %s blocks all\n", comm);
		} else {
			fprintf(stderr, "helper %s does not block every signal\n", comm);
			bad++;
		}
	}
	closedir(d);
	return bad;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	sigset_t set;
	pthread_t w;
	long n;
	int bad;

	if (argc != 2 || (n = atol(argv[1])) < 1)
		return 2;
	main_tid = tid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&set);
	for (int i = 0; i < NSIGS; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&set, sigs[i]);
	}
	tl_add(0, 1);
	if (pthread_create(&w, NULL, worker, NULL) != 0)
		return 3;
	while (!__atomic_load_n(&worker_tid, __ATOMIC_ACQUIRE))
		sched_yield();
	for (long i = 0; i < n; i++)
		kill(getpid(), sigs[i % NSIGS]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (long i = 0; i < n; i++)
		kill(getpid(), sigs[i % NSIGS]);
	bad = check_helpers();
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(w, NULL);
	/* Whatever is still pending comes to the main thread now. */
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	fprintf(stderr, "handled %d foreign %d\n", __atomic_load_n(&handled, __ATOMIC_RELAXED),
	        __atomic_load_n(&foreign, __ATOMIC_RELAXED));
	printf("sent %ld signals, %s\n", 2 * n, foreign || bad ? "FOREIGN" : "none foreign");
	return foreign || bad ? 1 : 0;
}
