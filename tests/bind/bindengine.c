// SPDX-License-Identifier: MIT
/*
 * bindengine: the engine (apiprof_bind.h) on its own, as attach uses it.
 *
 * crc32 is called from three libraries: through a GOT entry (libbindplug,
 * -fno-plt), a lazy PLT slot never resolved before (libbindlazy) and a
 * read-only table of function pointers (libbindtab, -z now -z relro).
 * Four threads call it all along.  apiprof_bind_apply leads every one of
 * those to a counting wrapper defined here: exactly the calls made are
 * counted, results unchanged, the libraries' page protections as before;
 * adler32 (same table) is not touched.  apiprof_bind_revert puts every
 * slot back: nothing counted any more.  Then once more (attach again).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "apiprof_bind.h"

uLong bindplug_run(int n);
uLong bindlazy_run(int n);
uLong bindtab_run(int n, int k);

static struct apiprof_bind_sym syms[1];
static unsigned long wrapped;
static int stop;

static uLong counting_crc32(uLong c, const Bytef *buf, uInt len)
{
	uLong (*real)(uLong, const Bytef *, uInt);
	void *p = __atomic_load_n(&syms[0].real, __ATOMIC_ACQUIRE);

	__atomic_fetch_add(&wrapped, 1, __ATOMIC_RELAXED);
	memcpy(&real, &p, sizeof(real));
	return real(c, buf, len);
}

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("FAIL: " __VA_ARGS__);                                              \
			printf("\n");                                                              \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

struct want {
	uLong plug, lazy, tab, adler;
};

static void *hammer(void *arg)
{
	const struct want *w = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		CHECK(bindplug_run(10) == w->plug, "a result changed under the rewrite");
		CHECK(bindtab_run(10, 0) == w->tab, "a result changed under the rewrite");
	}
	return NULL;
}

/* The lines of /proc/self/maps that name the test's libraries. */
static void maps(char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	size_t n = 0;

	out[0] = '\0';
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libbind") && n + strlen(line) < cap) {
			strcpy(out + n, line);
			n += strlen(line);
		}
	if (f)
		fclose(f);
}

static unsigned long calls(uLong (*fn)(int), int n, uLong want)
{
	unsigned long before = __atomic_load_n(&wrapped, __ATOMIC_RELAXED);

	CHECK(fn(n) == want, "a result changed");
	return __atomic_load_n(&wrapped, __ATOMIC_RELAXED) - before;
}

static pthread_t threads[4];

static void hammer_start(struct want *small)
{
	__atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&threads[i], NULL, hammer, small) == 0, "pthread_create");
}

static void hammer_stop(void)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
}

/* Bound while the threads call, counted alone, put back while they call. */
static void bound_round(const struct want *w, struct want *small, const char *maps0)
{
	char maps1[8192];

	syms[0] = (struct apiprof_bind_sym){"crc32", (void *)counting_crc32, NULL};
	hammer_start(small);
	int r = apiprof_bind_apply(syms, 1);
	hammer_stop();
	/* and libz's own PLT slot for crc32, in the builds that have one */
	CHECK(r >= 3, "apiprof_bind_apply rewrote %d slots, want 3 or more (GOT, PLT, table)", r);
	int rewritten = r;
	CHECK(syms[0].real == dlsym(RTLD_DEFAULT, "crc32"), "real %p is not libz's crc32",
	      syms[0].real);
	maps(maps1, sizeof(maps1));
	CHECK(strcmp(maps0, maps1) == 0, "page protections changed:\n%s\nnow:\n%s", maps0, maps1);
	unsigned long n = calls(bindplug_run, 1000, w->plug);
	CHECK(n == 1000, "%lu of 1000 GOT calls counted", n);
	n = calls(bindlazy_run, 1000, w->lazy);
	CHECK(n == 1000, "%lu of 1000 lazy PLT calls counted", n);
	unsigned long before = wrapped;
	CHECK(bindtab_run(500, 0) == w->tab && wrapped - before == 500,
	      "%lu of 500 table calls counted", wrapped - before);
	before = wrapped;
	CHECK(bindtab_run(500, 1) == w->adler && wrapped == before,
	      "adler32 was led to crc32's wrapper");
	hammer_start(small);
	r = apiprof_bind_revert();
	hammer_stop();
	CHECK(r == rewritten, "apiprof_bind_revert put back %d slots, want %d", r, rewritten);
	maps(maps1, sizeof(maps1));
	CHECK(strcmp(maps0, maps1) == 0, "page protections changed by revert");
	before = wrapped;
	CHECK(bindplug_run(1000) == w->plug && bindlazy_run(1000) == w->lazy &&
	              bindtab_run(500, 0) == w->tab && wrapped == before,
	      "%lu calls counted after revert", wrapped - before);
}

int main(void)
{
	/* bindlazy_run is not called before the first round: its slot is lazy */
	struct want big = {bindplug_run(1000), bindplug_run(1000), bindtab_run(500, 0),
	                   bindtab_run(500, 1)};
	struct want small = {bindplug_run(10), 0, bindtab_run(10, 0), 0};
	char maps0[8192];

	maps(maps0, sizeof(maps0));
	for (int round = 0; round < 2; round++)
		bound_round(&big, &small, maps0);
	printf("ok: GOT, lazy PLT and read-only table bound and put back twice, 4 threads "
	       "calling meanwhile\n");
	return 0;
}
