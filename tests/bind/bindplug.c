// SPDX-License-Identifier: MIT
/* bindplug PLUGIN N: dlopen()s PLUGIN (libz comes with it: this program
 * does not link it) and calls its bindplug_run(N). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	unsigned long (*run)(int);

	if (argc < 3)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW);
	void *p = h ? dlsym(h, "bindplug_run") : NULL;
	if (p == NULL) {
		fprintf(stderr, "bindplug: %s\n", dlerror());
		return 1;
	}
	memcpy(&run, &p, sizeof(run));
	printf("%lu\n", run(atoi(argv[2])));
	return 0;
}
