/* SPDX-License-Identifier: MIT */
/*
 * dropprog - a server's way to its end: N calls of tl_add, then
 *
 *   dropprog self UID:GID N STATUS
 *       becomes that user, N more calls
 *   dropprog fork UID:GID N STATUS LOG
 *       opens LOG for appending on fd 2 (its error log, as nginx does),
 *       forks a worker that becomes the user and makes N calls; waits
 *   dropprog data UID:GID N STATUS FILE
 *       opens FILE read-write on fd 2 (data, not a log), becomes the
 *       user, N more calls
 *   dropprog chdir DIR N STATUS
 *       changes to DIR (postgres goes to its data directory), N more calls
 *
 * and exits STATUS (fork: the worker's status).  Prints the number of
 * calls the process that drops privileges (or changes directory) made.
 */
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"

static int calls(int n)
{
	int sum = 0;

	for (int i = 0; i < n; i++)
		sum = tl_add(sum, 1);
	return sum;
}

/* ids: "UID:GID". */
static int become(const char *ids)
{
	char *end;
	uid_t u = (uid_t)strtoul(ids, &end, 10);
	gid_t g = (gid_t)strtoul(*end == ':' ? end + 1 : end, NULL, 10);

	if (setgroups(0, NULL) != 0 || setgid(g) != 0 || setuid(u) != 0) {
		perror("dropprog: becoming the user");
		return -1;
	}
	return 0;
}

/* fd 2 is file, opened with flags (as a server puts its log there). */
static int on_fd2(const char *file, int flags)
{
	int fd = open(file, flags | O_CREAT, 0644);

	if (fd < 0 || dup2(fd, STDERR_FILENO) != STDERR_FILENO)
		return -1;
	close(fd);
	return 0;
}

static int worker(const char *uid, int n, int status, const char *log)
{
	if (on_fd2(log, O_WRONLY | O_APPEND) != 0)
		return 2;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (become(uid) != 0)
			_exit(2);
		printf("worker: %d calls\n", calls(n));
		exit(status);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	const char *how = argv[1], *arg = argv[2];
	int n = atoi(argv[3]), status = atoi(argv[4]), sum = calls(n);

	if (strcmp(how, "fork") == 0)
		return argc > 5 ? worker(arg, n, status, argv[5]) : 2;
	if (strcmp(how, "data") == 0 && (argc < 6 || on_fd2(argv[5], O_RDWR) != 0))
		return 2;
	if (strcmp(how, "chdir") == 0 ? chdir(arg) != 0 : become(arg) != 0)
		return 2;
	printf("%d calls\n", sum + calls(n));
	return status;
}
