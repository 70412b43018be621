/* SPDX-License-Identifier: MIT */
/* run_attach.h - apiprof-run -p PID: the pieces of an attach (issue 38). */
#ifndef APIPROF_RUN_ATTACH_H
#define APIPROF_RUN_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <time.h>

#include "run.h"

#define RUN_MAX_THREADS 4096

/* run_stop.c: every thread of a process stopped, and let go. */
struct run_thread {
	pid_t tid;
	int sig;        /* a signal it was stopped with, given back when let go */
	int stopped_by; /* SIGTRAP: our interrupt; -1: a signal's delivery */
	int gone;       /* it ended meanwhile */
};
struct run_stopped {
	pid_t pid;
	int n;
	struct timespec t0; /* when the first was stopped */
	struct run_thread t[RUN_MAX_THREADS];
};
int run_stop_all(pid_t pid, struct run_stopped *s, char *why, size_t cap);
void run_let_go(struct run_stopped *s);
double run_stopped_ms(const struct run_stopped *s);

/* run_inject.c: calls made on one stopped thread, its state put back after. */
struct run_inject {
	pid_t tid;
	struct user_regs_struct regs; /* as it was stopped */
	struct user_fpregs_struct fp;
	unsigned char xstate[16384]; /* NT_X86_XSTATE: AVX and beyond */
	size_t xlen;                 /* 0: only fp */
	uint64_t sigmask;
	uint64_t sp; /* the scratch area's bottom, below the red zone */
};
int run_inject_begin(struct run_inject *j, pid_t tid, char *why, size_t cap);
/* Copies n bytes below the scratch area; their address in the process. */
uint64_t run_inject_push(struct run_inject *j, const void *p, size_t n);
/* Calls fn(a0, a1, a2) on the thread; its return value in *ret. */
int run_inject_call(struct run_inject *j, uint64_t fn, const uint64_t a[3], uint64_t *ret,
                    char *why, size_t cap);
int run_inject_read(pid_t pid, uint64_t addr, void *p, size_t n);
int run_inject_write(pid_t pid, uint64_t addr, const void *p, size_t n);
/* Every register, the signal mask, as they were. */
int run_inject_end(struct run_inject *j);

/* run_pick.c: a thread safe to call into: in no signal handler, and no
 * thread holds a lock of the loader.  Its index in s, or -1 with why, or
 * RUN_PICK_LATER (with why) while a thread holds a lock of the loader. */
#define RUN_PICK_LATER (-2)
int run_pick_thread(const struct run_stopped *s, char *why, size_t cap);

/* run_attach.c: apiprof-run -p PID [--detach]. */
int run_attach_main(const struct run_opts *o);

#endif
