/* SPDX-License-Identifier: MIT */
/*
 * gen_trust.h - whether another user could have written a path.
 *
 * One rule for everything apiprof builds from or loads: the shim cache of
 * apiprof-run and every directory above it, and the spec, its headers and
 * its include directories that `apiprof-gen build` compiles into code the
 * user will run.  A path is trusted when every directory from / down to
 * it is root's or the user's and writable by nobody else unless it is
 * sticky (as /tmp: nobody else may rename our entries there), and a file
 * is root's or the user's and writable by nobody else.
 */
#ifndef GEN_TRUST_H
#define GEN_TRUST_H

#include <stddef.h>
#include <sys/stat.h>

/* Each check fills why (one clause naming the path) and returns -1 when
 * it fails, 0 when it passes. */

/* Every directory from / down to real (a path without symlinks). */
int gen_trust_ancestors(const char *real, char *why, size_t cap);
/* dir (followed) is a directory we may create an entry in. */
int gen_trust_may_create_in(const char *dir, char *why, size_t cap);
/* path (resolved with realpath) is a directory or regular file nobody
 * else could have written, nor any directory above it. */
int gen_trust_path(const char *path, char *why, size_t cap);
/* Why st (of path) failed: its owner (root passes when root_ok), its
 * type, else its mode.  Always -1. */
int gen_trust_why_stat(char *why, size_t cap, const char *path, const struct stat *st, int root_ok);

#endif /* GEN_TRUST_H */
