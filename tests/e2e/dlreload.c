/* SPDX-License-Identifier: MIT */
/*
 * dlreload - loads a plugin (libdlplug) with dlopen(RTLD_LOCAL), calls it
 * only through dlsym(handle), closes it, checks that it is gone, and loads
 * it again.  With "move", the address range the first copy had is taken by
 * an anonymous mapping before the second dlopen, so the second copy lands
 * elsewhere.  With "global", the plugin is opened RTLD_GLOBAL.  Prints
 * what it saw; the caller compares that with a bare run and checks the
 * counts in APIPROF_OUTPUT.
 *
 *   dlreload LIB N [move|same] [global]
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Counted by the plugin's constructor. */
int dlplug_ctor_runs;
static int scope = RTLD_LOCAL;

typedef int (*add_fn)(int, int);
typedef int (*state_fn)(void);

struct range {
	uintptr_t base, lo, hi;
};

static int find_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg;

	(void)size;
	if (info->dlpi_addr != r->base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (r->lo == 0 || info->dlpi_addr + ph->p_vaddr < r->lo)
			r->lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > r->hi)
			r->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

static void *need(void *p, const char *what)
{
	if (p == NULL) {
		fprintf(stderr, "dlreload: %s: %s\n", what, dlerror());
		exit(2);
	}
	return p;
}

/* One load: n calls through dlsym(handle); returns the handle. */
static void *load(const char *lib, int n, int round, struct range *r)
{
	void *h = need(dlopen(lib, RTLD_NOW | scope), lib);
	void *pa = need(dlsym(h, "dp_add"), "dp_add");
	void *ps = need(dlsym(h, "dp_state"), "dp_state");
	struct link_map *lm;
	add_fn add;
	state_fn state;
	long sum = 0;

	memcpy(&add, &pa, sizeof(add));
	memcpy(&state, &ps, sizeof(state));
	for (int i = 0; i < n; i++)
		sum += add(i, round);
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0)
		need(NULL, "dlinfo");
	memset(r, 0, sizeof(*r));
	r->base = lm->l_addr;
	dl_iterate_phdr(find_range, r);
	printf("load %d: sum %ld state %d ctor %d\n", round, sum, state(), dlplug_ctor_runs);
	return h;
}

int main(int argc, char **argv)
{
	const char *lib = argc > 1 ? argv[1] : "libdlplug.so.1";
	int n = argc > 2 ? atoi(argv[2]) : 10;
	int move = argc > 3 && strcmp(argv[3], "move") == 0;
	struct range r1, r2;
	void *h, *again, *hold = MAP_FAILED;
	size_t len = 0;

	if (argc > 4 && strcmp(argv[4], "global") == 0)
		scope = RTLD_GLOBAL;
	h = load(lib, n, 1, &r1);
	if (dlclose(h) != 0)
		need(NULL, "dlclose");
	again = dlopen(lib, RTLD_NOW | RTLD_NOLOAD);
	printf("unloaded: %s\n", again == NULL ? "yes" : "no");
	if (again != NULL)
		dlclose(again);
	if (move) {
		uintptr_t lo = r1.lo & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);

		len = r1.hi - lo;
		hold = mmap((void *)lo, len, PROT_NONE,
		            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		printf("old range taken: %s\n", hold == (void *)lo ? "yes" : "no");
	}
	h = load(lib, n, 2, &r2);
	if (move)
		printf("moved: %s\n", r2.base != r1.base ? "yes" : "no");
	if (dlclose(h) != 0)
		need(NULL, "dlclose");
	if (hold != MAP_FAILED)
		munmap(hold, len);
	return 0;
}
