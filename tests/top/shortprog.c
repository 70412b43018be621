/* SPDX-License-Identifier: MIT */
/*
 * shortprog - short-lived profiled processes (issue 35, point 4).
 *
 *   shortprog N                  N calls of tt_work, then exit
 *   shortprog N K [segv|abrt]    K fork children, one after another, each
 *                                making N calls of tt_work, then exiting
 *                                (or dying of SIGSEGV or SIGABRT, half of
 *                                them each for "both"); the parent makes
 *                                none, and prints how the children ended
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "toplib.h"

static int die_how(const char *how, long i)
{
	if (strcmp(how, "segv") == 0 || (strcmp(how, "both") == 0 && i % 2 == 0))
		return SIGSEGV;
	if (strcmp(how, "abrt") == 0 || strcmp(how, "both") == 0)
		return SIGABRT;
	return 0;
}

static void child(long n, int sig)
{
	int sum = 0;

	for (long i = 0; i < n; i++)
		sum += tt_work(1);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	exit(sum == 0 ? 3 : 0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, k = argc > 2 ? atol(argv[2]) : 0;
	long exited = 0, killed = 0;
	const char *how = argc > 3 ? argv[3] : "exit";

	if (n < 1)
		return 2;
	if (k < 1)
		child(n, 0);
	for (long i = 0; i < k; i++) {
		int st;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			child(n, die_how(how, i));
		if (waitpid(pid, &st, 0) != pid)
			return 1;
		exited += WIFEXITED(st) && WEXITSTATUS(st) == 0;
		killed += WIFSIGNALED(st);
	}
	printf("exited %ld killed %ld\n", exited, killed);
	return 0;
}
