/* SPDX-License-Identifier: MIT */
/*
 * run_stop.c - every thread of a process stopped by ptrace, and let go.
 *
 * PTRACE_SEIZE, then PTRACE_INTERRUPT, for every thread in /proc/PID/task,
 * again until a pass finds no thread it has not seen: a stopped thread
 * creates none, so the last pass saw them all.  A thread found in a
 * signal-delivery stop keeps its signal, given back when it is let go
 * (PTRACE_DETACH with the signal).  The runtime's own flusher thread is
 * not stopped.  A thread stopped inside a system call
 * restarts it when it is let go, as the kernel does after any stop.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "run_attach.h"

static bool known(const struct run_stopped *s, pid_t tid)
{
	for (int i = 0; i < s->n; i++)
		if (s->t[i].tid == tid)
			return true;
	return false;
}

/* The runtime's flusher thread (apiprof_flusher.c names it) is left
 * running: a detach asks it to stop and waits for it. */
static bool is_flusher(pid_t pid, pid_t tid)
{
	char path[64], comm[32] = "";

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return false;
	bool yes = fgets(comm, sizeof(comm), f) != NULL && strcmp(comm, "apiprof-flush\n") == 0;
	fclose(f);
	return yes;
}

static int seize_one(struct run_stopped *s, pid_t tid, char *why, size_t cap)
{
	if (s->n == RUN_MAX_THREADS)
		return run_whyf(why, cap, "more than %d threads", RUN_MAX_THREADS);
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0) {
		if (errno == ESRCH)
			return 0; /* it has just ended */
		return run_whyf(why, cap, "cannot attach to %d: %s%s", (int)s->pid, strerror(errno),
		                errno == EPERM ? " (ptrace needs the same user and "
		                                 "kernel.yama.ptrace_scope 0, or CAP_SYS_PTRACE)"
		                               : "");
	}
	s->t[s->n++] = (struct run_thread){.tid = tid};
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0 && errno != ESRCH)
		return run_whyf(why, cap, "cannot stop thread %d: %s", (int)tid, strerror(errno));
	return 0;
}

/* One pass over /proc/PID/task: the number of threads seized, or -1. */
static int seize_pass(struct run_stopped *s, char *why, size_t cap)
{
	char path[64];
	int added = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)s->pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return run_whyf(why, cap, "no process %d (%s)", (int)s->pid, strerror(errno));
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || known(s, tid) || is_flusher(s->pid, tid))
			continue;
		if (seize_one(s, tid, why, cap) != 0) {
			closedir(d);
			return -1;
		}
		added++;
	}
	closedir(d);
	return added;
}

/* Waits for t's stop: 0, or -1 when the thread has ended meanwhile. */
static int wait_stop(struct run_thread *t)
{
	int st;

	for (;;) {
		if (waitpid(t->tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			t->gone = 1;
			return -1;
		}
		if (!WIFSTOPPED(st)) {
			t->gone = 1;
			return -1;
		}
		if ((st >> 16) == PTRACE_EVENT_STOP) {
			t->stopped_by = WSTOPSIG(st);
			return 0;
		}
		t->sig = WSTOPSIG(st); /* a signal on its way: given back at the end */
		t->stopped_by = -1;
		return 0;
	}
}

int run_stop_all(pid_t pid, struct run_stopped *s, char *why, size_t cap)
{
	s->pid = pid;
	s->n = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	for (int pass = 0;; pass++) {
		int added = seize_pass(s, why, cap);

		if (added < 0) {
			run_let_go(s);
			return -1;
		}
		if (added == 0)
			break;
		for (int i = s->n - added; i < s->n; i++)
			wait_stop(&s->t[i]);
		if (pass == 1000) {
			run_let_go(s);
			return run_whyf(why, cap, "process %d keeps creating threads", (int)pid);
		}
	}
	for (int i = 0; i < s->n; i++)
		if (!s->t[i].gone && s->t[i].stopped_by > 0 && s->t[i].stopped_by != SIGTRAP) {
			run_let_go(s);
			return run_whyf(why, cap,
			                "process %d is stopped (signal %d): continue it first",
			                (int)pid, s->t[i].stopped_by);
		}
	return 0;
}

/* Every thread let go, each with the signal it was stopped with. */
void run_let_go(struct run_stopped *s)
{
	for (int i = 0; i < s->n; i++)
		if (!s->t[i].gone)
			ptrace(PTRACE_DETACH, s->t[i].tid, 0, (void *)(long)s->t[i].sig);
	s->n = 0;
}

/* Milliseconds since the first thread was stopped. */
double run_stopped_ms(const struct run_stopped *s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - s->t0.tv_sec) * 1e3 +
	       (double)(now.tv_nsec - s->t0.tv_nsec) / 1e6;
}
