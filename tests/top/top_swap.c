/* SPDX-License-Identifier: MIT */
/*
 * top_swap - plays the attacker of issue 20 point 6 inside apiprof-top, at
 * the worst moment: preloaded into the viewer, it renames $TOP_SWAP_FROM
 * over the first segment file ("apiprof-*") the viewer opens, just before
 * the open.  The viewer has listed a regular file of its own user; what
 * it opens is a FIFO, a symbolic link or another user's file.  With
 * $TOP_SWAP_EMFILE set it plays a process out of descriptors instead:
 * every open of a segment file fails with EMFILE; with
 * $TOP_SWAP_EMFILE_DIR, every open of that path after the first
 * $TOP_SWAP_EMFILE_AFTER ones does.
 */
/* The build's -D_FILE_OFFSET_BITS=64 renames open to open64; this file
 * defines both names itself. */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*openat_fn)(int, const char *, int, ...);

static void swap(int dfd, const char *path)
{
	static int done;
	const char *from = getenv("TOP_SWAP_FROM");
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (done || !from || strncmp(base, "apiprof-", 8) != 0)
		return;
	done = 1;
	if (renameat(AT_FDCWD, from, dfd, path) != 0 && errno != ENOENT)
		perror("top_swap: rename");
}

static int dir_exhausted(const char *path)
{
	static long opens;
	const char *dir = getenv("TOP_SWAP_EMFILE_DIR");
	const char *after = getenv("TOP_SWAP_EMFILE_AFTER");

	return dir && after && strcmp(path, dir) == 0 && ++opens > atol(after);
}

static int forward(const char *sym, int dfd, const char *path, int flags, mode_t mode)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, sym);
	const char *base = strrchr(path, '/');

	if ((getenv("TOP_SWAP_EMFILE") && strncmp(base ? base + 1 : path, "apiprof-", 8) == 0) ||
	    dir_exhausted(path)) {
		errno = EMFILE;
		return -1;
	}
	swap(dfd, path);
	return real(dfd, path, flags, mode);
}

#define MODE_ARG(flags, mode)                                                                      \
	do {                                                                                       \
		va_list ap;                                                                        \
		va_start(ap, flags);                                                               \
		mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;                   \
		va_end(ap);                                                                        \
	} while (0)

int openat(int dfd, const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return forward("openat", dfd, path, flags, mode);
}

int openat64(int dfd, const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return forward("openat64", dfd, path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return forward("openat", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode;

	MODE_ARG(flags, mode);
	return forward("openat64", AT_FDCWD, path, flags, mode);
}
