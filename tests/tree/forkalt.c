/* SPDX-License-Identifier: MIT */
/*
 * forkalt.c - a fork while a row keeps a run parked (issue 35.1's parked
 * run, apiprof_unpark): tr_close from two call sites by turns, site_a
 * site_b site_a ... (each switch parks the other site's run), N rounds;
 * then a fork, inside tf_spawn (a profiled call, how 1: the child goes on
 * after it returned) or by fork() itself between calls (how 2); the child
 * makes M rounds by turns and exits, the parent waits for it and makes K
 * more.  So tr_close's callers are site_a N + K and site_b N + K in the
 * parent, site_a M and site_b M in the child.  The parent prints
 * "child PID"; exit 0 when the child did.
 *
 *   forkalt N M K HOW
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "treelib.h"

__attribute__((noinline)) void site_a(void)
{
	tr_close();
}

__attribute__((noinline)) void site_b(void)
{
	tr_close();
}

static void turns(int n)
{
	for (int i = 0; i < n; i++) {
		site_a();
		site_b();
	}
}

/* 0 in the child, its pid in the parent once it ended well, -1 else. */
static int spawn(int how)
{
	if (how == TF_RETURN)
		return tf_spawn(0, TF_RETURN);
	pid_t pid = fork();
	int status;

	if (pid <= 0)
		return pid;
	while (waitpid(pid, &status, 0) < 0)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? pid : -1;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	turns(atoi(argv[1]));
	int pid = spawn(atoi(argv[4]));
	if (pid == 0) {
		turns(atoi(argv[2]));
		return 0;
	}
	turns(atoi(argv[3]));
	printf("child %d\n", pid);
	return pid > 0 ? 0 : 1;
}
