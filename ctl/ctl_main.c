/* SPDX-License-Identifier: MIT */
/*
 * ctl_main.c - apiprof-ctl's command line: which process, which command,
 * and the exit status of the whole (apiprof_ctl_send.h).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_mode.h"
#include "apiprof_ctl_send.h"

#define CTL_SHM_DIR  "/dev/shm"
#define CTL_MAX_SEGS 256

static const char usage[] =
        "usage: apiprof-ctl [-t SECONDS] PID COMMAND\n"
        "       apiprof-ctl [-t SECONDS] --comm NAME COMMAND\n"
        "Steers a process profiled by apiprof while it runs.\n"
        "\n"
        "Commands:\n"
        "  mode MODE [API]  profile every api (or API, a spec's \"api\" name) in MODE:\n"
        "                   off, count, sampled[:N] or full\n"
        "  MODE [API]       the same (apiprof-ctl 1234 off malloc)\n"
        "  reset            its \"since reset\" totals start again at zero\n"
        "  mark LABEL       a named point in time, with its totals (LABEL: at most 63 bytes)\n"
        "  dump             its exit JSON now, to its APIPROF_OUTPUT path + .dumpN\n"
        "\n"
        "Options:\n"
        "  --comm NAME      every process of yours named NAME (as /proc/PID/comm says)\n"
        "  -t, --timeout S  wait at most S seconds for each answer (default 5)\n"
        "  -h, --help       this text\n"
        "\n"
        "Acknowledgement: the process's runtime answers in its segment's control block\n"
        "once the command is applied (the mode set, the baseline taken, the mark stored,\n"
        "the dump written), naming the request; apiprof-ctl waits for that answer (a\n"
        "futex, no polling) and prints one line per process.  Only the process's owner\n"
        "(same effective uid) or root may steer it.\n"
        "\n"
        "Exit status: 0 every process acknowledged; 1 a process refused or failed the\n"
        "command; 2 usage; 3 no such process, or not profiled; 4 another user's\n"
        "process; 5 no answer within the timeout; 6 another controller is steering it.\n";

static int bad(const char *msg, const char *what)
{
	fprintf(stderr, "apiprof-ctl: %s%s%s\n%s", msg, what ? ": " : "", what ? what : "",
	        "try 'apiprof-ctl --help'\n");
	return APIPROF_SEND_USAGE;
}

/* MODE [API] into r. */
static int parse_mode(char **a, int n, struct apiprof_ctl_request *r)
{
	struct apiprof_modeval m;
	const char *why;

	if (n < 1 || n > 2)
		return bad("mode takes MODE and at most one API", NULL);
	if (apiprof_mode_parse(a[0], &m, &why) != 0)
		return bad(why, a[0]);
	if (n == 2 && (a[1][0] == '\0' || strlen(a[1]) >= APIPROF_API_NAME_MAX))
		return bad("not an api name", a[1]);
	r->cmd = APIPROF_CTL_MODE;
	r->arg = apiprof_mode_pack(m);
	if (n == 2)
		snprintf(r->text, sizeof(r->text), "%s", a[1]);
	return APIPROF_SEND_OK;
}

/* COMMAND [ARGS] into r. */
static int parse_cmd(char **a, int n, struct apiprof_ctl_request *r)
{
	struct apiprof_modeval m;
	const char *why;

	memset(r, 0, sizeof(*r));
	if (n < 1)
		return bad("no command", NULL);
	if (strcmp(a[0], "mode") == 0)
		return parse_mode(a + 1, n - 1, r);
	if (apiprof_mode_parse(a[0], &m, &why) == 0)
		return parse_mode(a, n, r);
	if (strcmp(a[0], "reset") == 0 || strcmp(a[0], "dump") == 0) {
		if (n != 1)
			return bad("too many arguments for", a[0]);
		r->cmd = a[0][0] == 'r' ? APIPROF_CTL_RESET : APIPROF_CTL_DUMP;
		return APIPROF_SEND_OK;
	}
	if (strcmp(a[0], "mark") == 0) {
		if (n != 2)
			return bad("mark takes one LABEL", NULL);
		if (strlen(a[1]) >= sizeof(r->text))
			return bad("a label is at most 63 bytes", a[1]);
		r->cmd = APIPROF_CTL_MARK;
		snprintf(r->text, sizeof(r->text), "%s", a[1]);
		return APIPROF_SEND_OK;
	}
	return bad("not a command", a[0]);
}

static int parse_pid(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);

	return errno || *end || end == s || v < 1 || v > 0x7fffffff ? -1 : (int)v;
}

/* Sends r to every target; the worst status. */
static int send_all(const struct apiprof_ctl_target *t, int n, const struct apiprof_ctl_request *r,
                    uint64_t timeout_ms)
{
	int worst = APIPROF_SEND_OK;

	for (int i = 0; i < n; i++) {
		char msg[256];
		int s = apiprof_ctl_send(CTL_SHM_DIR, &t[i], r, timeout_ms, msg, sizeof(msg));

		fprintf(s == APIPROF_SEND_OK ? stdout : stderr, "%s%s\n",
		        s == APIPROF_SEND_OK ? "" : "apiprof-ctl: ", msg);
		if (s != APIPROF_SEND_OK && (worst == APIPROF_SEND_OK || s > worst))
			worst = s;
	}
	return worst;
}

/* True when pid names no process at all. */
static bool kill_probe(int pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

static int find(int pid, const char *comm, struct apiprof_ctl_target *t)
{
	int n = apiprof_ctl_find(CTL_SHM_DIR, pid, comm, t, CTL_MAX_SEGS);

	if (n < 0)
		fprintf(stderr, "apiprof-ctl: %s: %s\n", CTL_SHM_DIR, strerror(errno));
	else if (n == 0 && comm)
		fprintf(stderr, "apiprof-ctl: no profiled process named %s\n", comm);
	else if (n == 0)
		fprintf(stderr, "apiprof-ctl: pid %d: %s\n", pid,
		        kill_probe(pid) ? "no such process" : "not profiled by apiprof");
	return n;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {{"comm", required_argument, NULL, 'c'},
	                                      {"timeout", required_argument, NULL, 't'},
	                                      {"help", no_argument, NULL, 'h'},
	                                      {NULL, 0, NULL, 0}};
	const char *comm = NULL;
	double timeout_s = 5;
	int c;

	while ((c = getopt_long(argc, argv, "+t:h", longs, NULL)) != -1) {
		if (c == 'h')
			return fputs(usage, stdout) == EOF ? 1 : 0;
		if (c == 'c')
			comm = optarg;
		else if (c != 't' || (timeout_s = atof(optarg)) <= 0 || timeout_s > 86400)
			return bad("bad option", NULL);
	}
	int pid = 0;
	if (comm == NULL && (optind >= argc || (pid = parse_pid(argv[optind++])) < 0))
		return bad("no process: give a PID or --comm NAME", NULL);
	struct apiprof_ctl_request r;
	int s = parse_cmd(argv + optind, argc - optind, &r);
	if (s != APIPROF_SEND_OK)
		return s;
	static struct apiprof_ctl_target t[CTL_MAX_SEGS];
	int n = find(pid, comm, t);
	return n <= 0 ? APIPROF_SEND_NOPROC : send_all(t, n, &r, (uint64_t)(timeout_s * 1000));
}
