/* SPDX-License-Identifier: MIT */
/*
 * raceprog - a program whose calls in progress its test ends and starts
 * at chosen points of the flusher's look at them, for test_inflight_race.c.
 *
 * Calls tt_work once (the thread's first call), then tt_wait(0) three
 * times from one call site, so at one frame: before each it reads a byte
 * from fd 3, and after each it writes "r<i>" (no newline) to stdout, both
 * with system calls made in place (raw3).  Then it reads its stdin to
 * the end and exits 0.  The test releases each tt_wait with a byte on
 * stdin.
 *
 * It also defines process_vm_readv, which only the runtime's flusher
 * calls (apiprof_inflight.c), ahead of libc's (the program's symbols come
 * first): before each read it writes 'T' (the read of a thread's TLS
 * block, which starts the look at a thread) or 's' (any other) to the fd
 * named by $RACE_SAY and waits for a byte on the fd named by $RACE_GO;
 * once that fd is at end of file it waits no more.  So the test steps
 * the flusher read by read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "apiprof_shim.h"
#include "toplib.h"

static int gate_fd(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : -1;
}

static void gate(size_t len)
{
	static int open = 1;
	int say = gate_fd("RACE_SAY"), go = gate_fd("RACE_GO");
	char c = len == sizeof(struct apiprof_tls) ? 'T' : 's';

	if (!__atomic_load_n(&open, __ATOMIC_ACQUIRE) || say < 0 || go < 0)
		return;
	if (write(say, &c, 1) != 1 || read(go, &c, 1) != 1)
		__atomic_store_n(&open, 0, __ATOMIC_RELEASE);
}

ssize_t process_vm_readv(pid_t pid, const struct iovec *local, unsigned long liovcnt,
                         const struct iovec *remote, unsigned long riovcnt, unsigned long flags)
{
	gate(liovcnt ? local[0].iov_len : 0);
	return syscall(SYS_process_vm_readv, pid, local, liovcnt, remote, riovcnt, flags);
}

/* A system call made in place, with no call instruction: after a tt_wait
 * returns, nothing may write the stack below main's frame, where the
 * flusher still finds that call's return address into its wrapper. */
__attribute__((always_inline)) static inline long raw3(long nr, long a, long b, long c)
{
	long rc;

	__asm__ volatile("syscall"
	                 : "=a"(rc)
	                 : "0"(nr), "D"(a), "S"(b), "d"(c)
	                 : "rcx", "r11", "memory");
	return rc;
}

int main(void)
{
	char c, said[2] = {'r', '0'};

	tt_work(1);
	for (int i = 0; i < 3; i++) {
		if (raw3(SYS_read, 3, (long)&c, 1) != 1)
			return 1;
		if (tt_wait(0) != 1)
			return 1;
		said[1] = (char)('0' + i);
		if (raw3(SYS_write, 1, (long)said, 2) != 2)
			return 1;
	}
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
