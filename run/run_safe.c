/* SPDX-License-Identifier: MIT */
/*
 * run_safe.c - what the launcher may hand to the loader.
 *
 * Everything in LD_PRELOAD runs inside the user's program, so a shim the
 * launcher names must be one nobody else could have written or swapped:
 * every directory on its path passes the rule of gen_trust.h (shared with
 * `apiprof-gen build`, which applies it to specs and headers), its own
 * directory and the file the user's and writable by nobody else.  And
 * ld.so splits LD_PRELOAD at spaces and colons, with no way to escape
 * them, so no such path may contain one.
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

#include "gen_trust.h"
#include "run.h"

/* The launcher's own ELF header: a shim must be built for this machine. */
extern const ElfW(Ehdr) __ehdr_start;

int run_path_splits(const char *path)
{
	return strpbrk(path, " :\t\n") != NULL;
}

int run_whyf(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

int run_may_create_in(const char *dir, char *why, size_t cap)
{
	return gen_trust_may_create_in(dir, why, cap);
}

int run_ancestors_ok(const char *real, char *why, size_t cap)
{
	return gen_trust_ancestors(real, why, cap);
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
		return gen_trust_why_stat(why, cap, path, &st, 0);
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
