// SPDX-License-Identifier: MIT
/*
 * gen_build_trust.c - a spec is code: what `apiprof-gen build` compiles.
 *
 * The shim runs inside the user's program, as root when root profiles, so
 * whatever reaches the compiler must be something only the user or root
 * could have written (apiprof_trust.h): the spec, its "include_dirs" and the
 * -I directories, checked before anything is generated, and then every
 * file the preprocessor actually entered, read from the line markers of
 * its output, which is what is compiled.  The spec's own directory is
 * searched only for the headers the spec lists: a directory of symbolic
 * links to those, so a header planted beside the spec under the name of
 * another (<stdint.h>, with #include_next) is never found.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_build.h"
#include "gen_marker.h"
#include "apiprof_trust.h"
#include "spec_buf.h"

#define GEN_WHY_MAX (PATH_MAX + 128)

static int gen_refuse(const struct spec *s, const char *why)
{
	fprintf(stderr,
	        "apiprof-gen: %s: not trusted: %s (a spec is code: what it builds from must be "
	        "writable only by you or root)\n",
	        s->path, why);
	return -1;
}

/* A directory that is not there adds nothing the compiler could read now;
 * what it reads is checked again from the preprocessor's output. */
static int gen_trust_dirs(const struct spec *s, const char *const *dirs, size_t n)
{
	char why[GEN_WHY_MAX];

	for (size_t i = 0; i < n; i++)
		if (access(dirs[i], F_OK) == 0 && apiprof_trust_path(dirs[i], why, sizeof(why)) != 0)
			return gen_refuse(s, why);
	return 0;
}

int gen_build_trust_spec(const struct spec *s, const struct gen_build_opts *o)
{
	char why[GEN_WHY_MAX];

	if (apiprof_trust_path(s->path, why, sizeof(why)) != 0)
		return gen_refuse(s, why);
	if (o->preprocessed != NULL && apiprof_trust_path(o->preprocessed, why, sizeof(why)) != 0)
		return gen_refuse(s, why);
	if (gen_trust_dirs(s, s->include_dirs, s->ninclude_dirs) != 0)
		return -1;
	return gen_trust_dirs(s, o->inc, o->ninc);
}

/* Names already checked, so a header entered a hundred times costs one. */
struct gen_seen {
	char **v;
	size_t n;
};

static bool gen_seen_add(struct gen_seen *seen, const char *name)
{
	for (size_t i = 0; i < seen->n; i++)
		if (strcmp(seen->v[i], name) == 0)
			return false;
	seen->v = spec_xrealloc(seen->v, seen->n + 1, sizeof(*seen->v));
	seen->v[seen->n++] = spec_xstrdup(name);
	return true;
}

static void gen_seen_free(struct gen_seen *seen)
{
	for (size_t i = 0; i < seen->n; i++)
		free(seen->v[i]);
	free(seen->v);
}

/* A name the preprocessor gave, relative to dir, where it ran. */
static int gen_trust_at(const char *dir, const char *name, char *why, size_t cap)
{
	struct spec_buf p;

	if (name[0] == '/')
		return apiprof_trust_path(name, why, cap);
	spec_buf_init(&p);
	spec_buf_printf(&p, "%s/%s", dir, name);
	int rc = apiprof_trust_path(p.s, why, cap);
	spec_buf_free(&p);
	return rc;
}

int gen_build_trust_read(const struct spec *s, const char *path, const char *dir)
{
	char why[GEN_WHY_MAX], *line = NULL;
	size_t cap = 0;
	struct spec_buf name;
	struct gen_seen seen = {0};
	int rc = 0;
	FILE *f = fopen(path, "re");

	if (f == NULL) {
		fprintf(stderr, "apiprof-gen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	spec_buf_init(&name);
	while (rc == 0 && getline(&line, &cap, f) > 0) {
		if (!gen_marker_enters(line, &name) || !gen_seen_add(&seen, spec_buf_str(&name)))
			continue;
		if (gen_trust_at(dir, spec_buf_str(&name), why, sizeof(why)) != 0)
			rc = gen_refuse(s, why);
	}
	free(line);
	fclose(f);
	spec_buf_free(&name);
	gen_seen_free(&seen);
	return rc;
}

/* mkdir -p of the directories above path, below base (0700). */
static void gen_make_parents(const char *path, size_t base)
{
	char *p = spec_xstrdup(path);

	for (char *slash = strchr(p + base + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(p, 0700); /* a failure shows as the symlink's */
		*slash = '/';
	}
	free(p);
}

/* dir/HEADER -> SPECDIR/HEADER when that is a regular file. */
static int gen_link_header(const char *specdir, const char *dir, const char *h)
{
	struct spec_buf src, dst;
	struct stat st;
	int rc = 0;

	spec_buf_init(&src);
	spec_buf_init(&dst);
	spec_buf_printf(&src, "%s/%s", specdir, h);
	spec_buf_printf(&dst, "%s/%s", dir, h);
	if (stat(src.s, &st) == 0 && S_ISREG(st.st_mode)) {
		gen_make_parents(dst.s, strlen(dir));
		if (symlink(src.s, dst.s) != 0 && errno != EEXIST) {
			fprintf(stderr, "apiprof-gen: cannot link %s: %s\n", dst.s,
			        strerror(errno));
			rc = -1;
		}
	}
	spec_buf_free(&src);
	spec_buf_free(&dst);
	return rc;
}

int gen_build_spec_headers(const struct spec *s, const char *dir)
{
	char *copy = spec_xstrdup(s->path), real[PATH_MAX];
	int rc = 0;

	if (realpath(dirname(copy), real) == NULL || mkdir(dir, 0700) != 0) {
		fprintf(stderr, "apiprof-gen: %s: %s\n", s->path, strerror(errno));
		rc = -1;
	}
	/* An absolute header is not searched for in any directory. */
	for (size_t i = 0; rc == 0 && i < s->nheaders; i++)
		if (s->headers[i][0] != '/')
			rc = gen_link_header(real, dir, s->headers[i]);
	free(copy);
	return rc;
}
