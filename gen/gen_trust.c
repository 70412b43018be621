// SPDX-License-Identifier: MIT
/*
 * gen_trust.c - whether another user could have written a path (the rule
 * of gen_trust.h), shared by apiprof-run and `apiprof-gen build`.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_trust.h"

static int gen_trust_whyf(char *why, size_t cap, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int gen_trust_whyf(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -1;
}

/* A directory on the way: only root or we can change it, or it is sticky
 * and root's or ours (others can add to it, not rename). */
static int gen_trust_dir_ok(const struct stat *st, uid_t uid)
{
	if (!S_ISDIR(st->st_mode) || (st->st_uid != 0 && st->st_uid != uid))
		return 0;
	return !(st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_mode & S_ISVTX);
}

/* A file at the end: a regular one of root's or ours nobody else can write. */
static int gen_trust_file_ok(const struct stat *st, uid_t uid)
{
	return S_ISREG(st->st_mode) && (st->st_uid == 0 || st->st_uid == uid) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int gen_trust_why_stat(char *why, size_t cap, const char *path, const struct stat *st, int root_ok)
{
	if (st->st_uid != geteuid() && !(root_ok && st->st_uid == 0))
		return gen_trust_whyf(why, cap, "%s is owned by uid %u", path,
		                      (unsigned)st->st_uid);
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return gen_trust_whyf(why, cap, "%s is not a directory", path);
	return gen_trust_whyf(why, cap, "%s is writable by group or others", path);
}

static int gen_trust_check_dir(const char *p, int follow, char *why, size_t cap)
{
	struct stat st;

	if ((follow ? stat(p, &st) : lstat(p, &st)) != 0)
		return gen_trust_whyf(why, cap, "%s: %s", p, strerror(errno));
	return gen_trust_dir_ok(&st, geteuid()) ? 0 : gen_trust_why_stat(why, cap, p, &st, 1);
}

int gen_trust_may_create_in(const char *dir, char *why, size_t cap)
{
	return gen_trust_check_dir(dir, 1, why, cap);
}

/* Every directory from / down to real, and real itself when last_too. */
static int gen_trust_walk(const char *real, int last_too, char *why, size_t cap)
{
	char p[PATH_MAX];
	size_t n = strlen(real);

	if (real[0] != '/' || n >= sizeof(p))
		return gen_trust_whyf(why, cap, "%s is not an absolute path", real);
	if (gen_trust_check_dir("/", 0, why, cap) != 0)
		return -1;
	memcpy(p, real, n + 1);
	/* A real path has no "//": its first component ends at 2 or later. */
	for (size_t i = 2; i < n || (last_too && i == n); i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		int rc = gen_trust_check_dir(p, 0, why, cap);
		p[i] = real[i];
		if (rc != 0)
			return -1;
	}
	return 0;
}

int gen_trust_ancestors(const char *real, char *why, size_t cap)
{
	return gen_trust_walk(real, 1, why, cap);
}

int gen_trust_path(const char *path, char *why, size_t cap)
{
	char real[PATH_MAX];
	struct stat st;

	if (realpath(path, real) == NULL || lstat(real, &st) != 0)
		return gen_trust_whyf(why, cap, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return gen_trust_ancestors(real, why, cap);
	if (gen_trust_walk(real, 0, why, cap) != 0)
		return -1;
	if (!gen_trust_file_ok(&st, geteuid()))
		return gen_trust_why_stat(why, cap, real, &st, 1);
	return 0;
}
