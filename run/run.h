/* SPDX-License-Identifier: MIT */
/* run.h - the launcher's pieces. */
#ifndef APIPROF_RUN_H
#define APIPROF_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define RUN_PATH_MAX  4096
#define RUN_MAX_SPECS 16

struct run_opts {
	const char *specs[RUN_MAX_SPECS];
	int nspecs;
	const char *output;
	int summary, strict, quiet;
	int dynamic;      /* --dynamic: libffi mode, nothing built */
	const char *mode; /* --mode: APIPROF_MODE for the program, NULL: inherited */
	char **argv;
	int can_profile; /* set by run_check_target */
	int pid;         /* -p: attach to this running process (run_attach.c) */
	int detach;      /* --detach: with -p, detach from it */
};

int run_opts_add_specs(struct run_opts *o, char *list);
const char *run_shipped_names(void);

/* run_target.c: is argv[0] something LD_PRELOAD can reach?  (Looked up
 * in PATH as execvp does: -1 when not found.) */
int run_check_target(struct run_opts *o);
int run_find_in_path(const char *cmd, char *out, size_t cap);

/* run_output.c: APIPROF_OUTPUT (-o, or inherited) made absolute against
 * our working directory; run as root, one line when users the program
 * may become cannot write its directory.  -1 (one line) when it cannot. */
int run_output_env(const struct run_opts *o);

/* run_shim.c: finds or builds every shim, and composes LD_PRELOAD. */
int run_build_preload(const struct run_opts *o, char *out, size_t cap);
/* FNV-1a over n bytes, and over a file's bytes (-1: unreadable); the
 * hash of the generator's path and bytes and of the shim headers. */
uint64_t run_fnv1a(uint64_t h, const void *p, size_t n);
int run_hash_file(const char *path, uint64_t *h);
uint64_t run_hash_tools(void);

/* run_safe.c: what the launcher may hand to the loader.  The checks fill
 * why (one clause naming the path) and return -1 when they fail. */
int run_whyf(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int run_path_splits(const char *path); /* 1: LD_PRELOAD would cut it apart */
/* (Which directories are trusted: apiprof_trust.h, shared with apiprof-top.) */
/* fd is a directory (want_dir) or regular file, ours, writable only by us. */
int run_fd_mine(int fd, const char *path, int want_dir, char *why, size_t cap);
int run_fd_is_shlib(int fd); /* an ELF shared object for this machine */
/* One line and -1 when ld.so could not preload path as it stands. */
int run_preload_check(const char *path);

/* run_probe.c: before the exec, the launcher runs itself in a hidden mode
 * (argv[1] == RUN_PROBE_ARG) with the program's environment, to see that
 * ld.so loaded the runtime and every shim.  One line and -1 if not. */
#define RUN_PROBE_ARG "--apiprof-internal-load-probe"
int run_probe(const struct run_opts *o);
int run_probe_main(int argc, char **argv);

/* run_cache.c: the private directory shims are built into. */
struct run_cache {
	char dir[RUN_PATH_MAX]; /* its real path: no symlink, space or ':' */
	int fd;                 /* the directory, opened and checked */
};
int run_cache_open(struct run_cache *c);

/* run_manifest.c: the cache's direct mode, a shim reused without running
 * the preprocessor while every file its build read is unchanged. */
struct run_manifest {
	char spec[RUN_PATH_MAX]; /* the spec's real path */
	char key[17];            /* what else decides the build, hashed */
	char file[64];           /* manifest-KEY.json, in the cache */
	char shim[64];           /* the shim's name in the cache */
	struct timespec start;   /* the coarse clock before the build */
};
/* Fills spec, key and file; -1 when the spec cannot be read. */
int run_manifest_key(const char *spec, struct run_manifest *m);
/* 1 (m->shim set) when the manifest holds; 0 when not (said in one line
 * when it is malformed or not ours). */
int run_manifest_find(const struct run_cache *c, struct run_manifest *m);
void run_manifest_start(struct run_manifest *m); /* before preprocessing */
/* Writes the manifest of m->shim, built from the preprocessed source pre. */
void run_manifest_save(const struct run_cache *c, const struct run_manifest *m, const char *pre);

/* run_dyn.c: the environment of --dynamic. */
struct run_dyn_env {
	char preload[RUN_PATH_MAX * 8]; /* LD_PRELOAD */
	char audit[RUN_PATH_MAX * 4];   /* LD_AUDIT */
	char specs[RUN_PATH_MAX * 8];   /* APIPROF_SPEC */
};
int run_build_dynamic(const struct run_opts *o, struct run_dyn_env *e);

/* Where the runtime, shims, specs and apiprof-gen are: common/files/gen_paths.h. */

#endif
