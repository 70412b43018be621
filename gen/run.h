/* SPDX-License-Identifier: MIT */
/* run.h - the launcher's pieces. */
#ifndef APIPROF_RUN_H
#define APIPROF_RUN_H

#include <stddef.h>

#define RUN_PATH_MAX  4096
#define RUN_MAX_SPECS 16

struct run_opts {
	const char *specs[RUN_MAX_SPECS];
	int nspecs;
	const char *output;
	int summary, strict, quiet;
	int dynamic; /* --dynamic: libffi mode, nothing built */
	char **argv;
	int can_profile; /* set by run_check_target */
};

int run_opts_add_specs(struct run_opts *o, char *list);
const char *run_shipped_names(void);

/* run_target.c: is argv[0] something LD_PRELOAD can reach? */
int run_check_target(struct run_opts *o);

/* run_shim.c: finds or builds every shim, and composes LD_PRELOAD. */
int run_build_preload(const struct run_opts *o, char *out, size_t cap);

/* run_dyn.c: the environment of --dynamic. */
struct run_dyn_env {
	char preload[RUN_PATH_MAX * 8]; /* LD_PRELOAD */
	char audit[RUN_PATH_MAX * 4];   /* LD_AUDIT */
	char specs[RUN_PATH_MAX * 8];   /* APIPROF_SPEC */
};
int run_build_dynamic(const struct run_opts *o, struct run_dyn_env *e);

#ifndef APIPROF_RUNTIME_LIB
#define APIPROF_RUNTIME_LIB "libapiprof.so.0"
#endif

#endif
