/* SPDX-License-Identifier: MIT */
/*
 * startup_count.c - preloaded ahead of a shim, says on stderr at exit what
 * the process did for the shim's functions (startup_absent.sh: a shim
 * whose library is absent does nothing per function, issue 35.6):
 *
 *   lookups N      the shim's calls of the runtime's apiprof_resolve_with,
 *                  one per function it looks up (interposed here, ahead of
 *                  the runtime, and passed on)
 *   anonymous KB   the resident memory of the mappings with no name (the
 *                  runtime's arena, ld.so's and libc's own), where the
 *                  runtime's tables for an api's functions would be, but
 *                  not the runtime's .bss (below)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct apiprof_api;
typedef void *(*lookup_fn)(const char *symbol, const char *version);
typedef void *(*resolve_fn)(struct apiprof_api *api, uint32_t idx, lookup_fn next);

static unsigned long lookups;

void *apiprof_resolve_with(struct apiprof_api *api, uint32_t idx, lookup_fn next)
{
	static resolve_fn real;

	if (real == NULL) {
		void *p = dlsym(RTLD_NEXT, "apiprof_resolve_with");

		memcpy(&real, &p, sizeof(p));
	}
	lookups++;
	return real(api, idx, next);
}

/* What /proc/self/smaps says of a mapping, from the line that starts it. */
struct map {
	unsigned long lo, hi;
	int named;   /* it has a file or a [name] */
	int runtime; /* apiprof's runtime (libapiprof.so.0) */
};

static int mapping(const char *line, struct map *m)
{
	unsigned long off, ino;
	char perm[8], dev[16];
	int n = 0;

	if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &m->lo, &m->hi, perm, &off, dev, &ino,
	           &n) != 6)
		return 0;
	m->named = line[n] != '\0' && line[n] != '\n';
	m->runtime = strstr(line + n, "/libapiprof.so") != NULL;
	return 1;
}

/* The mappings with no name, but not the runtime's .bss (the one right
 * after its file), which holds the flusher's stack: how deep that thread
 * got before the exit varies from run to run, and nothing there depends
 * on a spec's size. */
static long anonymous_kb(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[4096];
	struct map prev = {0, 0, 1, 0}, cur = prev;
	int counted = 0;
	long kb = 0, v;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (mapping(line, &cur)) {
			counted = !cur.named && !(prev.runtime && prev.hi == cur.lo);
			prev = cur;
		} else if (counted && sscanf(line, "Rss: %ld kB", &v) == 1) {
			kb += v;
		}
	}
	fclose(f);
	return kb;
}

__attribute__((destructor)) static void say(void)
{
	fprintf(stderr, "lookups %lu\nanonymous %ld\n", lookups, anonymous_kb());
}
