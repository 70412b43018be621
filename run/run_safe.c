/* SPDX-License-Identifier: MIT */
/*
 * run_safe.c - what the launcher may hand to the loader.
 *
 * Everything in LD_PRELOAD runs inside the user's program, so a shim the
 * launcher names must be one nobody else could have written or swapped:
 * every directory on its path owned by root or the user and not writable
 * by others (a sticky one, as /tmp, is fine: nobody else may rename our
 * entries there), its own directory and the file the user's and writable
 * by nobody else.  And ld.so splits LD_PRELOAD at spaces and colons, with
 * no way to escape them, so no such path may contain one.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run.h"

/* The launcher's own ELF header: a shim must be built for this machine. */
extern const ElfW(Ehdr) __ehdr_start;

int run_path_splits(const char *path)
{
	return strpbrk(path, " :\t\n") != NULL;
}

/* A directory on the way to a shim: only root or we can change it, or
 * it is sticky and root's or ours (others can add to it, not rename). */
static int ancestor_ok(const struct stat *st, uid_t uid)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && st->st_uid != uid))
		return 0;
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX);
}

int run_whyf(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

static int why_stat(char *why, size_t cap, const char *path, const struct stat *st, int root_ok)
{
	if (st->st_uid != geteuid() && !(root_ok && st->st_uid == 0))
		return run_whyf(why, cap, "%s is owned by uid %u", path, (unsigned)st->st_uid);
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return run_whyf(why, cap, "%s is not a directory", path);
	return run_whyf(why, cap, "%s is writable by group or others", path);
}

static int check_ancestor(const char *p, int follow, char *why, size_t cap)
{
	struct stat st;

	if ((follow ? stat(p, &st) : lstat(p, &st)) != 0)
		return run_whyf(why, cap, "%s: %s", p, strerror(errno));
	return ancestor_ok(&st, geteuid()) ? 0 : why_stat(why, cap, p, &st, 1);
}

int run_may_create_in(const char *dir, char *why, size_t cap)
{
	return check_ancestor(dir, 1, why, cap);
}

int run_ancestors_ok(const char *real, char *why, size_t cap)
{
	char p[RUN_PATH_MAX];
	size_t n = strlen(real);

	if (real[0] != '/' || n >= sizeof(p))
		return run_whyf(why, cap, "%s is not an absolute path", real);
	if (check_ancestor("/", 0, why, cap) != 0)
		return -1;
	memcpy(p, real, n + 1);
	/* A real path has no "//": its first component ends at 2 or later. */
	for (size_t i = 2; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		int rc = check_ancestor(p, 0, why, cap);
		p[i] = real[i];
		if (rc != 0)
			return -1;
	}
	return 0;
}

int run_fd_mine(int fd, const char *path, int want_dir, char *why, size_t cap)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return run_whyf(why, cap, "%s: %s", path, strerror(errno));
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return run_whyf(why, cap, "%s is not a %s", path,
		                want_dir ? "directory" : "regular file");
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return why_stat(why, cap, path, &st, 0);
	return 0;
}

int run_fd_is_shlib(int fd)
{
	ElfW(Ehdr) eh;

	return pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
	       memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh.e_ident[EI_CLASS] == __ehdr_start.e_ident[EI_CLASS] && eh.e_type == ET_DYN &&
	       eh.e_machine == __ehdr_start.e_machine;
}

/* What ld.so would do with the element, checked before the exec that
 * cannot be taken back: a path it would split, or a file it could not
 * load, would leave the program running unprofiled with an empty result.
 * A bare name (found on the loader's search path) is only checked for
 * separators. */
int run_preload_check(const char *path)
{
	struct stat st;

	if (run_path_splits(path)) {
		fprintf(stderr,
		        "apiprof-run: %s cannot be preloaded: LD_PRELOAD splits paths at spaces "
		        "and ':'\n",
		        path);
		return -1;
	}
	if (strchr(path, '/') == NULL)
		return 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "apiprof-run: %s cannot be preloaded: %s\n", path, strerror(errno));
		return -1;
	}
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && run_fd_is_shlib(fd);
	close(fd);
	if (!ok)
		fprintf(stderr,
		        "apiprof-run: %s cannot be preloaded: not a shared library for this "
		        "machine\n",
		        path);
	return ok ? 0 : -1;
}
