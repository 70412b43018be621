/* SPDX-License-Identifier: MIT */
/*
 * attach_stop - what apiprof-run -p stops (bench/attach_stop.sh): THREADS
 * threads calling zlib's crc32 in a loop (spin), or waiting in read(2)
 * on a pipe between calls (wait: a server's threads), after dlopen() of
 * every shared object named on the command line.  Prints "ready" once all
 * are loaded and running, then waits on stdin.
 *
 *   attach_stop spin|wait THREADS OBJ...
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

static unsigned char data[256];
static volatile unsigned long sink;

static int idle[2];

static void *spin(void *arg)
{
	char c;

	for (;;) {
		sink += crc32(0, data, sizeof(data));
		if (arg != NULL && read(idle[0], &c, 1) != 1)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	char c;

	if (argc < 3 || pipe(idle) != 0)
		return 2;
	void *wait = argv[1][0] == 'w' ? argv : NULL;
	for (int i = 3; i < argc; i++)
		if (dlopen(argv[i], RTLD_NOW | RTLD_LOCAL) == NULL) {
			fprintf(stderr, "attach_stop: %s\n", dlerror());
			return 1;
		}
	for (int i = atoi(argv[2]); i > 0; i--) {
		pthread_t t;

		if (pthread_create(&t, NULL, spin, wait) != 0)
			return 1;
	}
	puts("ready");
	fflush(stdout);
	return read(0, &c, 1) < 0;
}
