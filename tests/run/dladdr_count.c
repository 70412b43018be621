/* SPDX-License-Identifier: MIT */
/*
 * dladdr_count.c - preloaded ahead of a shim, counts the process's calls
 * of dladdr1 and says how many on stderr at exit (startup_absent.sh: the
 * runtime's registration of a shim makes as many for a spec of 1000
 * functions as for one of 1).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static unsigned long calls;

int dladdr1(const void *addr, Dl_info *info, void **extra, int flags)
{
	static int (*real)(const void *, Dl_info *, void **, int);

	if (real == NULL) {
		void *p = dlsym(RTLD_NEXT, "dladdr1");

		memcpy(&real, &p, sizeof(p));
	}
	calls++;
	return real(addr, info, extra, flags);
}

__attribute__((destructor)) static void say(void)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "dladdr1 calls: %lu\n", calls);

	if (write(STDERR_FILENO, line, (size_t)n) != n)
		return;
}
