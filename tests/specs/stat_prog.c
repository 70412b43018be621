// SPDX-License-Identifier: MIT
/*
 * stat_prog.c - calls each entry point of the stat family a known number
 * of times, so that stat.sh can check posix_io's rows exactly.  Built
 * plain and with -D_FILE_OFFSET_BITS=64 (see meson.build), which turns
 * stat, fstat, lstat and fstatat into stat64, fstat64, lstat64 and
 * fstatat64; both call the entry points of programs built before glibc
 * 2.33 (__xstat, __xstat64, __fxstat, ...) by name.
 *
 *   stat_prog FILE N
 *
 * Per round: stat 3 (stat or stat64, __xstat, __xstat64), fstat 3,
 * lstat 3, fstatat 3 and statx 1; and one fstat before the first round.
 * Every call must succeed and agree on the file's inode; the size is
 * printed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* glibc exports these (default versions) for old binaries; since 2.33 no
 * header declares them.  1 is _STAT_VER_LINUX, the version x86-64 uses. */
#define VER 1
extern int __xstat(int ver, const char *path, struct stat *buf);
extern int __xstat64(int ver, const char *path, struct stat64 *buf);
extern int __fxstat(int ver, int fd, struct stat *buf);
extern int __fxstat64(int ver, int fd, struct stat64 *buf);
extern int __lxstat(int ver, const char *path, struct stat *buf);
extern int __lxstat64(int ver, const char *path, struct stat64 *buf);
extern int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);
extern int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flags);

/* The calls by today's names: 0, or -1 if one failed or saw another inode. */
static int current(const char *path, int fd, ino_t ino)
{
	struct stat a, b, c, d;
	struct statx x;

	if (stat(path, &a) || fstat(fd, &b) || lstat(path, &c) || fstatat(AT_FDCWD, path, &d, 0) ||
	    statx(AT_FDCWD, path, 0, STATX_INO, &x))
		return -1;
	return a.st_ino == ino && b.st_ino == ino && c.st_ino == ino && d.st_ino == ino &&
	                       x.stx_ino == ino
	               ? 0
	               : -1;
}

static int old(const char *path, int fd, ino_t ino)
{
	struct stat a, b, c, d;

	if (__xstat(VER, path, &a) || __fxstat(VER, fd, &b) || __lxstat(VER, path, &c) ||
	    __fxstatat(VER, AT_FDCWD, path, &d, 0))
		return -1;
	return a.st_ino == ino && b.st_ino == ino && c.st_ino == ino && d.st_ino == ino ? 0 : -1;
}

static int old64(const char *path, int fd, ino_t ino)
{
	struct stat64 a, b, c, d;

	if (__xstat64(VER, path, &a) || __fxstat64(VER, fd, &b) || __lxstat64(VER, path, &c) ||
	    __fxstatat64(VER, AT_FDCWD, path, &d, 0))
		return -1;
	return a.st_ino == ino && b.st_ino == ino && c.st_ino == ino && d.st_ino == ino ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct stat st;

	if (argc != 3)
		return fprintf(stderr, "usage: stat_prog FILE N\n"), 2;
	int fd = open(argv[1], O_RDONLY | O_CLOEXEC), rounds = atoi(argv[2]);
	if (fd < 0 || fstat(fd, &st) != 0)
		return perror("stat_prog"), 1;
	for (int i = 0; i < rounds; i++)
		if (current(argv[1], fd, st.st_ino) || old(argv[1], fd, st.st_ino) ||
		    old64(argv[1], fd, st.st_ino))
			return perror("stat_prog"), 1;
	printf("%lld bytes\n", (long long)st.st_size);
	return close(fd) != 0;
}
