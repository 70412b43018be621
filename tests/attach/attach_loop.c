/* SPDX-License-Identifier: MIT */
/*
 * attach_loop - a program apiprof-run -p attaches to (tests/attach).  It
 * calls zlib's crc32 when told and counts its own calls; its main thread
 * waits for commands in read(2) on stdin, unbuffered, and never retries a
 * read that failed: an EINTR the attach caused would end it.
 *
 *   N COUNT    COUNT calls of crc32; answers "ok CALLS CRC": every call so
 *              far, and the crc of this batch (the same for every batch)
 *   T THREADS  THREADS threads call crc32 in a loop; answers "started"
 *   S          they stop; answers "stopped CALLS BAD": their calls, and
 *              how many of them returned another crc than the first
 *   L PATH     a thread dlopen()s PATH (attach_hold.c, whose constructor
 *              answers "held" and keeps the loader's lock until released),
 *              then says "loaded"
 *   Q          exits 0
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_THREADS 256

static unsigned char data[4096];
static uLong expect;
static unsigned long long calls;
static int stop;
static pthread_t threads[MAX_THREADS];
static unsigned long long t_calls[MAX_THREADS], t_bad[MAX_THREADS];
static int nthreads;

static void say(const char *fmt, unsigned long long a, unsigned long long b)
{
	char line[128];
	int n = snprintf(line, sizeof(line), fmt, a, b);

	if (write(STDOUT_FILENO, line, (size_t)n) != n)
		exit(4);
}

/* One line from stdin, byte by byte; exits 3 on EINTR, 0 at its end. */
static void read_line(char *buf, size_t cap)
{
	size_t n = 0;

	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf + n, 1);

		if (r < 0) {
			say("error %llu %llu\n", (unsigned long long)errno, 0);
			exit(errno == EINTR ? 3 : 4);
		}
		if (r == 0)
			exit(0);
		if (buf[n] == '\n' || n + 2 == cap) {
			buf[n] = '\0';
			return;
		}
		n++;
	}
}

static void *hammer(void *arg)
{
	long i = (long)arg;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (crc32(0, data, sizeof(data)) != expect)
			t_bad[i]++;
		t_calls[i]++;
	}
	return NULL;
}

static char hold_path[64];

static void *load(void *arg)
{
	(void)arg;
	if (dlopen(hold_path, RTLD_NOW) == NULL)
		exit(6);
	say("loaded %llu %llu\n", 0, 0);
	return NULL;
}

static void load_in_thread(const char *path)
{
	pthread_t t;

	snprintf(hold_path, sizeof(hold_path), "%s", path);
	if (pthread_create(&t, NULL, load, NULL) != 0 || pthread_detach(t) != 0)
		exit(5);
}

static void start(int n)
{
	stop = 0;
	nthreads = n < MAX_THREADS ? n : MAX_THREADS;
	for (long i = 0; i < nthreads; i++)
		if (pthread_create(&threads[i], NULL, hammer, (void *)i) != 0)
			exit(5);
	say("started %llu %llu\n", (unsigned long long)nthreads, 0);
}

static void finish(void)
{
	unsigned long long c = 0, bad = 0;

	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nthreads; i++) {
		pthread_join(threads[i], NULL);
		c += t_calls[i];
		bad += t_bad[i];
		t_calls[i] = t_bad[i] = 0;
	}
	nthreads = 0;
	say("stopped %llu %llu\n", c, bad);
}

int main(void)
{
	char line[64];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	expect = crc32(0, data, sizeof(data));
	calls = 1;
	for (;;) {
		read_line(line, sizeof(line));
		if (line[0] == 'N') {
			uLong crc = 0;
			for (long n = atol(line + 2); n > 0; n--, calls++)
				crc = crc32(0, data, sizeof(data));
			say("ok %llu %llu\n", calls, crc);
		} else if (line[0] == 'T') {
			start(atoi(line + 2));
		} else if (line[0] == 'S') {
			finish();
		} else if (line[0] == 'L') {
			load_in_thread(line + 2);
		} else if (line[0] == 'Q') {
			return 0;
		}
	}
}
