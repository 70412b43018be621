/* SPDX-License-Identifier: MIT */
/*
 * forkprog - a forking server for apiprof-top's tests: workers with
 * known call counts and titles rewritten as nginx and postgres do.
 *
 *   forkprog WORKERS CALLS
 *
 * The parent calls tt_idle 3 times, then rewrites its command line (the
 * argv area) to "forkprog: master" and forks WORKERS workers.  Worker k
 * (0-based) writes "forkprog: worker k" there, calls tt_work CALLS*(k+1)
 * times and tt_idle once, reports to the parent and waits for it to end.
 * Once all have reported the parent prints "ready PID..." (its workers)
 * and serves its stdin: "rename" makes it "forkprog: master renamed" and
 * print "renamed"; "fork" forks one more worker, the next k, and prints
 * "forked PID" once it has reported; end of file ends the workers and
 * then itself.  The
 * test synchronises on those lines, never on time.  The parent forks only
 * once the runtime's flusher thread has started (tests/tools/flusher_wait.h
 * says why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flusher_wait.h"
#include "toplib.h"

#define MAX_WORKERS 16

static char *title_area;
static size_t title_len;

/* The workers, and the pipes they report on and wait for the end on. */
static pid_t pids[MAX_WORKERS];
static int nworkers, report[2], quit[2];
static long calls;

/* The arguments lie end to end: together they are the room a title has. */
static void title_init(int argc, char **argv)
{
	title_area = argv[0];
	title_len = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
}

static void title_set(const char *t)
{
	memset(title_area, 0, title_len + 1);
	snprintf(title_area, title_len + 1, "%s", t);
}

static void worker(int k)
{
	char t[64];

	snprintf(t, sizeof(t), "forkprog: worker %d", k);
	title_set(t);
	for (long i = 0; i < calls * (k + 1); i++)
		tt_work((int)i);
	tt_idle();
	if (write(report[1], "k", 1) != 1)
		_exit(1);
	while (read(quit[0], t, 1) > 0)
		;
	exit(0);
}

/* Forks worker nworkers; 0, or -1. */
static int spawn(void)
{
	int k = nworkers;

	if (k >= MAX_WORKERS || (pids[k] = fork()) < 0)
		return -1;
	if (pids[k] == 0) {
		close(quit[1]);
		worker(k);
	}
	nworkers++;
	return 0;
}

/* Forks one more worker and prints its pid once it has reported. */
static void fork_one(void)
{
	char c;

	if (spawn() != 0 || read(report[0], &c, 1) != 1) {
		printf("fork failed\n");
	} else {
		printf("forked %d\n", (int)pids[nworkers - 1]);
	}
	fflush(stdout);
}

static void serve(void)
{
	char line[64];

	while (fgets(line, sizeof(line), stdin))
		if (!strcmp(line, "rename\n")) {
			title_set("forkprog: master renamed");
			printf("renamed\n");
			fflush(stdout);
		} else if (!strcmp(line, "fork\n")) {
			fork_one();
		}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2, status, rc = 0;
	char c;

	calls = argc > 2 ? atol(argv[2]) : 1000;
	if (n < 1 || n > MAX_WORKERS || pipe(report) || pipe(quit))
		return 2;
	title_init(argc, argv);
	for (int i = 0; i < 3; i++)
		tt_idle();
	title_set("forkprog: master");
	fflush(stdout);
	flusher_wait();
	for (int k = 0; k < n; k++)
		if (spawn() != 0)
			return 2;
	for (int k = 0; k < n; k++)
		if (read(report[0], &c, 1) != 1)
			return 2;
	printf("ready");
	for (int k = 0; k < n; k++)
		printf(" %d", (int)pids[k]);
	printf("\n");
	fflush(stdout);
	serve();
	close(quit[1]);
	for (int k = 0; k < nworkers; k++)
		if (waitpid(pids[k], &status, 0) != pids[k] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			rc = 1;
	return rc;
}
