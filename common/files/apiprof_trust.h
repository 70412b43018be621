/* SPDX-License-Identifier: MIT */
/*
 * apiprof_trust.h - paths only root or we can change, for the tools
 * (apiprof-run's shim cache, apiprof-top's --textfile directory, the specs
 * and headers apiprof-gen build compiles); not part of the runtime.
 *
 * A directory is trusted when it and every directory above it is root's or
 * ours and writable by nobody else, unless it is sticky (as /tmp: others
 * may add to it, not rename or remove our entries).  The checks fill why
 * (one clause naming the path) and return -1 when they fail.
 */
#ifndef APIPROF_TRUST_H
#define APIPROF_TRUST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* st, a directory on the way: root's or uid's, and not writable by others
 * unless sticky. */
bool apiprof_trust_dir(const struct stat *st, uid_t uid);

/* Why st (of path) fails: its owner, its type or its write bits.  root_ok:
 * root's is as good as ours.  Returns -1. */
int apiprof_trust_why(char *why, size_t cap, const char *path, const struct stat *st, bool root_ok);

/* Every directory from / down to real (a path without symlinks) is
 * trusted. */
int apiprof_trust_ancestors(const char *real, char *why, size_t cap);

/* path (resolved with realpath) is a directory or a regular file nobody
 * else could have written (root's or ours, writable by nobody else), nor
 * any directory above it: what `apiprof-gen build` compiles from. */
int apiprof_trust_path(const char *path, char *why, size_t cap);

/* dir (followed) is a directory we may create an entry in, by that rule. */
int apiprof_trust_create_in(const char *dir, char *why, size_t cap);

/* Opens the directory path names, O_DIRECTORY|O_NOFOLLOW, when every
 * symlink met on the way is root's or ours and the directory it leads to
 * is trusted with all above it.  The descriptor, or -1. */
int apiprof_trust_open_dir(const char *path, char *why, size_t cap);

#endif /* APIPROF_TRUST_H */
