// SPDX-License-Identifier: MIT
/* bindplug PLUGIN N [deepbind]: dlopen()s PLUGIN (libz comes with it:
 * this program does not link it), RTLD_DEEPBIND when asked, and calls its
 * bindplug_run(N). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	unsigned long (*run)(int);

	if (argc < 3)
		return 2;
	int deep = argc > 3 && strcmp(argv[3], "deepbind") == 0 ? RTLD_DEEPBIND : 0;
	void *h = dlopen(argv[1], RTLD_NOW | deep);
	void *p = h ? dlsym(h, "bindplug_run") : NULL;
	if (p == NULL) {
		fprintf(stderr, "bindplug: %s\n", dlerror());
		return 1;
	}
	memcpy(&run, &p, sizeof(run));
	printf("%lu\n", run(atoi(argv[2])));
	return 0;
}
