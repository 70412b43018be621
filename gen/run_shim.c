/* SPDX-License-Identifier: MIT */
/*
 * run_shim.c - turns the -s arguments into shim paths for LD_PRELOAD.
 *
 * A shipped api name maps to the shim the build made from specs/NAME.json.
 * A spec file is built with `apiprof-gen build` into a cache directory,
 * named by a hash of the spec's bytes and of the generator's path and
 * bytes, so an edited spec (or a new generator) rebuilds and an unchanged
 * one is reused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#ifndef APIPROF_GEN_PATH
#define APIPROF_GEN_PATH "apiprof-gen"
#endif
#ifndef APIPROF_SHIMDIR
#define APIPROF_SHIMDIR "/usr/local/lib/apiprof"
#endif
#ifndef APIPROF_RUNTIME
#define APIPROF_RUNTIME "libapiprof.so.0"
#endif
#ifndef APIPROF_SHIPPED
#define APIPROF_SHIPPED "malloc, posix_io, zlib"
#endif

int run_opts_add_specs(struct run_opts *o, char *list)
{
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		if (o->nspecs == RUN_MAX_SPECS) {
			fprintf(stderr, "apiprof-run: at most %d specs\n", RUN_MAX_SPECS);
			return -1;
		}
		o->specs[o->nspecs++] = tok;
	}
	return 0;
}

const char *run_shipped_names(void)
{
	return APIPROF_SHIPPED;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int hash_file(const char *path, uint64_t *h)
{
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*h = fnv1a(*h, buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

static int mkdirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(dir, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

static int cache_dir(char *out, size_t cap)
{
	const char *c = getenv("APIPROF_CACHE"), *x = getenv("XDG_CACHE_HOME");
	const char *home = env_or("HOME", "/tmp");
	int n;

	if (c && *c)
		n = snprintf(out, cap, "%s", c);
	else if (x && *x)
		n = snprintf(out, cap, "%s/apiprof", x);
	else
		n = snprintf(out, cap, "%s/.cache/apiprof", home);
	return n > 0 && (size_t)n < cap ? mkdirs(out) : -1;
}

/* Runs `apiprof-gen build SPEC -o OUT`; its diagnostics go to our stderr. */
static int run_gen(const char *spec, const char *out)
{
	const char *gen = env_or("APIPROF_GEN", APIPROF_GEN_PATH);
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp(gen, gen, "build", spec, "-o", out, (char *)NULL);
		fprintf(stderr, "apiprof-run: cannot run %s: %s\n", gen, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int build_spec(const struct run_opts *o, const char *spec, char *out, size_t cap)
{
	char dir[RUN_PATH_MAX], tmp[RUN_PATH_MAX + 32];
	const char *gen = env_or("APIPROF_GEN", APIPROF_GEN_PATH);
	uint64_t h = fnv1a(0xcbf29ce484222325ull, gen, strlen(gen));

	/* The generator's own bytes too: a new apiprof-gen may emit another
	 * shim ABI (the runtime refuses old shims) or other exports.  A
	 * generator given by a name that is no file keeps the path-only key. */
	(void)hash_file(gen, &h);
	if (hash_file(spec, &h) != 0) {
		fprintf(stderr, "apiprof-run: cannot read spec %s: %s\n", spec, strerror(errno));
		return -1;
	}
	if (cache_dir(dir, sizeof(dir)) != 0 || snprintf(out, cap, "%s/libapiprof-%016llx.so", dir,
	                                                 (unsigned long long)h) >= (int)cap) {
		fprintf(stderr, "apiprof-run: no usable cache directory (set APIPROF_CACHE)\n");
		return -1;
	}
	if (access(out, R_OK) == 0)
		return 0;
	if (!o->quiet)
		fprintf(stderr, "apiprof-run: building a shim for %s\n", spec);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", out, (int)getpid());
	if (run_gen(spec, tmp) != 0 || rename(tmp, out) != 0) {
		unlink(tmp);
		fprintf(stderr, "apiprof-run: could not build a shim for %s\n", spec);
		return -1;
	}
	return 0;
}

static int is_path(const char *spec)
{
	size_t n = strlen(spec);

	return strchr(spec, '/') != NULL || (n > 5 && strcmp(spec + n - 5, ".json") == 0);
}

static int shipped_shim(const char *name, char *out, size_t cap)
{
	const char *dir = env_or("APIPROF_SHIMDIR", APIPROF_SHIMDIR);

	if (snprintf(out, cap, "%s/libapiprof-%s.so", dir, name) >= (int)cap ||
	    access(out, R_OK) != 0) {
		fprintf(stderr,
		        "apiprof-run: %s is neither a spec file nor a shipped api (shipped: %s)\n",
		        name, APIPROF_SHIPPED);
		return -1;
	}
	return 0;
}

/* "runtime:shim1:shim2:...:<previous LD_PRELOAD>".  The runtime goes
 * first, ahead of libc, so that its exec and _exit hooks take effect. */
int run_build_preload(const struct run_opts *o, char *out, size_t cap)
{
	const char *prev = getenv("LD_PRELOAD");
	size_t len = (size_t)snprintf(out, cap, "%s", env_or("APIPROF_RUNTIME", APIPROF_RUNTIME));

	for (int i = 0; i < o->nspecs; i++) {
		char shim[RUN_PATH_MAX];
		int r = is_path(o->specs[i]) ? build_spec(o, o->specs[i], shim, sizeof(shim))
		                             : shipped_shim(o->specs[i], shim, sizeof(shim));

		if (r != 0)
			return -1;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ":" : "", shim);
		if (len >= cap)
			return -1;
	}
	if (prev && *prev)
		len += (size_t)snprintf(out + len, cap - len, ":%s", prev);
	return len < cap ? 0 : -1;
}
