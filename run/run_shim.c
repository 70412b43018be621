/* SPDX-License-Identifier: MIT */
/*
 * run_shim.c - turns the -s arguments into shim paths for LD_PRELOAD.
 *
 * A shipped api name maps to the shim the build made from specs/NAME.json.
 * A spec file is built with `apiprof-gen build` into the cache directory
 * (run_cache.c), named by a hash of the spec's bytes, of the generator's
 * path and bytes, of the shim headers' bytes and of the source
 * preprocessed from the spec (`apiprof-gen build -E`, which refuses a
 * spec or header another user could have written), so an edited spec or
 * header (or a new generator or shim ABI) rebuilds and an unchanged one is
 * reused; the shim is compiled from that very preprocessed source.  The
 * build leaves a manifest of every file it read (run_manifest.c), and a
 * launch whose files are all unchanged and still trusted reuses the shim
 * without running the preprocessor (direct mode).  A
 * cached shim is loaded only when it is a regular file of ours that
 * nobody else can write (opened with O_NOFOLLOW, checked on the
 * descriptor).  Every element the launcher puts in LD_PRELOAD is checked
 * before the exec: a path the loader would split, or a file it could not
 * load, is refused in one line rather than leave the program running
 * unprofiled.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen_paths.h"
#include "run.h"

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

uint64_t run_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

int run_hash_file(const char *path, uint64_t *h)
{
	char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*h = run_fnv1a(*h, buf, (size_t)n);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Runs `apiprof-gen build SPEC -E -o OUT` (pre set) or `apiprof-gen build
 * SPEC --preprocessed PRE -o OUT`; its diagnostics go to our stderr. */
static int run_gen(const char *spec, const char *pre, const char *out)
{
	const char *gen = gen_path(GEN_PART_GEN);
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (pre == NULL)
			execlp(gen, gen, "build", spec, "-E", "-o", out, (char *)NULL);
		else
			execlp(gen, gen, "build", spec, "--preprocessed", pre, "-o", out,
			       (char *)NULL);
		fprintf(stderr, "apiprof-run: cannot run %s: %s\n", gen, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int cached_why(int fd, int err, const char *path, char *why, size_t cap)
{
	if (fd < 0)
		return run_whyf(why, cap, "%s: %s", path,
		                err == ELOOP ? "a symbolic link" : strerror(err));
	if (run_fd_mine(fd, path, 0, why, cap) != 0)
		return -1;
	if (!run_fd_is_shlib(fd))
		return run_whyf(why, cap, "%s is not a shared library for this machine", path);
	return 0;
}

/* Whether the cache holds a shim by that name that may be loaded.  One
 * that may not is said in one line (when say), and built again over. */
static int cached_ok(const struct run_cache *c, const char *name, int say)
{
	char path[RUN_PATH_MAX * 2], why[RUN_PATH_MAX * 2 + 128];
	int fd = openat(c->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int err = errno;

	if (fd < 0 && err == ENOENT)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	int rc = cached_why(fd, err, path, why, sizeof(why));
	if (fd >= 0)
		close(fd);
	if (rc != 0 && say)
		fprintf(stderr, "apiprof-run: cached shim not trusted: %s; building it again\n",
		        why);
	return rc == 0;
}

/* The new shim: ours, a shared library, and writable by nobody else
 * whatever the umask the compiler ran under. */
static int seal(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -1;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	         fchmod(fd, st.st_mode & 0755) == 0 && run_fd_is_shlib(fd);
	close(fd);
	return ok ? 0 : -1;
}

/* A fresh directory of our own inside the cache (mkdtemp: an
 * unpredictable name, made exclusively) for the preprocessed source and
 * the new shim, removed when the shim is in place. */
struct run_work {
	char dir[RUN_PATH_MAX + 16], pre[RUN_PATH_MAX + 32], so[RUN_PATH_MAX + 32];
};

static int work_open(const struct run_cache *c, struct run_work *w)
{
	snprintf(w->dir, sizeof(w->dir), "%s/.build-XXXXXX", c->dir);
	if (mkdtemp(w->dir) == NULL)
		return -1;
	snprintf(w->pre, sizeof(w->pre), "%s/shim.i", w->dir);
	snprintf(w->so, sizeof(w->so), "%s/shim.so", w->dir);
	return 0;
}

static void work_close(const struct run_work *w)
{
	unlink(w->pre);
	unlink(w->so);
	rmdir(w->dir);
}

/* Compiled from the preprocessed source the name was hashed from, then
 * renamed into place. */
static int build_into(const struct run_cache *c, const struct run_work *w, const char *spec,
                      const char *name)
{
	if (run_gen(spec, w->pre, w->so) == 0 && seal(w->so) == 0 &&
	    renameat(AT_FDCWD, w->so, c->fd, name) == 0)
		return 0;
	return -1;
}

/* The headers every shim compiles against, the runtime's ABI among them:
 * a new apiprof can change the shim ABI (which the runtime checks,
 * refusing an old shim) with an apiprof-gen of the same bytes.  One that
 * cannot be read adds nothing (the build then says why). */
static void hash_headers(uint64_t *h)
{
	static const char *const names[] = {"apiprof_shim.h", "apiprof_shim_layout.h",
	                                    "apiprof_shim_x86.h", "apiprof_shim_acct.h",
	                                    "apiprof_abi.h"};
	const char *dir = gen_path(GEN_PART_INCLUDEDIR);
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path))
			(void)run_hash_file(path, h);
}

/* The shim's name: a hash of the generator, the shim headers, the spec
 * and the source preprocessed from it (every header it includes, written
 * to w->pre by `apiprof-gen build -E`, which refuses what another user
 * could have written), so a change in any included header builds a new
 * shim and nothing unseen reaches a cached one. */
uint64_t run_hash_tools(void)
{
	const char *gen = gen_path(GEN_PART_GEN);
	uint64_t h = run_fnv1a(0xcbf29ce484222325ull, gen, strlen(gen));

	/* The generator's own bytes too: a new apiprof-gen may emit other
	 * exports.  A generator given by a name that is no file keeps the
	 * path-only key. */
	(void)run_hash_file(gen, &h);
	hash_headers(&h);
	return h;
}

static int shim_name(const char *spec, const struct run_work *w, char *name, size_t cap)
{
	uint64_t h = run_hash_tools();

	if (run_hash_file(spec, &h) != 0) {
		fprintf(stderr, "apiprof-run: cannot read spec %s: %s\n", spec, strerror(errno));
		return -1;
	}
	if (run_gen(spec, NULL, w->pre) != 0 || run_hash_file(w->pre, &h) != 0) {
		fprintf(stderr, "apiprof-run: could not build a shim for %s\n", spec);
		return -1;
	}
	snprintf(name, cap, "libapiprof-%016llx.so", (unsigned long long)h);
	return 0;
}

/* The full path: the name from the preprocessed source, the shim built
 * unless cached, and the manifest that lets the next launch skip it. */
static int build_full(const struct run_opts *o, const struct run_cache *c, const char *spec,
                      struct run_manifest *m)
{
	struct run_work w;
	int rc = -1;

	if (work_open(c, &w) != 0) {
		fprintf(stderr, "apiprof-run: cannot create %s: %s\n", w.dir, strerror(errno));
		return -1;
	}
	run_manifest_start(m);
	if (shim_name(spec, &w, m->shim, sizeof(m->shim)) != 0)
		goto out;
	rc = 0;
	if (!cached_ok(c, m->shim, 1)) {
		if (!o->quiet)
			fprintf(stderr, "apiprof-run: building a shim for %s\n", spec);
		rc = build_into(c, &w, spec, m->shim);
		if (rc != 0)
			fprintf(stderr, "apiprof-run: could not build a shim for %s\n", spec);
	}
	if (rc == 0)
		run_manifest_save(c, m, w.pre);
out:
	work_close(&w);
	return rc;
}

/* The manifest's shim when every file it lists is unchanged (direct
 * mode, run_manifest.c), else the full path (which says why a cached
 * shim may not be loaded). */
static int build_spec(const struct run_opts *o, const char *spec, char *out, size_t cap)
{
	static struct run_cache cache = {.fd = -1};
	static struct run_manifest m;

	if (access(spec, R_OK) != 0 || run_manifest_key(spec, &m) != 0) {
		fprintf(stderr, "apiprof-run: cannot read spec %s: %s\n", spec, strerror(errno));
		return -1;
	}
	if (cache.fd < 0 && run_cache_open(&cache) != 0)
		return -1;
	if (!(run_manifest_find(&cache, &m) && cached_ok(&cache, m.shim, 0)) &&
	    build_full(o, &cache, spec, &m) != 0)
		return -1;
	return snprintf(out, cap, "%s/%s", cache.dir, m.shim) < (int)cap ? 0 : -1;
}

static int is_path(const char *spec)
{
	size_t n = strlen(spec);

	return strchr(spec, '/') != NULL || (n > 5 && strcmp(spec + n - 5, ".json") == 0);
}

static int shipped_shim(const char *name, char *out, size_t cap)
{
	const char *dir = gen_path(GEN_PART_SHIMDIR);

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
	const char *prev = getenv("LD_PRELOAD"), *rt = gen_path(GEN_PART_RUNTIME);
	size_t len = (size_t)snprintf(out, cap, "%s", rt);

	if (run_preload_check(rt) != 0)
		return -1;

	for (int i = 0; i < o->nspecs; i++) {
		char shim[RUN_PATH_MAX];
		int r = is_path(o->specs[i]) ? build_spec(o, o->specs[i], shim, sizeof(shim))
		                             : shipped_shim(o->specs[i], shim, sizeof(shim));

		if (r != 0 || run_preload_check(shim) != 0)
			return -1;
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? ":" : "", shim);
		if (len >= cap)
			return -1;
	}
	if (prev && *prev)
		len += (size_t)snprintf(out + len, cap - len, ":%s", prev);
	return len < cap ? 0 : -1;
}
