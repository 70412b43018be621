/* SPDX-License-Identifier: MIT */
/* flusher_wait.c - see flusher_wait.h. */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "flusher_wait.h"

/* True once a thread of this process is called apiprof-flush. */
static int flusher_named(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		char path[64], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", de->d_name);
		if (de->d_name[0] == '.' || !(f = fopen(path, "r")))
			continue;
		found = fgets(comm, sizeof(comm), f) && strcmp(comm, "apiprof-flush\n") == 0;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

void flusher_wait(void)
{
	for (int i = 0; i < 100000 && !flusher_named(); i++)
		sched_yield();
}
