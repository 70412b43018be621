/* SPDX-License-Identifier: MIT */
/*
 * run_dyn.c - the environment of `apiprof-run --dynamic`.
 *
 * Nothing is built: the prebuilt profiler libapiprof-dyn.so is preloaded
 * after the runtime, its audit module goes into LD_AUDIT, and the specs
 * into APIPROF_SPEC, as absolute paths so that a program that changes
 * directory still finds them.  A shipped api name is the shipped spec
 * file, specs/NAME.json.  Each library is checked before the exec
 * (run_preload_check), as the generated mode's are.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_paths.h"
#include "run.h"

static int spec_path(const char *spec, char *out)
{
	char named[RUN_PATH_MAX];
	size_t n = strlen(spec);
	int is_file = strchr(spec, '/') != NULL || (n > 5 && strcmp(spec + n - 5, ".json") == 0);

	if (!is_file) {
		snprintf(named, sizeof(named), "%s/%s.json", gen_path(GEN_PART_SPECDIR), spec);
		if (realpath(named, out) == NULL) {
			fprintf(stderr,
			        "apiprof-run: %s is neither a spec file nor a shipped api "
			        "(shipped: %s)\n",
			        spec, run_shipped_names());
			return -1;
		}
		return 0;
	}
	if (realpath(spec, out) == NULL) {
		fprintf(stderr, "apiprof-run: cannot read spec %s: %s\n", spec, strerror(errno));
		return -1;
	}
	if (strchr(out, ':') != NULL) {
		fprintf(stderr, "apiprof-run: %s: a spec path with ':' cannot go in APIPROF_SPEC\n",
		        out);
		return -1;
	}
	return 0;
}

/* "first:second" with an empty or missing second left out. */
static int join(char *out, size_t cap, const char *first, const char *second)
{
	int n = second && *second ? snprintf(out, cap, "%s:%s", first, second)
	                          : snprintf(out, cap, "%s", first);

	return n > 0 && (size_t)n < cap ? 0 : -1;
}

int run_build_dynamic(const struct run_opts *o, struct run_dyn_env *e)
{
	char lib[RUN_PATH_MAX * 2];
	size_t len = 0;

	for (int i = 0; i < o->nspecs; i++) {
		char path[PATH_MAX];

		if (spec_path(o->specs[i], path) != 0)
			return -1;
		len += (size_t)snprintf(e->specs + len, sizeof(e->specs) - len, "%s%s",
		                        len ? ":" : "", path);
		if (len >= sizeof(e->specs))
			return -1;
	}
	const char *rt = gen_path(GEN_PART_RUNTIME);
	const char *dyn = gen_path(GEN_PART_DYN_LIB);
	const char *audit = gen_path(GEN_PART_DYN_AUDIT);
	if (run_preload_check(rt) != 0 || run_preload_check(dyn) != 0 ||
	    run_preload_check(audit) != 0)
		return -1;
	snprintf(lib, sizeof(lib), "%s:%s", rt, dyn);
	if (join(e->preload, sizeof(e->preload), lib, getenv("LD_PRELOAD")) != 0 ||
	    join(e->audit, sizeof(e->audit), audit, getenv("LD_AUDIT")) != 0) {
		fprintf(stderr, "apiprof-run: LD_PRELOAD or LD_AUDIT too long\n");
		return -1;
	}
	return 0;
}
