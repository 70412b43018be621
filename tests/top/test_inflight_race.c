/* SPDX-License-Identifier: MIT */
/*
 * test_inflight_race - a call in progress is shown only while it really is,
 * with its own start, however the flusher's look at it interleaves with
 * its end and the next call's start (issue 35.5).
 *
 *   test_inflight_race RACEPROG PRELOAD
 *
 * raceprog (see there) makes a first tt_wait, then call A and call B of
 * tt_wait from the same site, so at the same frame; each blocks until
 * this test writes a byte.  raceprog's process_vm_readv lets this test
 * step the flusher read by read.  The look at the thread that sees A in
 * progress is held after its read of the thread's TLS block; A is ended
 * there (its "r1" read back), and B is started only once that look is
 * over.  Then:
 *   - the snapshot of that look must not show tt_wait in progress with
 *     A already counted (A had returned);
 *   - the viewer's refresh after it (one was made while A's last record
 *     said "in progress") must not show an interval with a call and 0 ns;
 *   - B, once seen, must be in progress since its own start: not A's,
 *     and no earlier than A's start plus A's time.
 * Every step waits on a pipe or on /proc/PID/syscall (raceprog blocked
 * in read(0)), never on time.  Exit 0: pass, 1: fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seg_attach.h"
#include "top_clock.h"

static int ctl = -1, data = -1, say = -1, go = -1;
static FILE *out;
static pid_t pid;
static struct top_seg seg;
static struct top_proc proc;
static uint32_t func = UINT32_MAX;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	/* at end of file raceprog returns and its runtime removes its
	 * segment: nothing is left in /dev/shm */
	if (pid > 0) {
		close(go), close(data), close(ctl);
		waitpid(pid, NULL, 0);
	}
	exit(1);
}

static void put(int fd)
{
	if (write(fd, "x", 1) != 1)
		fail("write to raceprog: %s", strerror(errno));
}

/* The flusher's next read: 'T' (a thread's TLS block) or 's'. */
static char gate(void)
{
	char c;

	if (read(say, &c, 1) != 1)
		fail("the flusher's gate closed");
	return c;
}

/* raceprog's next word: "r<i>", with no newline. */
static void expect(const char *word)
{
	char buf[3] = "";

	if (fread(buf, 1, 2, out) != 2 || memcmp(buf, word, 2) != 0)
		fail("raceprog said %.2s, not %s", buf, word);
}

/* Waits until raceprog is blocked in read(0): in tt_wait. */
static void in_tt_wait(void)
{
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (long i = 0; i < 100000000; i++) {
		FILE *f = fopen(path, "r");
		bool in = f && fgets(buf, sizeof(buf), f) && strncmp(buf, "0 0x0 ", 6) == 0;

		if (f)
			fclose(f);
		if (in)
			return;
		sched_yield();
	}
	fail("raceprog never blocked in tt_wait");
}

/* The segment read again and the viewer's refresh; tt_wait's cell. */
static const struct top_cell *look(struct top_row *row)
{
	char err[TOP_ERR_LEN];
	struct top_view v = {.sort = TOP_COL_TIME_IV, .filter = "tt_wait"};
	struct top_row *rows;

	if (top_seg_read(&seg, &proc, err, sizeof(err)) != 0)
		fail("segment: %s", err);
	top_proc_refresh(&proc, top_now_ns(CLOCK_MONOTONIC), top_now_ns(CLOCK_REALTIME));
	for (uint32_t i = 0; func == UINT32_MAX && i < proc.nfuncs; i++)
		if (strcmp(proc.funcs[i].name, "tt_wait") == 0)
			func = i;
	size_t n = top_rows_build(&proc, &v, &rows);
	if (row != NULL && n == 1)
		*row = rows[0];
	else if (row != NULL)
		memset(row, 0, sizeof(*row));
	free(rows);
	return func == UINT32_MAX ? NULL : top_proc_cell_find(&proc, (uint32_t)pid, func);
}

static bool inflight(const struct top_cell *c)
{
	return c != NULL && (c->flags & APIPROF_REC_INFLIGHT);
}

/* dl_iterate_phdr's callback: appends the path of a sanitizer runtime
 * this test has loaded (an ASan, UBSan or TSan build) to the preload list
 * in data, which must name them before the shim, as tests/lib.sh's
 * shim_preload does. */
static int san_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	char *list = data;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	if ((!strncmp(base, "libasan.so", 10) || !strncmp(base, "libubsan.so", 11) ||
	     !strncmp(base, "libtsan.so", 10)) &&
	    strlen(list) + strlen(info->dlpi_name) + 2 < 4096) {
		strcat(list, info->dlpi_name);
		strcat(list, ":");
	}
	return 0;
}

static void start(char **argv)
{
	int c[2], d[2], o[2], s[2], g[2];
	static char preload[4096];

	if (pipe(c) || pipe(d) || pipe(o) || pipe(s) || pipe(g))
		fail("pipe");
	pid = fork();
	if (pid == 0) {
		dup2(d[0], 0);
		dup2(o[1], 1);
		dup2(c[0], 3);
		dup2(s[1], 4);
		dup2(g[0], 5);
		for (int fd = 6; fd < 64; fd++)
			close(fd);
		dl_iterate_phdr(san_lib, preload);
		if (strlen(preload) + strlen(argv[2]) >= sizeof(preload))
			_exit(126);
		strcat(preload, argv[2]);
		setenv("LD_PRELOAD", preload, 1);
		putenv("RACE_SAY=4");
		putenv("RACE_GO=5");
		putenv("APIPROF_INTERVAL_MS=1");
		unsetenv("APIPROF_SHM");
		execl(argv[1], argv[1], (char *)NULL);
		_exit(127);
	}
	close(c[0]), close(d[0]), close(o[1]), close(s[1]), close(g[0]);
	ctl = c[1], data = d[1], say = s[0], go = g[1];
	out = fdopen(o[0], "r");
}

/* The first tt_wait, then A in progress, seen by a finished look:
 * returns A's start; *before, tt_wait's ticks before A. */
static uint64_t a_seen(uint64_t *before)
{
	char err[TOP_ERR_LEN];

	put(ctl), put(data);
	expect("r0");
	put(ctl);
	in_tt_wait();
	if (seg_attach(pid, &seg, &proc, err, sizeof(err)) < 0)
		fail("no segment: %s", err);
	for (;;) {
		if (gate() == 'T') { /* the look before it is over */
			const struct top_cell *c = look(NULL);

			if (inflight(c) && c->cur.calls == 1 &&
			    !(c->flags & APIPROF_REC_INFLIGHT_BOUND)) {
				*before = c->cur.ticks;
				return c->inflight_since;
			}
		}
		put(go);
	}
}

int main(int argc, char **argv)
{
	struct top_row row;
	uint64_t before, a;

	if (argc < 3)
		return 2;
	if (access("/dev/shm", W_OK) != 0) {
		printf("skip: /dev/shm not writable\n");
		return 77;
	}
	start(argv);
	a = a_seen(&before);
	put(go); /* the look that ends A: it reads the TLS block */
	if (gate() != 's')
		fail("A was not entered inline (no read of its stack)");
	put(data); /* A returns, before the look reads its row */
	expect("r1");
	look(NULL); /* a refresh while A's latest record says "in progress" */
	put(go);
	while (gate() != 'T')
		put(go);
	const struct top_cell *c = look(&row);
	if (inflight(c) && c->cur.calls == 2)
		fail("tt_wait shown in progress (since %llu) with its call already counted: %llu "
		     "calls",
		     (unsigned long long)c->inflight_since, (unsigned long long)c->cur.calls);
	if (row.calls_iv > 0 && !(row.iv_ns > 0))
		fail("an interval with %llu calls of tt_wait shows %.0f ns",
		     (unsigned long long)row.calls_iv, row.iv_ns);
	put(ctl); /* B: at the same frame as A */
	in_tt_wait();
	for (;;) {
		put(go);
		if (gate() != 'T' || !inflight(c = look(NULL)))
			continue;
		uint64_t a_ticks = c->cur.ticks - before;
		if (c->inflight_since == a || c->inflight_since < a + a_ticks)
			fail("B shown in progress since %llu: A began at %llu and took %llu ticks",
			     (unsigned long long)c->inflight_since, (unsigned long long)a,
			     (unsigned long long)a_ticks);
		if (c->flags & APIPROF_REC_INFLIGHT_BOUND)
			fail("B's start not known");
		break;
	}
	close(go); /* the flusher runs freely from here */
	put(data);
	expect("r2");
	close(data), close(ctl);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail("raceprog ended with status %d", st);
	printf("ok: A not shown in progress after it returned, no interval of 0 ns, B since its "
	       "own start (%llu ticks after A's)\n",
	       (unsigned long long)(c->inflight_since - a));
	return 0;
}
