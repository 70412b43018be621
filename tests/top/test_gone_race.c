/* SPDX-License-Identifier: MIT */
/*
 * test_gone_race.c - a short process that ends while a collector judges
 * its segment is counted, by that collector and by another one beside it,
 * not taken for one never ready (issue 35.4).
 *
 * The viewer proves a process alive, then reads its effective uid from
 * /proc/<pid>/status.  A process reaped between the two (top-collect's
 * children, under load) leaves that read failing: the segment, read fine
 * with the final totals, is judged at the next refresh, when the process
 * is proven gone.  Meanwhile another collector reads it and must not
 * remove it: the first one holds its slot of the watching marker and has
 * not marked it read yet (top_collect.c).  Here the test's own open64
 * reaps the child at that read, every time.
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

#include "apiprof_segname.h"
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

/* The calls of tp_work that w shows its one process ended with, -1 when
 * it does not show it ended. */
static json_int_t ended_calls(struct top_watch *w)
{
	if (w->n != 1 || w->v[0]->st != TOP_E_DONE)
		return -1;
	json_t *o = json_of(w, 2 * S);
	json_t *p = json_array_get(json_object_get(o, "processes"), 0);
	json_t *th = json_array_get(json_object_get(p, "threads"), 0);
	json_t *fn = json_array_get(json_object_get(th, "functions"), 0);
	json_int_t calls = strcmp(json_string_value(json_object_get(p, "state")), "ended")
	                           ? -1
	                           : json_integer_value(json_object_get(fn, "calls"));
	json_decref(o);
	return calls;
}

static void collector(struct top_watch *w, const char *dir)
{
	top_watch_init(w);
	w->dir = dir;
	w->collect = true;
	w->promise = true;
}

/* The marker the two collectors made in the segments' directory. */
static void marker_remove(const struct tseg *t)
{
	char path[sizeof(t->dir) + 32];

	snprintf(path, sizeof(path), "%s/" APIPROF_WATCH_PREFIX "%u", t->dir, (unsigned)geteuid());
	CHECK(unlink(path) == 0);
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
	struct top_watch a, b;
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
	collector(&a, t.dir);
	collector(&b, t.dir);
	top_watch_refresh(&a, 1 * S, 2 * S); /* the child reaped in its judgement */
	CHECK(reaped);
	CHECK(a.slot >= 0);
	top_watch_refresh(&b, 1 * S, 2 * S); /* reads it: a has not yet */
	CHECK(b.slot >= 0 && b.slot != a.slot);
	bool kept = access(t.path, F_OK) == 0;
	top_watch_refresh(&a, 2 * S, 3 * S);
	json_int_t ca = ended_calls(&a), cb = ended_calls(&b);
	if (ca != 7 || cb != 7 || !kept) {
		fprintf(stderr,
		        "FAIL: the process reaped while its segment was judged: the collector that "
		        "judged it shows %lld calls, the other %lld (7 made; -1: not shown ended; "
		        "entry state %d); its segment %s before the first had read it\n",
		        (long long)ca, (long long)cb, a.n ? (int)a.v[0]->st : -1,
		        kept ? "kept" : "removed");
		return 1;
	}
	if (access(t.path, F_OK) == 0) {
		fprintf(stderr, "FAIL: the segment left once both collectors had read it\n");
		return 1;
	}
	printf("ok: a process reaped while its segment was judged: both collectors show it "
	       "ended, 7 calls; removed once both had read it\n");
	top_watch_free(&a);
	top_watch_free(&b);
	marker_remove(&t);
	tseg_destroy(&t);
	return 0;
}
