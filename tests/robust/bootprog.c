/* SPDX-License-Identifier: MIT */
/*
 * bootprog - start-up under the malloc shim.
 *
 *   bootprog calloc    the first thing main does is calloc(1, 1)
 *   bootprog ctor      reports what bootlib's early constructor got, then
 *                      makes exactly 1 calloc and 1 open itself
 *   bootprog dlsym N   N failed lookups with dlsym and dlerror from 4
 *                      threads at once: glibc allocates the error strings
 *                      through malloc, which is the shim's, whose own first
 *                      resolution calls dlsym again
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootlib.h"

static long lookups;

static void *lookup_main(void *arg)
{
	long bad = 0;
	char name[64];

	for (long i = 0; i < lookups; i++) {
		snprintf(name, sizeof(name), "bootprog_no_such_symbol_%ld_%ld", (long)(intptr_t)arg,
		         i);
		if (dlsym(RTLD_DEFAULT, name) != NULL || dlerror() == NULL)
			bad++;
		if (dlsym(RTLD_NEXT, "malloc") == NULL)
			bad++;
	}
	return (void *)(intptr_t)bad;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "calloc") == 0) {
		char *p = calloc(1, 1);

		if (p == NULL || *p != 0)
			return 1;
		free(p);
		printf("calloc(1, 1) ok\n");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "ctor") == 0) {
		char *p = calloc(1, 1);
		int fd = open("/dev/null", O_RDONLY);

		printf("bootlib constructor: %d, main: %d\n", bootlib_result, p != NULL && fd >= 0);
		free(p);
		close(fd);
		return bootlib_result == 1 ? 0 : 1;
	}
	if (argc == 3 && strcmp(argv[1], "dlsym") == 0) {
		pthread_t t[4];
		void *bad;
		long total = 0;

		lookups = atol(argv[2]);
		for (intptr_t i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, lookup_main, (void *)i) != 0)
				return 3;
		for (int i = 0; i < 4; i++) {
			pthread_join(t[i], &bad);
			total += (long)(intptr_t)bad;
		}
		printf("lookups %ld, bad %ld\n", 4 * lookups, total);
		return total != 0;
	}
	return 2;
}
