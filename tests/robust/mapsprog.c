/* SPDX-License-Identifier: MIT */
/*
 * mapsprog - makes one call of tl_add, then prints how many mappings and
 * threads the process has:
 *
 *	maps M threads T sum S
 *
 * Built twice: plain, and with -DBIG_TLS, which gives the program 1 MiB
 * of static TLS, more than the runtime's own flusher stack has room for.
 */
#include <dirent.h>
#include <stdio.h>

#include "testlib.h"

#ifdef BIG_TLS
static __thread char big[1u << 20];
#endif

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (f == NULL)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(void)
{
	int sum = tl_add(40, 2);

#ifdef BIG_TLS
	big[sizeof(big) - 1] = 1;
	sum += big[sizeof(big) - 1] - 1;
#endif
	printf("maps %d threads %d sum %d\n", count_lines("/proc/self/maps"), count_tasks(), sum);
	return 0;
}
