/* SPDX-License-Identifier: MIT */
/*
 * nsprog - namespace changes that need a single-threaded process
 * (userns.sh).
 *
 *   nsprog unshare N LEVELS READY WAIT
 *       N calls of tl_add, then LEVELS times unshare(CLONE_NEWUSER) (each
 *       one nested in the last), each followed by N more calls
 *   nsprog setns N - READY WAIT
 *       N calls, setns(CLONE_NEWNS) into a child's mount namespace, N
 *       calls, setns(fd, 0) into another child's user namespace, N calls
 *
 * Then "ready PID" on the fifo READY and a read of the fifo WAIT (a reader
 * looks meanwhile), then the sum.  Exit 1 with the failing call's errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static long sum;

static void calls(long n)
{
	for (long i = 0; i < n; i++)
		sum = tl_add((int)sum, 1);
}

static int failed(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 1;
}

/* A child that unshares `flags` and waits until `hold` closes; returns
 * a descriptor of its namespace NS (opened once it has it), or -1. */
static int child_ns(int flags, const char *ns, int hold[2], pid_t *pid)
{
	char path[64], c;
	int up[2], fd;

	if (pipe(up) != 0 || (*pid = fork()) < 0)
		return -1;
	if (*pid == 0) {
		close(hold[1]);
		c = unshare(flags) == 0 ? 'y' : 'n';
		if (write(up[1], &c, 1) != 1 || read(hold[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(up[1]);
	if (read(up[0], &c, 1) != 1 || c != 'y')
		return -1;
	close(up[0]);
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)*pid, ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

static int do_setns(long n)
{
	int hold[2], mnt, user, st;
	pid_t a, b;

	if (pipe(hold) != 0)
		return failed("pipe");
	mnt = child_ns(CLONE_NEWNS, "mnt", hold, &a);
	user = child_ns(CLONE_NEWUSER, "user", hold, &b);
	if (mnt < 0 || user < 0)
		return failed("child namespace");
	if (setns(mnt, CLONE_NEWNS) != 0)
		return failed("setns(CLONE_NEWNS)");
	calls(n);
	if (setns(user, 0) != 0)
		return failed("setns(user, 0)");
	calls(n);
	close(hold[1]);
	if (waitpid(a, &st, 0) != a || st != 0 || waitpid(b, &st, 0) != b || st != 0)
		return failed("children");
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);
	bool ok = fd >= 0 && write(fd, text, (size_t)len) == len;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/* Root in the new namespace, as unshare -r does: a namespace can only be
 * nested in one where the creator's ids are mapped. */
static int map_root(uid_t uid, gid_t gid)
{
	char line[64];

	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", line) != 0 ||
	    write_file("/proc/self/setgroups", "deny") != 0)
		return -1;
	snprintf(line, sizeof(line), "0 %u 1\n", (unsigned)gid);
	return write_file("/proc/self/gid_map", line);
}

static int do_unshare(long n, int levels)
{
	for (int i = 0; i < levels; i++) {
		uid_t uid = geteuid();
		gid_t gid = getegid();

		if (unshare(CLONE_NEWUSER) != 0)
			return failed("unshare(CLONE_NEWUSER)");
		if (map_root(uid, gid) != 0)
			return failed("uid_map");
		calls(n);
	}
	return 0;
}

static int ready_then_wait(const char *ready, const char *wait)
{
	FILE *f = fopen(ready, "w");
	char c;
	int fd;

	if (f == NULL || fprintf(f, "ready %d\n", (int)getpid()) < 0 || fclose(f) != 0)
		return failed("ready");
	fd = open(wait, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return failed("wait");
	return 0;
}

int main(int argc, char **argv)
{
	long n;
	int r;

	if (argc != 6 || (n = atol(argv[2])) < 1)
		return 2;
	calls(n);
	if (strcmp(argv[1], "unshare") == 0)
		r = do_unshare(n, atoi(argv[3]));
	else if (strcmp(argv[1], "setns") == 0)
		r = do_setns(n);
	else
		return 2;
	/* ready even after a failure: the shell waits for it */
	if (ready_then_wait(argv[4], argv[5]) != 0)
		r = 1;
	printf("sum %ld\n", sum);
	return r;
}
