/* SPDX-License-Identifier: MIT */
/*
 * ctlprog - makes its calls and steers itself when its test says so
 * (issue 37), built with apiprof/control.h and nothing else of apiprof.
 *
 * Prints "ready PID", then for each line of stdin:
 *   calls N          N calls of tt_work; prints "done T" (T: calls so far)
 *   reset            apiprof_reset(); prints "rc R errno E"
 *   mark LABEL       apiprof_mark(LABEL); the same
 *   mode API MODE    apiprof_mode(API, MODE), API "-" for every api; the same
 *   fork N           a child makes N calls and exits; prints "child PID"
 *                    once it has
 *   spin             a thread calls tt_work until stop; prints "spinning"
 *   stop             it stops; prints "stopped N" (N: its calls)
 * Exits 0 at the end of its stdin.  errno is set to 1234 before each
 * command, so a call that succeeds shows that it kept it.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apiprof/control.h"
#include "toplib.h"

static long total;

static void say_rc(int rc)
{
	printf("rc %d errno %d\n", rc, rc == 0 ? errno : 0);
}

static void fork_calls(long n)
{
	int st = 0;
	pid_t pid = fork();

	if (pid == 0) {
		for (long i = 0; i < n; i++)
			tt_work((int)i);
		exit(0);
	}
	waitpid(pid, &st, 0);
	printf("child %d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? (int)pid : -1);
}

static int spinning;
static pthread_t spinner;

static void *spin(void *arg)
{
	long n = 0;

	(void)arg;
	while (__atomic_load_n(&spinning, __ATOMIC_RELAXED))
		tt_work((int)n++);
	return (void *)n;
}

static void spin_toggle(bool on)
{
	void *n = NULL;

	if (on) {
		__atomic_store_n(&spinning, 1, __ATOMIC_RELAXED);
		printf(pthread_create(&spinner, NULL, spin, NULL) == 0 ? "spinning\n"
		                                                       : "no thread\n");
		return;
	}
	__atomic_store_n(&spinning, 0, __ATOMIC_RELAXED);
	pthread_join(spinner, &n);
	printf("stopped %ld\n", (long)n);
}

static void command(char *line)
{
	char api[64], mode[64];

	line[strcspn(line, "\n")] = '\0';
	errno = 1234;
	if (strncmp(line, "calls ", 6) == 0) {
		long n = atol(line + 6);
		for (long i = 0; i < n; i++)
			tt_work((int)i);
		total += n;
		printf("done %ld\n", total);
	} else if (strcmp(line, "reset") == 0) {
		say_rc(apiprof_reset());
	} else if (strncmp(line, "mark ", 5) == 0) {
		say_rc(apiprof_mark(line + 5));
	} else if (strcmp(line, "spin") == 0 || strcmp(line, "stop") == 0) {
		spin_toggle(line[1] == 'p');
	} else if (strncmp(line, "fork ", 5) == 0) {
		fork_calls(atol(line + 5));
	} else if (sscanf(line, "mode %63s %63s", api, mode) == 2) {
		say_rc(apiprof_mode(strcmp(api, "-") ? api : NULL, mode));
	} else {
		printf("what? %s\n", line);
	}
	fflush(stdout);
}

int main(void)
{
	char line[256];

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		command(line);
	return 0;
}
