/* SPDX-License-Identifier: MIT */
/*
 * test_gone_race.c - a short process that ends while a collector judges
 * its segment is counted, not taken for one never ready (issue 35.4).
 *
 * The viewer proves a process alive, then reads its effective uid from
 * /proc/<pid>/status.  A process reaped between the two (top-collect's
 * children, under load) left that read failing: the segment, read fine
 * with the final totals, was taken for one never ready, forgotten and
 * removed at once, and no collector counted the process.  Here the
 * test's own open64 reaps the child at that read, every time.
 */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "top_batch.h"
#include "top_watch.h"
#include "tseg.h"

#define S 1000000000ull

static pid_t child;
static char status_path[64];
static int reaped;

static char stat_path[64];
static bool status_last; /* the child's last /proc file opened: status */

/* The reader's opens (top_names.c read_small).  A liveness check opens
 * the child's stat, then its status (NSpid); the uid's read opens status
 * alone, right after such a check: the child is reaped just before it. */
int open64(const char *path, int flags, ...)
{
	va_list ap;

	va_start(ap, flags);
	int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0;
	va_end(ap);
	bool status = strcmp(path, status_path) == 0;
	if (child > 0 && !reaped && status && status_last) {
		kill(child, SIGKILL);
		reaped = waitpid(child, NULL, 0) == child;
	}
	if (status || strcmp(path, stat_path) == 0)
		status_last = status;
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

static json_t *json_of(struct top_watch *w, uint64_t real)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_error_t e;

	CHECK(top_batch_json(f, w, TOP_GROUP_NONE, real, 1.0) == 0);
	fclose(f);
	json_t *o = json_loads(buf, 0, &e);
	CHECK(o);
	free(buf);
	return o;
}

static pid_t spawn_blocked(void)
{
	int p[2];
	char c;

	CHECK(pipe(p) == 0);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) < 0);
	}
	close(p[0]);
	return pid;
}

int main(void)
{
	struct tseg t;
	struct top_watch w;
	uint64_t st;

	child = spawn_blocked();
	CHECK(apiprof_proc_starttime("/proc", child, &st) == 0);
	snprintf(status_path, sizeof(status_path), "/proc/%d/status", (int)child);
	snprintf(stat_path, sizeof(stat_path), "/proc/%d/stat", (int)child);
	tseg_create_named(&t, 4, 4, child, st);
	tseg_func(&t, 0, "testapi", "tp_work");
	tseg_write(&t, 77, 0, 10, 7, 100);
	/* as the runtime leaves it for a collector (apiprof_segment_close) */
	t.h->flags |= APIPROF_SHM_LEFT;
	t.h->state = APIPROF_PROC_EXITED;
	top_watch_init(&w);
	w.dir = t.dir;
	w.collect = true;
	top_watch_refresh(&w, 1 * S, 2 * S);
	CHECK(reaped);
	CHECK(w.n == 1);
	if (w.v[0]->st != TOP_E_DONE) {
		fprintf(stderr,
		        "FAIL: the process reaped while its segment was judged: entry state %d "
		        "(not done: its 7 calls lost), its segment %s\n",
		        (int)w.v[0]->st, access(t.path, F_OK) ? "removed" : "left");
		top_watch_free(&w);
		tseg_destroy(&t);
		return 1;
	}
	json_t *o = json_of(&w, 2 * S);
	json_t *p = json_array_get(json_object_get(o, "processes"), 0);
	json_t *th = json_array_get(json_object_get(p, "threads"), 0);
	json_t *fn = json_array_get(json_object_get(th, "functions"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(p, "state")), "ended"));
	json_int_t calls = json_integer_value(json_object_get(fn, "calls"));
	if (calls != 7) {
		fprintf(stderr, "FAIL: %lld calls of tp_work shown, 7 made\n", (long long)calls);
		tseg_destroy(&t);
		return 1;
	}
	printf("ok: a process reaped while its segment was judged is shown ended, 7 calls\n");
	json_decref(o);
	top_watch_free(&w);
	tseg_destroy(&t);
	return 0;
}
