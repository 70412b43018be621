/* SPDX-License-Identifier: MIT */
/*
 * selfuse - calls, from several threads, the very functions the apiprof
 * runtime uses itself (clock_gettime, mmap, munmap, write, mutexes,
 * pthread_key_create, shm_open).  Under a shim of them the program must
 * not hang or recurse, and only its own calls may be counted: each worker
 * makes exactly N of each, the main thread 3 key creations and 1 shm_open.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4

static int n = 1000;
static int devnull;

static void *work(void *arg)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec ts;
	long sum = 0;

	(void)arg;
	for (int i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		               0);

		pthread_mutex_lock(&m);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += write(devnull, "x", 1);
		pthread_mutex_unlock(&m);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	pthread_t t[WORKERS];
	pthread_key_t keys[3];
	char name[64];
	long total = 0;
	int fd;

	if (argc > 1)
		n = atoi(argv[1]);
	devnull = open("/dev/null", O_WRONLY);
	for (int i = 0; i < 3; i++)
		pthread_key_create(&keys[i], NULL);
	snprintf(name, sizeof(name), "/apiprof-selfuse-%d", (int)getpid());
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0)
		return 1;
	close(fd);
	shm_unlink(name);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, work, NULL);
	for (int i = 0; i < WORKERS; i++) {
		void *r;

		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("selfuse: %ld bytes written\n", total);
	return 0;
}
