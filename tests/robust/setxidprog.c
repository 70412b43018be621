/* SPDX-License-Identifier: MIT */
/*
 * setxidprog - what `setpriv --reuid=U --regid=U --clear-groups` does,
 * then one more credential call (setxid.sh).
 *
 *   setxidprog CALL UID N [threaded | READY WAIT]
 *
 * N calls of tl_add; prctl(PR_SET_KEEPCAPS, 1); setresuid(UID, UID, UID),
 * after which this thread keeps its permitted capabilities (another
 * thread, without KEEPCAPS, loses them all); capset of the effective
 * capabilities it had, on this thread only (raw system calls, as
 * setpriv); then CALL:
 *   setresgid, setregid, setgid, setegid    to gid UID
 *   setgroups                               no supplementary group
 *   initgroups                              root's groups and UID
 *   setresuid, setreuid, setuid, seteuid    to uid UID + 1
 * glibc makes every thread of the process do CALL; a thread without the
 * capability fails it, and glibc then aborts the process.  Then N more
 * calls and a line with the ids and the sum.
 *
 * "threaded": a thread of the program's own, made after the capset (it
 * has this thread's credentials), waits while CALL is made and then makes
 * N calls.  READY WAIT: opened at the start (the test holds both ends);
 * after the calls "ready PID" is written to READY and a byte read from
 * WAIT, while a reader looks.  Exit 1 with the failing call's errno.
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

/* This thread's capabilities made effective again after the uid change
 * (KEEPCAPS keeps the permitted set only), by the raw system calls. */
static int keep_caps_and_drop(uid_t uid)
{
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct caps[2];

	if (syscall(SYS_capget, &hdr, caps) != 0)
		return failed("capget");
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
		return failed("PR_SET_KEEPCAPS");
	if (setresuid(uid, uid, uid) != 0)
		return failed("setresuid");
	if (syscall(SYS_capset, &hdr, caps) != 0)
		return failed("capset");
	return 0;
}

/* CALL, by name; -1 with errno = EINVAL for an unknown one. */
static int the_call(const char *call, uid_t uid)
{
	gid_t gid = (gid_t)uid;

	if (strcmp(call, "setresgid") == 0)
		return setresgid(gid, gid, gid);
	if (strcmp(call, "setregid") == 0)
		return setregid(gid, gid);
	if (strcmp(call, "setgid") == 0)
		return setgid(gid);
	if (strcmp(call, "setegid") == 0)
		return setegid(gid);
	if (strcmp(call, "setgroups") == 0)
		return setgroups(0, NULL);
	if (strcmp(call, "initgroups") == 0)
		return initgroups("root", gid);
	if (strcmp(call, "setresuid") == 0)
		return setresuid(uid + 1, uid + 1, uid + 1);
	if (strcmp(call, "setreuid") == 0)
		return setreuid(uid + 1, uid + 1);
	if (strcmp(call, "setuid") == 0)
		return setuid(uid + 1);
	if (strcmp(call, "seteuid") == 0)
		return seteuid(uid + 1);
	errno = EINVAL;
	return -1;
}

static long worker_n;
static pthread_barrier_t made;

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&made);
	calls(worker_n);
	return NULL;
}

static int ready_then_wait(FILE *ready, FILE *wait)
{
	if (fprintf(ready, "ready %d\n", (int)getpid()) < 0 || fclose(ready) != 0)
		return failed("ready");
	if (fgetc(wait) == EOF)
		return failed("wait");
	return 0;
}

int main(int argc, char **argv)
{
	FILE *ready = NULL, *wait = NULL;
	bool threaded = argc == 5 && strcmp(argv[4], "threaded") == 0;
	pthread_t t;

	if (argc < 4 || (argc != 4 && !threaded && argc != 6))
		return 2;
	if (argc == 6 &&
	    ((ready = fopen(argv[4], "w")) == NULL || (wait = fopen(argv[5], "r")) == NULL))
		return failed("fifos");
	uid_t uid = (uid_t)strtoul(argv[2], NULL, 10);
	long n = atol(argv[3]);
	calls(n);
	if (keep_caps_and_drop(uid) != 0)
		return 1;
	worker_n = n;
	pthread_barrier_init(&made, NULL, threaded ? 2 : 1);
	if (threaded && pthread_create(&t, NULL, worker, NULL) != 0)
		return failed("pthread_create");
	if (the_call(argv[1], uid) != 0)
		return failed(argv[1]);
	pthread_barrier_wait(&made);
	if (threaded)
		pthread_join(t, NULL);
	calls(n);
	if (ready != NULL && ready_then_wait(ready, wait) != 0)
		return 1;
	gid_t groups[64];
	int ng = getgroups(64, groups);
	printf("uid %u euid %u gid %u egid %u groups %d sum %ld\n", (unsigned)getuid(),
	       (unsigned)geteuid(), (unsigned)getgid(), (unsigned)getegid(), ng, sum);
	return 0;
}
