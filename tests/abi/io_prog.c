// SPDX-License-Identifier: MIT
/*
 * io_prog.c - one program, built plain, with -D_FORTIFY_SOURCE=2 and with
 * -D_FILE_OFFSET_BITS=64 (see meson.build).  The builds call different
 * entry points for the same operations (open, __open_2, open64,
 * __open64_2, __read_chk, pread64, __pread_chk, lseek64, ...); under the
 * posix_io shim, whose spec lists those as aliases, each must count the
 * same rows.
 *
 *   io_prog DIR N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Flags and sizes the compiler cannot see through, so that fortified
 * builds take the checking entry points (__open_2, __read_chk) rather
 * than proving the call safe. */
static volatile int rd_only = O_RDONLY;
static volatile size_t len_mask = 63;

static int round_trip(int dir, const char *name, size_t n)
{
	char buf[65], path[256];
	struct iovec iov;
	int fd;

	n = (n & len_mask) + 1;
	iov.iov_base = buf;
	iov.iov_len = n;
	memset(buf, 'x', sizeof buf);
	snprintf(path, sizeof path, "/proc/self/fd/%d/%s", dir, name);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || write(fd, buf, n) != (ssize_t)n ||
	    pwrite(fd, buf, n, (off_t)n) != (ssize_t)n || writev(fd, &iov, 1) != (ssize_t)n ||
	    fsync(fd) != 0 || fdatasync(fd) != 0 || close(fd))
		return -1;
	fd = openat(dir, name, rd_only);
	if (fd < 0 || read(fd, buf, n) != (ssize_t)n || pread(fd, buf, n, (off_t)n) != (ssize_t)n ||
	    lseek(fd, 0, SEEK_SET) != 0 || readv(fd, &iov, 1) != (ssize_t)n || close(fd))
		return -1;
	fd = open(path, rd_only);
	if (fd < 0 || close(fd))
		return -1;
	fd = creat(path, 0600);
	return fd < 0 ? -1 : close(fd);
}

int main(int argc, char **argv)
{
	int dir, rounds;

	if (argc != 3)
		return fprintf(stderr, "usage: io_prog DIR N\n"), 2;
	dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	rounds = atoi(argv[2]);
	for (int i = 0; i < rounds; i++)
		if (dir < 0 || round_trip(dir, "f", (size_t)i) < 0)
			return perror("io_prog"), 1;
	return close(dir) != 0;
}
