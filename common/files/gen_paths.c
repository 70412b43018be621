// SPDX-License-Identifier: MIT
/*
 * gen_paths.c - where apiprof-gen and apiprof-run find the other parts.
 *
 * This file is compiled twice, with two sets of APIPROF_PATH_* macros
 * (gen/meson.build), and each program is linked once with each:
 *
 * - The build tree's programs (build/gen/apiprof-gen, build/run/apiprof-run;
 *   never installed) get the absolute paths of the build and source trees,
 *   as the tests and a developer use them.
 * - The installed programs (gen/installed/, run/installed/) get paths
 *   relative to the directory they are installed in (bindir), measured at
 *   configure time: "../lib/apiprof" for the shims under the default
 *   layout.  They are resolved against the directory of /proc/self/exe,
 *   so any --prefix works and so does a tree moved after installing it.
 *   Only when /proc/self/exe cannot be read is the configured bindir the
 *   base.  A libdir or datadir configured outside the prefix stays absolute.
 *
 * Two builds rather than one program that guesses where it runs from: an
 * installed program carries no path of the build tree at all, and nothing
 * at run time (a marker file, a comparison of paths) can make it take one.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_paths.h"

#if !defined(APIPROF_PATH_INCLUDEDIR) || !defined(APIPROF_PATH_LIBDIR) ||                          \
        !defined(APIPROF_PATH_GEN) || !defined(APIPROF_PATH_SHIMDIR) ||                            \
        !defined(APIPROF_PATH_RUNTIME) || !defined(APIPROF_PATH_DYN_LIB) ||                        \
        !defined(APIPROF_PATH_DYN_AUDIT) || !defined(APIPROF_PATH_SPECDIR) ||                      \
        !defined(APIPROF_BINDIR)
#error "gen_paths.c is compiled with the APIPROF_PATH_* of a layout (gen/meson.build)"
#endif

static const struct {
	const char *env, *path;
} gen_parts[GEN_PART_COUNT] = {
        [GEN_PART_INCLUDEDIR] = {"APIPROF_INCLUDEDIR", APIPROF_PATH_INCLUDEDIR},
        [GEN_PART_LIBDIR] = {"APIPROF_LIBDIR", APIPROF_PATH_LIBDIR},
        [GEN_PART_GEN] = {"APIPROF_GEN", APIPROF_PATH_GEN},
        [GEN_PART_SHIMDIR] = {"APIPROF_SHIMDIR", APIPROF_PATH_SHIMDIR},
        [GEN_PART_RUNTIME] = {"APIPROF_RUNTIME", APIPROF_PATH_RUNTIME},
        [GEN_PART_DYN_LIB] = {"APIPROF_DYN_LIB", APIPROF_PATH_DYN_LIB},
        [GEN_PART_DYN_AUDIT] = {"APIPROF_DYN_AUDIT", APIPROF_PATH_DYN_AUDIT},
        [GEN_PART_SPECDIR] = {"APIPROF_SPECDIR", APIPROF_PATH_SPECDIR},
};

/* The directory this program's file is in, else the configured bindir. */
static void gen_self_dir(char *out, size_t cap)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (exe[0] == '/' && slash != NULL) {
			*slash = '\0';
			snprintf(out, cap, "%s", slash == exe ? "/" : exe);
			return;
		}
	}
	snprintf(out, cap, "%s", APIPROF_BINDIR);
}

/* rel resolved against the program's directory: without "..", through
 * realpath, when it exists; as joined when it does not, for the message
 * that names what is missing. */
static void gen_near_self(char *out, size_t cap, const char *rel)
{
	char dir[PATH_MAX], real[PATH_MAX];
	int n;

	gen_self_dir(dir, sizeof(dir));
	n = snprintf(out, cap, "%s/%s", dir, rel);
	if (n > 0 && (size_t)n < cap && realpath(out, real) != NULL)
		n = snprintf(out, cap, "%s", real);
	(void)n; /* too long a path stays cut: the loader or open() says so */
}

const char *gen_path(enum gen_part part)
{
	static char resolved[GEN_PART_COUNT][PATH_MAX];
	const char *env = getenv(gen_parts[part].env), *path = gen_parts[part].path;

	if (env != NULL && *env != '\0')
		return env;
	if (path[0] == '/')
		return path;
	if (resolved[part][0] == '\0')
		gen_near_self(resolved[part], sizeof(resolved[part]), path);
	return resolved[part];
}
