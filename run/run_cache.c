/* SPDX-License-Identifier: MIT */
/*
 * run_cache.c - the directory the launcher builds spec files' shims into.
 *
 * The cache is $APIPROF_CACHE, else $XDG_CACHE_HOME/apiprof, else
 * $HOME/.cache/apiprof (XDG_CACHE_HOME and HOME only when absolute).
 * Missing components are created 0700, each only in a directory that
 * passes apiprof_trust_create_in.  The cache is used when every directory
 * of its real path passes apiprof_trust_ancestors, it is ours and writable
 * by nobody else, and its path has no space or ':' (LD_PRELOAD cannot hold
 * them).  Otherwise, or when none of the three is set, the shims go to a
 * private directory under $TMPDIR or /tmp: apiprof-UID, reused from run to
 * run when it passes the same checks, else a fresh apiprof-UID.XXXXXX.
 * That one is left behind: the program is exec'd, nobody remains to
 * remove it, and the loader opens the shim after the exec.  There is no
 * directory shared between users, and nothing found in a directory that
 * fails the checks is ever loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_trust.h"
#include "run.h"

#define WHY_MAX (RUN_PATH_MAX + 128)

/* The directory that would hold p: "." for a bare name, "/" at the top. */
static void parent_of(const char *p, char *out, size_t cap)
{
	const char *slash = strrchr(p, '/');

	if (slash == NULL)
		snprintf(out, cap, ".");
	else if (slash == p)
		snprintf(out, cap, "/");
	else
		snprintf(out, cap, "%.*s", (int)(slash - p), p);
}

static int make_one(const char *p, char *why, size_t cap)
{
	char parent[RUN_PATH_MAX];
	struct stat st;

	if (stat(p, &st) == 0)
		return 0; /* judged afterwards, on the real path */
	if (errno != ENOENT)
		return run_whyf(why, cap, "%s: %s", p, strerror(errno));
	parent_of(p, parent, sizeof(parent));
	if (apiprof_trust_create_in(parent, why, cap) != 0)
		return -1;
	if (mkdir(p, 0700) != 0 && errno != EEXIST)
		return run_whyf(why, cap, "cannot create %s: %s", p, strerror(errno));
	return 0;
}

/* mkdir -p, 0700, one component at a time. */
static int make_path(const char *path, char *why, size_t cap)
{
	char p[RUN_PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(p))
		return run_whyf(why, cap, "the path is empty or too long");
	memcpy(p, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		p[i] = '\0';
		int rc = make_one(p, why, cap);
		p[i] = path[i];
		if (rc != 0)
			return -1;
	}
	return 0;
}

/* The checks of the file comment, on the real path. */
static int use_dir(const char *path, struct run_cache *c, char *why, size_t cap)
{
	char r[WHY_MAX];

	if (make_path(path, r, sizeof(r)) != 0)
		return run_whyf(why, cap, "not trusted: %s", r);
	if (realpath(path, c->dir) == NULL)
		return run_whyf(why, cap, "%s: %s", path, strerror(errno));
	if (run_path_splits(c->dir))
		return run_whyf(why, cap, "a space or ':' in %s, which LD_PRELOAD cannot hold",
		                c->dir);
	if (apiprof_trust_ancestors(c->dir, r, sizeof(r)) != 0)
		return run_whyf(why, cap, "not trusted: %s", r);
	c->fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->fd < 0)
		return run_whyf(why, cap, "%s: %s", c->dir, strerror(errno));
	if (run_fd_mine(c->fd, c->dir, 1, r, sizeof(r)) != 0) {
		close(c->fd);
		c->fd = -1;
		return run_whyf(why, cap, "not trusted: %s", r);
	}
	return 0;
}

/* $TMPDIR if it is absolute and LD_PRELOAD can hold it, then /tmp. */
static int private_dir(struct run_cache *c, char *why, size_t cap)
{
	const char *t = getenv("TMPDIR"), *bases[2] = {"/tmp", NULL};
	char path[RUN_PATH_MAX], r[WHY_MAX];
	unsigned uid = (unsigned)geteuid();

	if (t && t[0] == '/' && !run_path_splits(t) && strcmp(t, "/tmp") != 0) {
		bases[0] = t;
		bases[1] = "/tmp";
	}
	for (int i = 0; i < 2 && bases[i]; i++) {
		snprintf(path, sizeof(path), "%s/apiprof-%u", bases[i], uid);
		if (use_dir(path, c, r, sizeof(r)) == 0)
			return 0;
		if (*why == '\0')
			snprintf(why, cap, "%s", r); /* the first reason is the telling one */
	}
	for (int i = 0; i < 2 && bases[i]; i++) {
		snprintf(path, sizeof(path), "%s/apiprof-%u.XXXXXX", bases[i], uid);
		if (mkdtemp(path) != NULL && use_dir(path, c, r, sizeof(r)) == 0)
			return 0;
	}
	return -1;
}

static const char *wanted(char *buf, size_t cap)
{
	const char *c = getenv("APIPROF_CACHE"), *x = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");

	if (c && *c)
		return c;
	if (x && x[0] == '/')
		return snprintf(buf, cap, "%s/apiprof", x) < (int)cap ? buf : NULL;
	if (h && h[0] == '/')
		return snprintf(buf, cap, "%s/.cache/apiprof", h) < (int)cap ? buf : NULL;
	return NULL;
}

int run_cache_open(struct run_cache *c)
{
	char buf[RUN_PATH_MAX], why[WHY_MAX] = "";
	const char *want = wanted(buf, sizeof(buf));

	c->fd = -1;
	if (want && use_dir(want, c, why, sizeof(why)) == 0)
		return 0;
	if (private_dir(c, why, sizeof(why)) != 0) {
		fprintf(stderr, "apiprof-run: no private directory to build a shim in: %s\n", why);
		return -1;
	}
	/* Silent when nothing was set and apiprof-UID was simply used. */
	if (want)
		fprintf(stderr, "apiprof-run: shim cache %s: %s; building in %s\n", want, why,
		        c->dir);
	else if (*why != '\0')
		fprintf(stderr, "apiprof-run: shim cache: %s; building in %s\n", why, c->dir);
	return 0;
}
