/* SPDX-License-Identifier: MIT */
/*
 * apiprof_trust.c - directories only root or we can change
 * (apiprof_trust.h).
 *
 * A symlink of another user on the way to a directory could send our
 * files anywhere, so apiprof_trust_open_dir resolves the path itself, one
 * component at a time, and follows only root's and our symlinks; the real
 * path it arrives at is then checked from / down, and opened without
 * following anything.  A trusted directory cannot be swapped afterwards:
 * nobody else can rename it or anything above it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_trust.h"

#define MAX_LINKS 40 /* as the kernel's bound */

static int whyf(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int whyf(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

bool apiprof_trust_dir(const struct stat *st, uid_t uid)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && st->st_uid != uid))
		return false;
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX);
}

int apiprof_trust_why(char *why, size_t cap, const char *path, const struct stat *st, bool root_ok)
{
	if (st->st_uid != geteuid() && !(root_ok && st->st_uid == 0))
		return whyf(why, cap, "%s is owned by uid %u", path, (unsigned)st->st_uid);
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return whyf(why, cap, "%s is not a directory", path);
	return whyf(why, cap, "%s is writable by group or others", path);
}

static int check_ancestor(const char *p, bool follow, char *why, size_t cap)
{
	struct stat st;

	if ((follow ? stat(p, &st) : lstat(p, &st)) != 0)
		return whyf(why, cap, "%s: %s", p, strerror(errno));
	return apiprof_trust_dir(&st, geteuid()) ? 0 : apiprof_trust_why(why, cap, p, &st, true);
}

int apiprof_trust_create_in(const char *dir, char *why, size_t cap)
{
	return check_ancestor(dir, true, why, cap);
}

/* Every directory from / down to real, and real itself when last_too. */
static int walk(const char *real, bool last_too, char *why, size_t cap)
{
	char p[PATH_MAX];
	size_t n = strlen(real);

	if (real[0] != '/' || n >= sizeof(p))
		return whyf(why, cap, "%s is not an absolute path", real);
	if (check_ancestor("/", false, why, cap) != 0)
		return -1;
	memcpy(p, real, n + 1);
	/* A real path has no "//": its first component ends at 2 or later. */
	for (size_t i = 2; i < n || (last_too && i == n); i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		int rc = check_ancestor(p, false, why, cap);
		p[i] = real[i];
		if (rc != 0)
			return -1;
	}
	return 0;
}

int apiprof_trust_ancestors(const char *real, char *why, size_t cap)
{
	return walk(real, true, why, cap);
}

int apiprof_trust_path(const char *path, char *why, size_t cap)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(path, real) == NULL || lstat(real, &st) != 0)
		return whyf(why, cap, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return apiprof_trust_ancestors(real, why, cap);
	if (walk(real, false, why, cap) != 0)
		return -1;
	/* A file at the end: a regular one of root's or ours nobody else can
	 * write. */
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return apiprof_trust_why(why, cap, real, &st, true);
	return 0;
}

/* p[0..end) is a symlink: p becomes its target, relative to the link's
 * directory, followed by what came after it (p + end). */
static int splice_link(char *p, size_t end, char *why, size_t cap)
{
	char target[PATH_MAX], rest[PATH_MAX];
	ssize_t n = readlink(p, target, sizeof(target) - 1);
	size_t dir = end;

	if (n < 0)
		return whyf(why, cap, "%.*s: %s", (int)end, p, strerror(errno));
	target[n] = '\0';
	snprintf(rest, sizeof(rest), "%s", p + end);
	while (dir > 0 && p[dir - 1] != '/')
		dir--;
	if (target[0] == '/')
		dir = 0;
	if (dir + strlen(target) + strlen(rest) >= PATH_MAX)
		return whyf(why, cap, "%.*s: %s", (int)end, p, strerror(ENAMETOOLONG));
	snprintf(p + dir, PATH_MAX - dir, "%s%s", target, rest);
	return 0;
}

/* Replaces every symlink in p (PATH_MAX bytes, absolute) by its target,
 * refusing one of another user's. */
static int follow_trusted(char *p, char *why, size_t cap)
{
	int links = 0;

	for (size_t i = 1; p[i - 1] != '\0'; i++) {
		struct stat st;

		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		int rc = lstat(p, &st);
		p[i] = c;
		if (rc != 0)
			return whyf(why, cap, "%.*s: %s", (int)i, p, strerror(errno));
		if (!S_ISLNK(st.st_mode))
			continue;
		if (st.st_uid != 0 && st.st_uid != geteuid())
			return whyf(why, cap, "%.*s is a symlink of uid %u", (int)i, p,
			            (unsigned)st.st_uid);
		if (++links > MAX_LINKS)
			return whyf(why, cap, "%s: %s", p, strerror(ELOOP));
		if (splice_link(p, i, why, cap) != 0)
			return -1;
		i = 0; /* again from the top */
	}
	return 0;
}

static int open_real(const char *real, char *why, size_t cap)
{
	struct stat st, at;

	if (apiprof_trust_ancestors(real, why, cap) != 0)
		return -1;
	if (lstat(real, &at) != 0)
		return whyf(why, cap, "%s: %s", real, strerror(errno));
	int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return whyf(why, cap, "%s: %s", real, strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_dev != at.st_dev || st.st_ino != at.st_ino ||
	    !apiprof_trust_dir(&st, geteuid())) {
		close(fd);
		return whyf(why, cap, "%s changed while being opened", real);
	}
	return fd;
}

int apiprof_trust_open_dir(const char *path, char *why, size_t cap)
{
	char p[PATH_MAX], real[PATH_MAX];
	int n = path[0] == '/' ? snprintf(p, sizeof(p), "%s", path) : -1;

	if (path[0] != '/' && getcwd(real, sizeof(real)) != NULL)
		n = snprintf(p, sizeof(p), "%s/%s", real, path);
	if (n < 0 || (size_t)n >= sizeof(p))
		return whyf(why, cap, "%s: %s", path, strerror(n < 0 ? errno : ENAMETOOLONG));
	if (follow_trusted(p, why, cap) != 0)
		return -1;
	if (realpath(p, real) == NULL)
		return whyf(why, cap, "%s: %s", p, strerror(errno));
	return open_real(real, why, cap);
}
