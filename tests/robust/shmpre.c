/* SPDX-License-Identifier: MIT */
/*
 * shmpre - runs a program whose segment name is already taken.
 *
 *   shmpre foreign|symlink TARGET PRELOAD PROG [ARGS...]
 *
 * The name the runtime will want, /dev/shm/apiprof-<uid>-<pid>-<starttime>,
 * is known as soon as the child is forked: the pid is fork's result and
 * the start time (field 22 of /proc/<pid>/stat) is the fork's, which exec
 * keeps.  So the child waits on a pipe while the parent takes the name,
 * then execs PROG with LD_PRELOAD=PRELOAD (set in the child only, so that
 * this launcher is never profiled: a profiled fork child would create its
 * segment under that very name before we could).
 *
 *   foreign  a regular file owned by nobody (65534), holding a known text
 *   symlink  a symlink to TARGET, a file of ours holding a known text
 *
 * Afterwards the name must still be what we made, and the file's text and
 * owner unchanged: the runtime never writes through a name it did not
 * create.  Exit: the program's status, or 90 when the name or the file was
 * touched (with a message on stderr), 91 on a set-up failure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof_segname.h"

#define TEXT   "not apiprof's: must stay as it is\n"
#define NOBODY 65534

static unsigned long long starttime(pid_t pid)
{
	uint64_t st;

	return apiprof_proc_starttime("/proc", (int)pid, &st) == 0 ? st : 0;
}

static int write_text(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | flags, 0644);
	int ok = fd >= 0 && write(fd, TEXT, strlen(TEXT)) == (ssize_t)strlen(TEXT);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static int text_intact(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	struct stat st;
	int ok = n == (ssize_t)strlen(TEXT) && memcmp(buf, TEXT, (size_t)n) == 0 &&
	         fstat(fd, &st) == 0 && st.st_size == (off_t)strlen(TEXT);

	if (fd >= 0)
		close(fd);
	return ok;
}

int main(int argc, char **argv)
{
	char name[128], c = 'x';
	int go[2], st, foreign, bad = 0;
	struct stat sb;
	pid_t pid;

	if (argc < 5)
		return 2;
	foreign = strcmp(argv[1], "foreign") == 0;
	if (pipe(go) != 0 || (pid = fork()) < 0)
		return 91;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(91);
		close(go[0]);
		if (argv[3][0] && setenv("LD_PRELOAD", argv[3], 1) != 0)
			_exit(91);
		execvp(argv[4], argv + 4);
		_exit(127);
	}
	close(go[0]);
	snprintf(name, sizeof(name), "/dev/shm/apiprof-%u-%d-%llu", (unsigned)getuid(), (int)pid,
	         starttime(pid));
	if (foreign) {
		if (write_text(name, O_EXCL) != 0 || chown(name, NOBODY, NOBODY) != 0) {
			perror(name);
			return 91;
		}
	} else if (write_text(argv[2], O_TRUNC) != 0 || symlink(argv[2], name) != 0) {
		perror(name);
		return 91;
	}
	if (write(go[1], &c, 1) != 1)
		return 91;
	close(go[1]);
	if (waitpid(pid, &st, 0) != pid)
		return 91;
	if (lstat(name, &sb) != 0) {
		fprintf(stderr, "shmpre: %s was removed\n", name);
		bad = 1;
	} else if (foreign && (!S_ISREG(sb.st_mode) || sb.st_uid != NOBODY || !text_intact(name))) {
		fprintf(stderr, "shmpre: the foreign file %s was changed\n", name);
		bad = 1;
	} else if (!foreign && (!S_ISLNK(sb.st_mode) || !text_intact(argv[2]))) {
		fprintf(stderr, "shmpre: the symlink %s or its target was changed\n", name);
		bad = 1;
	}
	unlink(name);
	if (bad)
		return 90;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
