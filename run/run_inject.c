/* SPDX-License-Identifier: MIT */
/*
 * run_inject.c - a function of another process called on one of its
 * stopped threads, and the thread put back as it was.
 *
 * Saved first: the general registers (with orig_rax and rax, so that a
 * thread stopped inside a system call restarts it when let go, as after
 * any stop, and sees no EINTR), the FPU, SSE and AVX state (NT_X86_XSTATE,
 * else PTRACE_GETFPREGS) and the signal mask.  While it calls, the thread
 * blocks every signal but a fault's: the program's handlers never run on
 * our frames, and a signal sent meanwhile waits, pending, for the mask
 * put back.  A call follows the SysV ABI: arguments in rdi, rsi, rdx; the
 * stack below the red zone, 16-byte aligned at the call; the return
 * address 0, where the thread faults on return: that SIGSEGV stop, at 0
 * with the stack pointer just above the return address, is the end of
 * the call, and the signal is discarded.
 */
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_attach.h"

#define RED_ZONE  128
#define CALL_WAIT 10 /* seconds a call may take (the loader's work) */
#define FAULT_SIGS                                                                                 \
	((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)) | (1ull << (SIGILL - 1)) |               \
	 (1ull << (SIGFPE - 1)) | (1ull << (SIGTRAP - 1)) | (1ull << (SIGSYS - 1)))

int run_inject_read(pid_t pid, uint64_t addr, void *p, size_t n)
{
	struct iovec l = {p, n}, r = {(void *)(uintptr_t)addr, n};

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

int run_inject_write(pid_t pid, uint64_t addr, const void *p, size_t n)
{
	struct iovec l = {(void *)p, n}, r = {(void *)(uintptr_t)addr, n};

	return process_vm_writev(pid, &l, 1, &r, 1, 0) == (ssize_t)n ? 0 : -1;
}

int run_inject_begin(struct run_inject *j, pid_t tid, char *why, size_t cap)
{
	struct iovec x = {j->xstate, sizeof(j->xstate)};

	j->tid = tid;
	if (ptrace(PTRACE_GETREGS, tid, 0, &j->regs) != 0 ||
	    ptrace(PTRACE_GETFPREGS, tid, 0, &j->fp) != 0 ||
	    ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(j->sigmask), &j->sigmask) != 0)
		return run_whyf(why, cap, "cannot read the registers of thread %d: %s", (int)tid,
		                strerror(errno));
	j->xlen = ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &x) == 0 ? x.iov_len : 0;
	j->sp = (j->regs.rsp - RED_ZONE - 256) & ~(uint64_t)15;
	uint64_t calling = ~FAULT_SIGS;
	if (ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(calling), &calling) != 0)
		return run_whyf(why, cap, "cannot set the signal mask of thread %d: %s", (int)tid,
		                strerror(errno));
	return 0;
}

uint64_t run_inject_push(struct run_inject *j, const void *p, size_t n)
{
	j->sp = (j->sp - n) & ~(uint64_t)15;
	return run_inject_write(j->tid, j->sp, p, n) == 0 ? j->sp : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* The call's end: the stop at the return address.  0, or -1 with why. */
static int wait_return(struct run_inject *j, uint64_t sp, uint64_t *ret, char *why, size_t cap)
{
	struct sigaction sa = {.sa_handler = on_alarm}, old;
	struct user_regs_struct r;
	int st;

	sigaction(SIGALRM, &sa, &old); /* no SA_RESTART: waitpid returns EINTR */
	alarm(CALL_WAIT);
	int w = waitpid(j->tid, &st, __WALL), err = errno;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	if (w < 0 && err == EINTR) {
		ptrace(PTRACE_INTERRUPT, j->tid, 0, 0);
		waitpid(j->tid, &st, __WALL);
		return run_whyf(why, cap, "a call in thread %d took over %d s", (int)j->tid,
		                CALL_WAIT);
	}
	if (w < 0 || !WIFSTOPPED(st))
		return run_whyf(why, cap, "thread %d ended during the attach", (int)j->tid);
	if (ptrace(PTRACE_GETREGS, j->tid, 0, &r) != 0)
		return run_whyf(why, cap, "cannot read thread %d: %s", (int)j->tid,
		                strerror(errno));
	if (WSTOPSIG(st) != SIGSEGV || r.rip != 0 || r.rsp != sp + 8)
		return run_whyf(why, cap, "a call in thread %d stopped at %#llx by signal %d",
		                (int)j->tid, (unsigned long long)r.rip, WSTOPSIG(st));
	*ret = r.rax;
	return 0;
}

int run_inject_call(struct run_inject *j, uint64_t fn, const uint64_t a[3], uint64_t *ret,
                    char *why, size_t cap)
{
	struct user_regs_struct r = j->regs;
	uint64_t zero = 0, sp = (j->sp & ~(uint64_t)15) - 8;

	if (run_inject_write(j->tid, sp, &zero, sizeof(zero)) != 0)
		return run_whyf(why, cap, "cannot write the stack of thread %d: %s", (int)j->tid,
		                strerror(errno));
	r.rip = fn;
	r.rsp = sp;
	r.rdi = a[0];
	r.rsi = a[1];
	r.rdx = a[2];
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1; /* no system call to restart */
	if (ptrace(PTRACE_SETREGS, j->tid, 0, &r) != 0 || ptrace(PTRACE_CONT, j->tid, 0, 0) != 0)
		return run_whyf(why, cap, "cannot run thread %d: %s", (int)j->tid, strerror(errno));
	return wait_return(j, sp, ret, why, cap);
}

int run_inject_end(struct run_inject *j)
{
	struct iovec x = {j->xstate, j->xlen};
	int rc = 0;

	if (j->xlen > 0)
		rc |= ptrace(PTRACE_SETREGSET, j->tid, (void *)NT_X86_XSTATE, &x);
	else
		rc |= ptrace(PTRACE_SETFPREGS, j->tid, 0, &j->fp);
	rc |= ptrace(PTRACE_SETREGS, j->tid, 0, &j->regs);
	rc |= ptrace(PTRACE_SETSIGMASK, j->tid, (void *)sizeof(j->sigmask), &j->sigmask);
	return rc == 0 ? 0 : -1;
}
