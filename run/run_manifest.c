/* SPDX-License-Identifier: MIT */
/*
 * run_manifest.c - the cache's direct mode: a shim reused without running
 * the preprocessor.
 *
 * After a build, the cache gets manifest-KEY.json beside the shim.  KEY
 * hashes what decides the build besides the files it reads: the spec's
 * real path and bytes, the generator's path and bytes and the shim
 * headers' bytes (run_hash_tools), the runtime's directories, the
 * compiler's identity (the file $CC names, through PATH) and the
 * environment the compiler reads (CC, PATH, CPATH, C_INCLUDE_PATH,
 * LIBRARY_PATH, GCC_EXEC_PREFIX, COMPILER_PATH; the working directory
 * when an include path has a relative entry).  The manifest names the
 * shim and lists, with device, inode, size, mtime and ctime (ns), every
 * file the preprocessor entered (from the line markers of its output),
 * the spec, its "include_dirs" and the headers it lists beside it (or that
 * they were absent), and the directories searched before the system's
 * (the shim headers', CPATH's and C_INCLUDE_PATH's, identity only).  A launch with the same KEY
 * reuses the shim when every listed file still has that identity (an absent one is still absent)
 * and still passes apiprof_trust_path, as the spec does: a changed, added or removed header, or one
 * another user could now write, goes back to the full path (preprocess, key, build), which refuses
 * what it must.  ctime cannot be set back by an unprivileged user.  A file changed during the build
 * (ctime at or after the coarse clock read before the preprocessor ran) makes no manifest.  The
 * manifest is written with apiprof_file (O_EXCL|O_NOFOLLOW temporary, renamed) and read as
 * untrusted input: ours, writable by nobody else, at most 1 MiB, each
 * field checked; anything else is said in one line and ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_trust.h"
#include "gen_marker.h"
#include "gen_paths.h"
#include "run.h"
#include "spec.h"

#define MAN_MAX   (1 << 20)
#define MAN_WHY   (RUN_PATH_MAX + 128)
#define SHIM_NAME "libapiprof-%016llx.so"

static void hash_str(uint64_t *h, const char *s)
{
	if (s == NULL)
		s = "\x01(unset)";
	*h = run_fnv1a(*h, s, strlen(s) + 1);
}

static long long ns(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000ll + t->tv_nsec;
}

static void hash_stat(uint64_t *h, const struct stat *st)
{
	long long v[5] = {(long long)st->st_dev, (long long)st->st_ino, (long long)st->st_size,
	                  ns(&st->st_mtim), ns(&st->st_ctim)};

	*h = run_fnv1a(*h, v, sizeof(v));
}

/* The file the first word of $CC (else cc) runs, through PATH. */
static void hash_compiler(uint64_t *h)
{
	const char *cc = getenv("CC"), *path = getenv("PATH");
	char word[256], file[RUN_PATH_MAX];
	struct stat st;

	if (cc == NULL || sscanf(cc, " %255s", word) != 1)
		snprintf(word, sizeof(word), "cc");
	if (strchr(word, '/') != NULL) {
		if (stat(word, &st) == 0)
			hash_stat(h, &st);
		return;
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(file, sizeof(file), "%.*s/%s", (int)n, n ? p : ".", word);
		if (access(file, X_OK) == 0 && stat(file, &st) == 0 && S_ISREG(st.st_mode)) {
			hash_str(h, file);
			hash_stat(h, &st);
			return;
		}
		p += n + (p[n] == ':');
	}
}

/* An include path variable with a relative (or empty) entry. */
static int relative_entry(const char *v)
{
	if (v == NULL)
		return 0;
	for (const char *p = v;; p += strcspn(p, ":") + 1) {
		if (*p != '/')
			return 1;
		if (strchr(p, ':') == NULL)
			return 0;
	}
}

static void hash_env(uint64_t *h)
{
	static const char *const vars[] = {"CC",           "PATH",
	                                   "CPATH",        "C_INCLUDE_PATH",
	                                   "LIBRARY_PATH", "GCC_EXEC_PREFIX",
	                                   "COMPILER_PATH"};
	char cwd[RUN_PATH_MAX];

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		hash_str(h, vars[i]);
		hash_str(h, getenv(vars[i]));
	}
	if ((relative_entry(getenv("CPATH")) || relative_entry(getenv("C_INCLUDE_PATH"))) &&
	    getcwd(cwd, sizeof(cwd)) != NULL)
		hash_str(h, cwd);
	hash_compiler(h);
}

int run_manifest_key(const char *spec, struct run_manifest *m)
{
	uint64_t h = run_hash_tools();

	if (realpath(spec, m->spec) == NULL)
		return -1;
	hash_str(&h, "apiprof-run manifest 1");
	hash_str(&h, m->spec);
	if (run_hash_file(m->spec, &h) != 0)
		return -1;
	hash_str(&h, gen_path(GEN_PART_LIBDIR));
	hash_str(&h, gen_path(GEN_PART_INCLUDEDIR));
	hash_env(&h);
	snprintf(m->key, sizeof(m->key), "%016llx", (unsigned long long)h);
	snprintf(m->file, sizeof(m->file), "manifest-%s.json", m->key);
	return 0;
}

/* --- reading ------------------------------------------------------------ */

static long long field(const json_t *e, const char *name, int *bad)
{
	const json_t *v = json_object_get(e, name);

	if (!json_is_integer(v))
		*bad = 1;
	return json_integer_value(v);
}

/* 1 when path still is what e says, and trusted; 0 when not; -1 when e is
 * malformed. */
static int entry_holds(const char *path, const json_t *e)
{
	char why[MAN_WHY];
	struct stat st;
	int bad = 0;

	if (path[0] != '/' || !json_is_object(e))
		return -1;
	if (json_is_true(json_object_get(e, "absent")))
		return stat(path, &st) != 0;
	long long v[5] = {field(e, "dev", &bad), field(e, "ino", &bad), field(e, "size", &bad),
	                  field(e, "mtime_ns", &bad), field(e, "ctime_ns", &bad)};
	if (bad)
		return -1;
	if (stat(path, &st) != 0 || v[0] != (long long)st.st_dev || v[1] != (long long)st.st_ino ||
	    v[2] != (long long)st.st_size || v[3] != ns(&st.st_mtim) || v[4] != ns(&st.st_ctim))
		return 0;
	/* A directory searched before others: only its identity (a header
	 * added to it changes its mtime and ctime). */
	if (json_is_true(json_object_get(e, "search")))
		return 1;
	return apiprof_trust_path(path, why, sizeof(why)) == 0;
}

/* 1 when j is a manifest of m->key naming a shim whose files all hold
 * (the shim's name in m->shim); 0 when one does not; -1 when malformed. */
static int manifest_holds(const json_t *j, struct run_manifest *m)
{
	const json_t *files = json_object_get(j, "files");
	const char *shim = json_string_value(json_object_get(j, "shim"));
	const char *key = json_string_value(json_object_get(j, "key"));
	unsigned long long h;
	const char *path;
	json_t *e;
	int n = 0;

	if (json_integer_value(json_object_get(j, "manifest")) != 1 || !json_is_object(files) ||
	    key == NULL || strcmp(key, m->key) != 0 || shim == NULL ||
	    sscanf(shim, "libapiprof-%16llx.so%n", &h, &n) != 1 || shim[n] != '\0' ||
	    (size_t)n != strlen("libapiprof-.so") + 16)
		return -1;
	snprintf(m->shim, sizeof(m->shim), SHIM_NAME, h);
	if (strcmp(m->shim, shim) != 0)
		return -1;
	json_object_foreach((json_t *)files, path, e)
	{
		int r = entry_holds(path, e);

		if (r <= 0)
			return r; /* the full path writes the manifest anew */
	}
	return 1;
}

/* Read whole, then parsed: jansson reads a descriptor a byte a call. */
static json_t *load(int fd, char *why, size_t cap)
{
	struct stat st;
	json_error_t err;
	json_t *j = NULL;
	char *buf;
	size_t len = 0;
	ssize_t n = 1;

	if (fstat(fd, &st) != 0 || st.st_size > MAN_MAX) {
		run_whyf(why, cap, "larger than %d bytes", MAN_MAX);
		return NULL;
	}
	if ((buf = malloc(MAN_MAX + 1)) == NULL) {
		run_whyf(why, cap, "%s", strerror(errno));
		return NULL;
	}
	while (len <= MAN_MAX && (n = read(fd, buf + len, MAN_MAX + 1 - len)) > 0)
		len += (size_t)n;
	if (n < 0)
		run_whyf(why, cap, "%s", strerror(errno));
	else if (len > MAN_MAX)
		run_whyf(why, cap, "larger than %d bytes", MAN_MAX);
	else if ((j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err)) == NULL)
		run_whyf(why, cap, "%s", err.text);
	free(buf);
	return j;
}

int run_manifest_find(const struct run_cache *c, struct run_manifest *m)
{
	char path[RUN_PATH_MAX * 2], why[MAN_WHY];
	int fd = openat(c->fd, m->file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = -1;
	int err = errno;
	json_t *j = NULL;

	if (fd < 0 && err == ENOENT)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", c->dir, m->file);
	if (fd < 0)
		run_whyf(why, sizeof(why), "%s", err == ELOOP ? "a symbolic link" : strerror(err));
	else if (run_fd_mine(fd, path, 0, why, sizeof(why)) == 0 &&
	         (j = load(fd, why, sizeof(why))) != NULL && (rc = manifest_holds(j, m)) < 0)
		run_whyf(why, sizeof(why), "not a manifest of this launcher");
	if (rc < 0)
		fprintf(stderr, "apiprof-run: cache manifest %s ignored: %s\n", path, why);
	json_decref(j);
	if (fd >= 0)
		close(fd);
	return rc > 0 && apiprof_trust_path(m->spec, why, sizeof(why)) == 0;
}

/* --- writing ------------------------------------------------------------ */

struct man_build {
	json_t *files;
	struct timespec start;
	int ok; /* 0: a file changed during the build, or a name not understood */
};

static int too_new(const struct timespec *t, const struct timespec *start)
{
	return ns(t) >= ns(start);
}

static void add_entry(struct man_build *b, const char *path, int search)
{
	struct stat st;
	json_t *e;

	if (json_object_get(b->files, path) != NULL)
		return;
	if (stat(path, &st) != 0)
		e = json_pack("{s:b}", "absent", 1);
	else if (too_new(&st.st_mtim, &b->start) || too_new(&st.st_ctim, &b->start))
		e = NULL; /* it may have changed after the preprocessor read it */
	else
		e = json_pack("{s:I, s:I, s:I, s:I, s:I}", "dev", (json_int_t)st.st_dev, "ino",
		              (json_int_t)st.st_ino, "size", (json_int_t)st.st_size, "mtime_ns",
		              (json_int_t)ns(&st.st_mtim), "ctime_ns", (json_int_t)ns(&st.st_ctim));
	if (e != NULL && search && json_object_set_new(e, "search", json_true()) != 0)
		e = NULL;
	if (e == NULL || json_object_set_new(b->files, path, e) != 0)
		b->ok = 0;
}

static void add_file(struct man_build *b, const char *path)
{
	add_entry(b, path, 0);
}

/* The directories of an include path variable, as apiprof-gen made them
 * absolute (an empty entry is the working directory). */
static void add_search(struct man_build *b, const char *var)
{
	const char *v = getenv(var);
	char cwd[RUN_PATH_MAX], path[RUN_PATH_MAX * 2];

	if (v == NULL)
		return;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		cwd[0] = '\0';
	for (const char *p = v;; p++) {
		size_t n = strcspn(p, ":");

		if (n > 0 && p[0] == '/')
			snprintf(path, sizeof(path), "%.*s", (int)n, p);
		else
			snprintf(path, sizeof(path), "%s%s%.*s", cwd, n ? "/" : "", (int)n, p);
		add_entry(b, path, 1);
		p += n;
		if (*p == '\0')
			break;
	}
}

/* A name from a line marker of apiprof-gen's build directory: absolute,
 * or the generated shim.c (from the spec's bytes), or one of the spec's
 * headers (spec-headers/H, a link to H beside the spec). */
static void add_marker(struct man_build *b, const char *name, const char *specdir)
{
	static const char hdrs[] = "spec-headers/";
	char path[RUN_PATH_MAX * 2];

	if (name[0] == '/') {
		add_file(b, name);
	} else if (strncmp(name, hdrs, strlen(hdrs)) == 0) {
		snprintf(path, sizeof(path), "%s/%s", specdir, name + strlen(hdrs));
		add_file(b, path);
	} else if (strcmp(name, "shim.c") != 0 && name[0] != '<') {
		b->ok = 0;
	}
}

static void add_markers(struct man_build *b, const char *pre, const char *specdir)
{
	struct spec_buf name;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(pre, "re");

	if (f == NULL) {
		b->ok = 0;
		return;
	}
	spec_buf_init(&name);
	while (b->ok && getline(&line, &cap, f) > 0)
		if (gen_marker_enters(line, &name))
			add_marker(b, spec_buf_str(&name), specdir);
	free(line);
	fclose(f);
	spec_buf_free(&name);
}

/* The spec, its include_dirs and the headers it lists beside it, and the
 * directories searched before the system's (identity only): a header
 * that appears there later is found first. */
static void add_spec(struct man_build *b, const struct run_manifest *m, const char *specdir)
{
	char path[RUN_PATH_MAX * 2];
	struct spec *s = spec_load(m->spec);

	if (s == NULL) {
		b->ok = 0;
		return;
	}
	add_file(b, m->spec);
	for (size_t i = 0; i < s->ninclude_dirs; i++)
		add_file(b, s->include_dirs[i]);
	for (size_t i = 0; i < s->nheaders; i++) {
		if (s->headers[i][0] == '/')
			continue;
		snprintf(path, sizeof(path), "%s/%s", specdir, s->headers[i]);
		add_file(b, path);
	}
	spec_free(s);
	add_entry(b, gen_path(GEN_PART_INCLUDEDIR), 1);
	add_search(b, "CPATH");
	add_search(b, "C_INCLUDE_PATH");
}

void run_manifest_start(struct run_manifest *m)
{
	clock_gettime(CLOCK_REALTIME_COARSE, &m->start);
}

static void put(const struct run_cache *c, const struct run_manifest *m, const char *text)
{
	struct apiprof_file f;

	if (apiprof_file_openat(&f, c->fd, m->file, 0600) == 0) {
		int ok = apiprof_file_put(&f, text, strlen(text)) == 0;

		if (apiprof_file_close(&f, ok) == 0 && ok)
			return;
	}
	fprintf(stderr, "apiprof-run: cannot write %s/%s: %s\n", c->dir, m->file,
	        apiprof_file_why(&f));
}

void run_manifest_save(const struct run_cache *c, const struct run_manifest *m, const char *pre)
{
	char *copy = strdup(m->spec), *text = NULL;
	struct man_build b = {.files = json_object(), .start = m->start, .ok = 1};
	const char *specdir = copy ? dirname(copy) : NULL;

	if (specdir == NULL || b.files == NULL)
		b.ok = 0;
	if (b.ok)
		add_spec(&b, m, specdir);
	if (b.ok)
		add_markers(&b, pre, specdir);
	if (b.ok) {
		json_t *j = json_pack("{s:i, s:s, s:s, s:O}", "manifest", 1, "key", m->key, "shim",
		                      m->shim, "files", b.files);
		text = j ? json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;
		json_decref(j);
	}
	if (text != NULL)
		put(c, m, text);
	free(text);
	json_decref(b.files);
	free(copy);
}
