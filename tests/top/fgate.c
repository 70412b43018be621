/* SPDX-License-Identifier: MIT */
/*
 * fgate.c - a test preload that holds the runtime's reservation of the ring
 * open, for test_exit_reserve.py.
 *
 * The first posix_fallocate at a non-zero offset (the ring's; the header's
 * is at offset 0) writes one byte to the fd named by $FGATE_FD, to say it is
 * in, then waits until the program calls sched_yield, and only then
 * reserves for real.  The runtime's exit path yields while it waits for a
 * reservation in progress; nothing else in the test's program yields.  So
 * the reservation ends only if exit waits for it.
 */
/* The build's -D_FILE_OFFSET_BITS=64 renames posix_fallocate to
 * posix_fallocate64; this file defines both names itself. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

typedef int (*fallocate_fn)(int, off_t, off_t);

static int gate[2] = {-1, -1};
static int gated, released;

__attribute__((constructor)) static void fgate_init(void)
{
	if (pipe2(gate, O_CLOEXEC) != 0)
		gate[0] = gate[1] = -1;
}

static void hold(off_t off)
{
	const char *say = getenv("FGATE_FD");
	char c = 'i';

	if (off == 0 || say == NULL || gate[0] < 0 ||
	    __atomic_exchange_n(&gated, 1, __ATOMIC_ACQ_REL))
		return;
	if (write(atoi(say), &c, 1) != 1)
		return;
	while (read(gate[0], &c, 1) != 1)
		;
}

static int reserve(const char *name, int fd, off_t off, off_t len)
{
	fallocate_fn real = (fallocate_fn)dlsym(RTLD_NEXT, name);

	hold(off);
	return real(fd, off, len);
}

int posix_fallocate(int fd, off_t off, off_t len)
{
	return reserve("posix_fallocate", fd, off, len);
}

int posix_fallocate64(int fd, off_t off, off_t len)
{
	return reserve("posix_fallocate64", fd, off, len);
}

int sched_yield(void)
{
	int (*real)(void) = (int (*)(void))dlsym(RTLD_NEXT, "sched_yield");
	char c = 'y';

	if (gate[1] >= 0 && !__atomic_exchange_n(&released, 1, __ATOMIC_ACQ_REL))
		(void)!write(gate[1], &c, 1);
	return real();
}
