// SPDX-License-Identifier: MIT
/*
 * gen_build.c - generating and compiling a shim in one step.
 *
 * The compiler is run directly (posix_spawnp, no shell), so neither the
 * spec's directory nor any -I argument is ever parsed by a shell.  It runs
 * twice: -E, whose output is checked (gen_build_trust.c), then on that
 * output, so nothing the check did not see is compiled.  `-E` stops after
 * the check and writes the preprocessed source; `--preprocessed FILE`
 * compiles such a file: apiprof-run names its cached shims by a hash of
 * it, then builds the shim from the very text it hashed.
 */
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen_build.h"
#include "gen_emit.h"
#include "gen_out.h"
#include "gen_paths.h"

extern char **environ;

struct gen_argv {
	char **v;
	size_t n;
	size_t cap;
};

int gen_generate(const struct spec *s, const char *path, const char *name)
{
	struct gen_out o = {0};

	if (gen_out_open(&o, path) < 0)
		return -1;
	if (name != NULL)
		o.name = name;
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

/* What preprocessing and compiling share: the compiler and its flags. */
static void gen_argv_flags(struct gen_argv *a)
{
	static const char *const flags[] = {
	        "-std=gnu11",          "-O2",   "-fPIC",   "-shared",
	        "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
	};

	gen_argv_cc(a);
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
		gen_argv_add(a, flags[i]);
}

/* -IDIR, by its real path when it has one: the preprocessor runs in the
 * build's own directory. */
static void gen_argv_inc(struct gen_argv *a, const char *dir)
{
	char real[PATH_MAX];

	gen_argv_addf(a, "-I", realpath(dir, real) != NULL ? real : dir);
}

/* The preprocessor runs elsewhere: the relative directories of an
 * include path variable (an empty one is the current directory) are made
 * absolute, as they meant. */
static void gen_env_absolute(const char *var)
{
	const char *v = getenv(var);
	char cwd[PATH_MAX];
	struct spec_buf b;

	if (v == NULL || getcwd(cwd, sizeof(cwd)) == NULL)
		return;
	spec_buf_init(&b);
	spec_buf_putn(&b, "", 0);
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ":");

		if (p != v)
			spec_buf_putc(&b, ':');
		if (n == 0 || p[0] != '/')
			spec_buf_printf(&b, "%s%s%.*s", cwd, n ? "/" : "", (int)n, p);
		else
			spec_buf_putn(&b, p, n);
		p += n;
		if (*p == '\0')
			break;
	}
	setenv(var, spec_buf_str(&b), 1);
	spec_buf_free(&b);
}

/* cc -E, run in the build's directory so that the names of its own files
 * in the output are the same from build to build: shim.c, and the spec's
 * own headers (spec-headers/, gen_build_spec_headers); then the shim
 * headers, the command line's -I and the spec's "include_dirs"
 * (absolute and allow-listed by spec_check_include_dir), one argument
 * each, no shell. */
static void gen_cpp_argv(struct gen_argv *a, const struct spec *s, const struct gen_build_opts *o)
{
	gen_argv_flags(a);
	gen_argv_add(a, "-Ispec-headers");
	gen_argv_inc(a, gen_path(GEN_PART_INCLUDEDIR));
	for (size_t i = 0; i < o->ninc; i++)
		gen_argv_inc(a, o->inc[i]);
	for (size_t i = 0; i < s->ninclude_dirs; i++)
		gen_argv_addf(a, "-I", s->include_dirs[i]);
	gen_argv_add(a, "-E");
	gen_argv_add(a, "shim.c");
	gen_argv_add(a, "-o");
}

/* cc of the preprocessed source against the runtime this apiprof-gen
 * belongs to (gen_paths.c): the build tree's, or the installation's. */
static void gen_cc_argv(struct gen_argv *a, const char *src, const char *map)
{
	const char *libdir = gen_path(GEN_PART_LIBDIR);

	gen_argv_flags(a);
	gen_argv_add(a, src);
	gen_argv_addf(a, "-Wl,--version-script=", map);
	gen_argv_addf(a, "-L", libdir);
	gen_argv_addf(a, "-Wl,-rpath,", libdir);
	gen_argv_add(a, "-lapiprof");
	gen_argv_add(a, "-ldl");
	gen_argv_add(a, "-o");
}

/* Runs argv in the directory cwd (NULL: ours); its exit status. */
static int gen_run(char **argv, const char *cwd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, err = posix_spawn_file_actions_init(&fa);

	if (err == 0 && cwd != NULL)
		err = posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (err == 0)
		err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);

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

/* Runs the argv a command made, with out as its last argument. */
static int gen_run_to(struct gen_argv *a, const char *out, const char *cwd)
{
	gen_argv_add(a, out);
	int rc = gen_run(a->v, cwd);
	gen_argv_free(a);
	return rc;
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
	gen_cc_argv(&a, src, map);
	int rc = gen_run_to(&a, spec_buf_str(&out), NULL);
	spec_buf_free(&out);
	return rc;
}

/* The checked, preprocessed source at o->out (-E): copied by gen_out. */
static int gen_copy_out(const char *from, const char *to)
{
	struct gen_out w = {0};
	char buf[8192];
	size_t n;
	FILE *f = fopen(from, "re");

	if (f == NULL || gen_out_open(&w, to) < 0) {
		if (f != NULL)
			fclose(f);
		return 1;
	}
	while ((n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
		buf[n] = '\0';
		gen_out_printf(&w, "%s", buf);
	}
	if (ferror(f))
		gen_out_abort(&w);
	fclose(f);
	return gen_out_commit(&w) == 0 ? 0 : 1;
}

/* Generates dir/shim.c and preprocesses it into dir/shim.i; 0 when every
 * file it read may be trusted, else the exit status. */
static int gen_preprocess(const struct spec *s, const struct gen_build_opts *o, const char *dir)
{
	struct spec_buf src, hdrs, out;
	struct gen_argv a = {0};
	int rc = 1;

	spec_buf_init(&src);
	spec_buf_init(&hdrs);
	spec_buf_init(&out);
	spec_buf_printf(&src, "%s/shim.c", dir);
	spec_buf_printf(&hdrs, "%s/spec-headers", dir);
	spec_buf_printf(&out, "%s/shim.i", dir);
	if (gen_build_trust_spec(s, o) == 0 && gen_generate(s, src.s, "shim.c") == 0 &&
	    gen_build_spec_headers(s, hdrs.s) == 0) {
		gen_env_absolute("CPATH");
		gen_env_absolute("C_INCLUDE_PATH");
		gen_cpp_argv(&a, s, o);
		rc = gen_run_to(&a, out.s, dir);
		if (rc == 0 && gen_build_trust_read(s, out.s, dir) != 0)
			rc = 1;
	}
	spec_buf_free(&src);
	spec_buf_free(&hdrs);
	spec_buf_free(&out);
	return rc;
}

/* What the temporary directory may hold, removed at the end. */
static void gen_clean(const struct spec *s, const char *dir)
{
	static const char *const files[] = {"shim.c", "shim.i", "shim.map"};
	struct spec_buf p;

	spec_buf_init(&p);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		p.len = 0;
		spec_buf_printf(&p, "%s/%s", dir, files[i]);
		unlink(p.s);
	}
	for (size_t i = s->nheaders; i-- > 0;) {
		/* The links, then the directories made for them, deepest first. */
		p.len = 0;
		spec_buf_printf(&p, "%s/spec-headers/%s", dir, s->headers[i]);
		unlink(p.s);
		size_t top = strlen(dir) + strlen("/spec-headers");

		for (char *slash = strrchr(p.s, '/'); slash > p.s + top;
		     slash = strrchr(p.s, '/')) {
			*slash = '\0';
			rmdir(p.s);
		}
	}
	p.len = 0;
	spec_buf_printf(&p, "%s/spec-headers", dir);
	rmdir(p.s);
	rmdir(dir);
	spec_buf_free(&p);
}

/* Preprocessed (or given --preprocessed), checked, then compiled or, with
 * -E, copied to the output. */
static int gen_build_in(const struct spec *s, const struct gen_build_opts *o, const char *dir)
{
	struct spec_buf src, map;
	int rc = 0;

	spec_buf_init(&src);
	spec_buf_init(&map);
	spec_buf_printf(&src, "%s/shim.i", dir);
	spec_buf_printf(&map, "%s/shim.map", dir);
	if (o->preprocessed != NULL) {
		src.len = 0;
		spec_buf_puts(&src, o->preprocessed);
		if (gen_build_trust_spec(s, o) != 0)
			rc = 1;
	} else {
		rc = gen_preprocess(s, o, dir);
	}
	if (rc == 0 && o->preprocess)
		rc = gen_copy_out(src.s, o->out);
	else if (rc == 0)
		rc = gen_generate_vscript(s, map.s) == 0 ? gen_compile(s, o, src.s, map.s) : 1;
	spec_buf_free(&src);
	spec_buf_free(&map);
	return rc;
}

int gen_build(const struct spec *s, const struct gen_build_opts *o)
{
	struct spec_buf dir;
	const char *tmp = getenv("TMPDIR");
	int rc = 1;
	char real[PATH_MAX];

	spec_buf_init(&dir);
	spec_buf_printf(&dir, "%s/apiprof-gen.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir.s) == NULL || realpath(dir.s, real) == NULL) {
		fprintf(stderr, "apiprof-gen: cannot create %s: %s\n", dir.s, strerror(errno));
	} else {
		rc = gen_build_in(s, o, real);
		gen_clean(s, real);
	}
	spec_buf_free(&dir);
	return rc;
}
