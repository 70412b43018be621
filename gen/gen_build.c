// SPDX-License-Identifier: MIT
/*
 * gen_build.c - generating and compiling a shim in one step.
 *
 * The compiler is run directly (posix_spawnp, no shell), so neither the
 * spec's directory nor any -I argument is ever parsed by a shell.
 */
#include <errno.h>
#include <libgen.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen_build.h"
#include "gen_emit.h"
#include "gen_paths.h"

extern char **environ;

struct gen_argv {
	char **v;
	size_t n;
	size_t cap;
};

int gen_generate(const struct spec *s, const char *path)
{
	struct gen_out o = {0};

	if (gen_out_open(&o, path) < 0)
		return -1;
	gen_emit(s, &o);
	return gen_out_commit(&o);
}

static void gen_argv_add(struct gen_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		char **v = spec_xcalloc(a->cap * 2 + 16, sizeof *v);

		if (a->n)
			memcpy(v, a->v, a->n * sizeof *v);
		free(a->v);
		a->v = v;
		a->cap = a->cap * 2 + 16;
	}
	a->v[a->n++] = spec_xstrdup(s);
	a->v[a->n] = NULL;
}

static void gen_argv_addf(struct gen_argv *a, const char *prefix, const char *s)
{
	struct spec_buf b;

	spec_buf_init(&b);
	spec_buf_printf(&b, "%s%s", prefix, s);
	gen_argv_add(a, spec_buf_str(&b));
	spec_buf_free(&b);
}

static void gen_argv_free(struct gen_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* $CC may carry a launcher or flags ("ccache gcc"): split on blanks. */
static void gen_argv_cc(struct gen_argv *a)
{
	const char *cc = getenv("CC");
	char *save = NULL;

	if (cc == NULL || cc[strspn(cc, " \t")] == '\0')
		cc = "cc";
	char *copy = spec_xstrdup(cc);
	for (char *tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		gen_argv_add(a, tok);
	free(copy);
}

static void gen_build_argv(struct gen_argv *a, const struct spec *s, const struct gen_build_opts *o,
                           const char *src, const char *out, const char *map)
{
	static const char *const flags[] = {
	        "-std=gnu11",          "-O2",   "-fPIC",   "-shared",
	        "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
	};
	/* The runtime this apiprof-gen belongs to (gen_paths.c): the build
	 * tree's, or the installation's. */
	const char *libdir = gen_path(GEN_PART_LIBDIR);
	char *specdir = spec_xstrdup(s->path);

	gen_argv_cc(a);
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		gen_argv_add(a, flags[i]);
	gen_argv_addf(a, "-I", dirname(specdir));
	gen_argv_addf(a, "-I", gen_path(GEN_PART_INCLUDEDIR));
	for (size_t i = 0; i < o->ninc; i++)
		gen_argv_addf(a, "-I", o->inc[i]);
	/* The spec's own, after the command line's: absolute and allow-listed
	 * (spec_check_include_dir), one argument each, no shell. */
	for (size_t i = 0; i < s->ninclude_dirs; i++)
		gen_argv_addf(a, "-I", s->include_dirs[i]);
	gen_argv_add(a, src);
	gen_argv_addf(a, "-Wl,--version-script=", map);
	gen_argv_addf(a, "-L", libdir);
	gen_argv_addf(a, "-Wl,-rpath,", libdir);
	gen_argv_add(a, "-lapiprof");
	gen_argv_add(a, "-ldl");
	gen_argv_add(a, "-o");
	gen_argv_add(a, out);
	free(specdir);
}

static int gen_run(char **argv)
{
	pid_t pid;
	int st, err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);

	if (err != 0) {
		fprintf(stderr, "apiprof-gen: cannot run %s: %s\n", argv[0], strerror(err));
		return 127;
	}
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "apiprof-gen: cannot wait for %s: %s\n", argv[0],
			        strerror(errno));
			return 127;
		}
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	fprintf(stderr, "apiprof-gen: %s killed by signal %d\n", argv[0], WTERMSIG(st));
	return 128 + WTERMSIG(st);
}

static int gen_compile(const struct spec *s, const struct gen_build_opts *o, const char *src,
                       const char *map)
{
	struct gen_argv a = {0};
	struct spec_buf out;

	spec_buf_init(&out);
	if (o->out != NULL)
		spec_buf_puts(&out, o->out);
	else
		spec_buf_printf(&out, "libapiprof-%s.so", s->api);
	gen_build_argv(&a, s, o, src, spec_buf_str(&out), map);
	int rc = gen_run(a.v);
	gen_argv_free(&a);
	spec_buf_free(&out);
	return rc;
}

int gen_build(const struct spec *s, const struct gen_build_opts *o)
{
	struct spec_buf dir, src, map;
	const char *tmp = getenv("TMPDIR");
	int rc = 1;

	spec_buf_init(&dir);
	spec_buf_init(&src);
	spec_buf_init(&map);
	spec_buf_printf(&dir, "%s/apiprof-gen.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir.s) == NULL) {
		fprintf(stderr, "apiprof-gen: cannot create %s: %s\n", dir.s, strerror(errno));
		goto out;
	}
	spec_buf_printf(&src, "%s/shim.c", dir.s);
	spec_buf_printf(&map, "%s/shim.map", dir.s);
	if (gen_generate(s, src.s) == 0 && gen_generate_vscript(s, map.s) == 0)
		rc = gen_compile(s, o, src.s, map.s);
	unlink(src.s);
	unlink(map.s);
	rmdir(dir.s);
out:
	spec_buf_free(&dir);
	spec_buf_free(&src);
	spec_buf_free(&map);
	return rc;
}
