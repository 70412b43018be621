/* SPDX-License-Identifier: MIT */
/*
 * sigprog - a program for the death-by-signal tests (sigdeath.sh).
 *
 *   sigprog block N READY WAIT    N calls of tl_add, "ready PID" written
 *                                 to the fifo READY, then a read of the
 *                                 fifo WAIT: it waits there to be killed
 *   sigprog handler N READY WAIT  the same with its own SIGTERM handler
 *                                 (sigaction), which prints and exits 7
 *   sigprog signal N READY WAIT   the same, the handler set by signal()
 *   sigprog redfl N READY WAIT    signal(SIGTERM, h), then SIG_DFL again
 *   sigprog query                 prints the dispositions of SIGHUP,
 *                                 SIGINT, SIGQUIT and SIGTERM as seen by
 *                                 sigaction(), signal() and friends
 *
 * Prints what the old dispositions were; the shell compares it with a
 * bare run.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* sigset() */

typedef void (*handler_fn)(int);
handler_fn bsd_signal(int sig, handler_fn h); /* not declared under _GNU_SOURCE */

static const char *kind(handler_fn h)
{
	return h == SIG_DFL ? "DFL" : h == SIG_IGN ? "IGN" : h == SIG_ERR ? "ERR" : "other";
}

static void on_term(int sig)
{
	static const char msg[] = "handled\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(8);
	_exit(7);
}

static void show(const char *name, int sig)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) != 0) {
		printf("%s query failed\n", name);
		return;
	}
	printf("%s %s flags=%#x mask=", name, kind(old.sa_handler), (unsigned)old.sa_flags);
	for (int s = 1; s < 32; s++)
		if (sigismember(&old.sa_mask, s))
			printf("%d,", s);
	printf("\n");
}

static void show_all(void)
{
	show("HUP", SIGHUP);
	show("INT", SIGINT);
	show("QUIT", SIGQUIT);
	show("TERM", SIGTERM);
}

static int query(void)
{
	struct sigaction sa, old;

	show_all();
	printf("signal(INT, DFL) was %s\n", kind(signal(SIGINT, SIG_DFL)));
	printf("bsd_signal(QUIT, DFL) was %s\n", kind(bsd_signal(SIGQUIT, SIG_DFL)));
	printf("sysv_signal(TERM, DFL) was %s\n", kind(sysv_signal(SIGTERM, SIG_DFL)));
	printf("sigset(HUP, DFL) was %s\n", kind(sigset(SIGHUP, SIG_DFL)));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_RESETHAND;
	sigaddset(&sa.sa_mask, SIGUSR1);
	sigaction(SIGHUP, &sa, &old);
	printf("sigaction(HUP, DFL) was %s\n", kind(old.sa_handler));
	show_all();
	printf("signal(TERM, IGN) was %s\n", kind(signal(SIGTERM, SIG_IGN)));
	show("TERM", SIGTERM);
	return 0;
}

/* N calls, then "ready PID" on the fifo READY, then a read of WAIT. */
static int block(long n, const char *ready, const char *wait)
{
	long sum = 0;
	char c;
	FILE *f;
	int fd;

	for (long i = 0; i < n; i++)
		sum = tl_add((int)sum, 1);
	f = fopen(ready, "w");
	if (f == NULL || fprintf(f, "ready %d\n", (int)getpid()) < 0 || fclose(f) != 0)
		return 3;
	fd = open(wait, O_RDONLY);
	if (fd < 0 || read(fd, &c, 1) != 1)
		return 4;
	printf("woke, sum %ld\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa, old;

	if (argc == 2 && strcmp(argv[1], "query") == 0)
		return query();
	if (argc != 5)
		return 2;
	if (strcmp(argv[1], "handler") == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_term;
		sigaction(SIGTERM, &sa, &old);
		printf("old %s\n", kind(old.sa_handler));
	} else if (strcmp(argv[1], "signal") == 0) {
		printf("old %s\n", kind(signal(SIGTERM, on_term)));
	} else if (strcmp(argv[1], "redfl") == 0) {
		printf("old %s\n", kind(signal(SIGTERM, on_term)));
		printf("old %s\n", kind(signal(SIGTERM, SIG_DFL)));
	} else if (strcmp(argv[1], "block") != 0) {
		return 2;
	}
	fflush(stdout);
	return block(atol(argv[2]), argv[3], argv[4]);
}
