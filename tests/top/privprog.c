/* SPDX-License-Identifier: MIT */
/*
 * privprog - a server that forks a worker which drops to another user, as
 * nginx (`user nobody`) and postgres do, for test_privdrop.py.
 *
 *   privprog UID PARENT_CALLS CHILD_CALLS
 *
 * The parent calls tt_work PARENT_CALLS times, forks, and waits for the
 * worker.  The worker gives up root for UID (groups, gid, then uid, with
 * setresuid), calls tt_work CHILD_CALLS times, prints "ready PID", and
 * exits at end of file on its stdin.  The test synchronises on those
 * lines, never on time.  Exit: 0, or 3 when the worker could not drop.
 *
 * The parent forks only once the runtime's flusher thread has started
 * (tests/tools/flusher_wait.h says why).
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flusher_wait.h"
#include "toplib.h"

static int worker(uid_t uid, long calls)
{
	char c;

	if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
	    setresuid(uid, uid, uid) != 0) {
		perror("privprog: drop");
		return 3;
	}
	for (long i = 0; i < calls; i++)
		tt_work((int)i);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) == 1)
		;
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pid;
	int st;

	if (argc != 4)
		return 2;
	for (long i = 0; i < atol(argv[2]); i++)
		tt_work((int)i);
	flusher_wait();
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0)
		return worker((uid_t)atol(argv[1]), atol(argv[3]));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}
