/* SPDX-License-Identifier: MIT */
/*
 * allocprog - allocates from 4 threads and prints what it can tell about
 * the allocator and the clock, for stacking other preloads with the shim.
 *
 * malloc_usable_size(malloc(1)) tells the allocator that served the call
 * (glibc rounds up to 24, jemalloc to 8), and the year the clock, so the
 * output shows that libjemalloc or libfaketime is really in effect.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *work(void *arg)
{
	long sum = 0;

	(void)arg;
	for (int i = 0; i < 10000; i++) {
		char *p = malloc((size_t)(i % 512) + 1);

		if (p == NULL)
			return (void *)1;
		memset(p, i, (size_t)(i % 512) + 1);
		sum += p[0];
		p = realloc(p, 1024);
		free(p);
	}
	return sum == -1 ? (void *)1 : NULL;
}

int main(void)
{
	pthread_t t[4];
	void *bad = NULL, *r;
	char *p = malloc(1);
	time_t now = time(NULL);
	struct tm tm;

	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, work, NULL) != 0)
			return 3;
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], &r);
		bad = bad ? bad : r;
	}
	gmtime_r(&now, &tm);
	printf("usable %zu year %d threads %s\n", malloc_usable_size(p), tm.tm_year + 1900,
	       bad ? "failed" : "ok");
	free(p);
	return bad != NULL;
}
