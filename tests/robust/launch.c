/* SPDX-License-Identifier: MIT */
/*
 * launch - runs a program in a hostile set-up.  PRELOAD is set in the
 * program's environment only (this launcher is never profiled).
 *
 *   launch brokenpipe PRELOAD PROG [ARGS...]
 *       fd 2 is a pipe whose reader is gone
 *   launch brokensock PRELOAD PROG [ARGS...]
 *       fd 2 is a socket whose peer is gone
 *   launch tmplink PATH VICTIM PRELOAD PROG [ARGS...]
 *       before PROG runs, a symlink to VICTIM (a file holding a known text,
 *       written here) is planted at PATH.<pid>.tmp, the temporary name the
 *       runtime once used for APIPROF_OUTPUT=PATH: the child waits on a
 *       pipe until it is there.  Afterwards VICTIM's text and the symlink
 *       must be unchanged.
 *   launch stuckfifo FIFO full|empty PRELOAD PROG [ARGS...]
 *       FIFO has a reader that never reads: this launcher holds it open
 *       read-write while PROG runs, its buffer shrunk to one page and
 *       filled up (full) or not; then prints how many bytes PROG left in
 *       it, as the last line of stdout.
 *
 * Exit: the program's status (128 + signal when killed), 90 when VICTIM or
 * the symlink was touched (with a message on stderr), 91 on a set-up
 * failure.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEXT "not apiprof's: must stay as it is\n"

static int run(const char *preload, char **argv)
{
	if (preload[0] && setenv("LD_PRELOAD", preload, 1) != 0)
		return 91;
	execvp(argv[0], argv);
	perror(argv[0]);
	return 127;
}

static int broken_stderr(int sock, const char *preload, char **argv)
{
	int fds[2];

	if ((sock ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds)) != 0)
		return 91;
	/* fds[0] is the reader (or the peer): gone. */
	if (close(fds[0]) != 0 || dup2(fds[1], STDERR_FILENO) != STDERR_FILENO)
		return 91;
	close(fds[1]);
	return run(preload, argv);
}

static int text_intact(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(TEXT) && memcmp(buf, TEXT, (size_t)n) == 0;
}

static int status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The bytes waiting in the FIFO open on fd (non-blocking). */
static long drain(int fd)
{
	char buf[4096];
	long total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	return total;
}

static int stuckfifo(const char *fifo, const char *fill, const char *preload, char **argv)
{
	int fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC), st;
	char page[4096];
	long filled = 0;
	ssize_t n;
	pid_t pid;

	if (fd < 0 || fcntl(fd, F_SETPIPE_SZ, sizeof(page)) < 0) {
		perror(fifo);
		return 91;
	}
	memset(page, 'x', sizeof(page));
	while (strcmp(fill, "full") == 0 && (n = write(fd, page, sizeof(page))) > 0)
		filled += n;
	if ((pid = fork()) < 0)
		return 91;
	if (pid == 0)
		_exit(run(preload, argv));
	if (waitpid(pid, &st, 0) != pid)
		return 91;
	printf("launch: %ld bytes left in the FIFO\n", drain(fd) - filled);
	return status(st);
}

static int tmplink(const char *path, const char *victim, const char *preload, char **argv)
{
	char link[4200], c = 'x';
	int go[2], st, fd;
	struct stat sb;
	pid_t pid;

	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, TEXT, strlen(TEXT)) != (ssize_t)strlen(TEXT) || close(fd) != 0 ||
	    pipe(go) != 0 || (pid = fork()) < 0)
		return 91;
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(91);
		close(go[0]);
		_exit(run(preload, argv));
	}
	close(go[0]);
	snprintf(link, sizeof(link), "%s.%d.tmp", path, (int)pid);
	if (symlink(victim, link) != 0 || write(go[1], &c, 1) != 1) {
		perror(link);
		return 91;
	}
	close(go[1]);
	if (waitpid(pid, &st, 0) != pid)
		return 91;
	if (lstat(link, &sb) != 0 || !S_ISLNK(sb.st_mode) || !text_intact(victim)) {
		fprintf(stderr, "launch: the symlink %s or its target %s was changed\n", link,
		        victim);
		return 90;
	}
	unlink(link);
	return status(st);
}

int main(int argc, char **argv)
{
	if (argc > 3 && strcmp(argv[1], "brokenpipe") == 0)
		return broken_stderr(0, argv[2], argv + 3);
	if (argc > 3 && strcmp(argv[1], "brokensock") == 0)
		return broken_stderr(1, argv[2], argv + 3);
	if (argc > 5 && strcmp(argv[1], "tmplink") == 0)
		return tmplink(argv[2], argv[3], argv[4], argv + 5);
	if (argc > 5 && strcmp(argv[1], "stuckfifo") == 0)
		return stuckfifo(argv[2], argv[3], argv[4], argv + 5);
	fprintf(stderr, "usage: launch brokenpipe|brokensock PRELOAD PROG [ARGS...]\n"
	                "       launch tmplink PATH VICTIM PRELOAD PROG [ARGS...]\n"
	                "       launch stuckfifo FIFO full|empty PRELOAD PROG [ARGS...]\n");
	return 2;
}
