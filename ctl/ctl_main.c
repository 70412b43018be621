/* SPDX-License-Identifier: MIT */
/*
 * ctl_main.c - apiprof-ctl's command line: which process, which command,
 * and the exit status of the whole (apiprof_ctl_send.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiprof_mode.h"
#include "apiprof_ctl_send.h"
#include "apiprof_wake.h"

#define CTL_SHM_DIR  "/dev/shm"
#define CTL_MAX_SEGS 256
#define CTL_WAKE_MS  2000 /* a woken process's segment, awaited at most */

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
        "A process started with APIPROF_MODE=off is dormant (no segment): a MODE for\n"
        "the whole process wakes it (process_vm_writev: it takes ptrace rights over\n"
        "the process); its next profiled call starts the runtime in that mode.\n"
        "\n"
        "Acknowledgement: the process's runtime answers in its segment's control block\n"
        "once the command is applied (the mode set, the baseline taken, the mark stored,\n"
        "the dump written), naming the request; apiprof-ctl waits for that answer (a\n"
        "futex, no polling) and prints one line per process.  Only the process's owner\n"
        "(same effective uid) or root may steer it.\n"
        "\n"
        "Exit status: 0 every process acknowledged; 1 a process refused or failed the\n"
        "command; 2 usage; 3 no such process, or not profiled; 4 another user's\n"
        "process (or, dormant, no ptrace rights over it); 5 no answer within the\n"
        "timeout; 6 another controller is steering it; 7 a dormant process woken, which\n"
        "starts at its next profiled call (none came within 2 seconds).\n";

static int bad(const char *msg, const char *what)
{
	fprintf(stderr, "apiprof-ctl: %s%s%s\n%s", msg, what ? ": " : "", what ? what : "",
	        "try 'apiprof-ctl --help'\n");
	return APIPROF_SEND_USAGE;
}

static int say(int s, const char *msg)
{
	fprintf(s == APIPROF_SEND_OK ? stdout : stderr, "%s%s\n",
	        s == APIPROF_SEND_OK ? "" : "apiprof-ctl: ", msg);
	return s;
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
		int s = say(apiprof_ctl_send(CTL_SHM_DIR, &t[i], r, timeout_ms, msg, sizeof(msg)),
		            msg);

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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A woken process's segment, polled for (a tool may poll), then the
 * request sent through it: acknowledged once it shows the mode.  The
 * segment is there before its header says the process runs (the runtime
 * creates it, then fills it in): "no process" is asked again until then. */
static int after_wake(int pid, const struct apiprof_ctl_request *r, uint64_t timeout_ms)
{
	struct apiprof_ctl_target t;
	const struct timespec tick = {0, 10 * 1000 * 1000};
	uint64_t until = now_ms() + (timeout_ms < CTL_WAKE_MS ? timeout_ms : CTL_WAKE_MS);
	char msg[256];

	do {
		if (apiprof_ctl_find(CTL_SHM_DIR, pid, NULL, &t, 1) == 1) {
			int s = apiprof_ctl_send(CTL_SHM_DIR, &t, r, timeout_ms, msg, sizeof(msg));
			if (s != APIPROF_SEND_NOPROC || now_ms() >= until)
				return say(s, msg);
		}
		nanosleep(&tick, NULL);
	} while (now_ms() < until);
	snprintf(msg, sizeof(msg), "pid %d: woken: starts at its next profiled call", pid);
	return say(APIPROF_SEND_ASLEEP, msg);
}

/* A process with no segment: dormant, if its runtime says so, and woken
 * by a mode for the whole process.  quiet: say nothing if it is not
 * profiled (--comm's other processes). */
static int wake_one(int pid, const struct apiprof_ctl_request *r, uint64_t timeout_ms, bool quiet)
{
	char msg[320];

	if (r->cmd != APIPROF_CTL_MODE || r->text[0] != '\0') {
		snprintf(msg, sizeof(msg),
		         "pid %d: no segment: not profiled, or dormant (APIPROF_MODE=off), "
		         "which only a mode for the whole process wakes",
		         pid);
		return quiet ? APIPROF_SEND_NOPROC : say(APIPROF_SEND_NOPROC, msg);
	}
	int s = apiprof_wake(pid, r->arg, msg, sizeof(msg));
	if (s == APIPROF_SEND_NOPROC && quiet)
		return s;
	if (s != APIPROF_SEND_OK && s != APIPROF_SEND_STARTED)
		return say(s, msg);
	return after_wake(pid, r, timeout_ms);
}

/* --comm: the processes so named that have no segment. */
static int wake_comm(const char *comm, const struct apiprof_ctl_target *t, int n,
                     const struct apiprof_ctl_request *r, uint64_t timeout_ms, int *found)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int worst = APIPROF_SEND_OK;

	while (d != NULL && (de = readdir(d)) != NULL) {
		char path[300], name[64] = "";
		int pid = isdigit((unsigned char)de->d_name[0]) ? atoi(de->d_name) : 0;
		bool has = false;

		for (int i = 0; i < n; i++)
			has = has || t[i].pid == pid;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		FILE *f = pid > 0 && !has ? fopen(path, "re") : NULL;
		if (f == NULL)
			continue;
		bool same = fgets(name, sizeof(name), f) != NULL &&
		            strncmp(name, comm, strlen(comm)) == 0 && name[strlen(comm)] == '\n';
		fclose(f);
		int s = same ? wake_one(pid, r, timeout_ms, true) : APIPROF_SEND_NOPROC;
		if (s == APIPROF_SEND_NOPROC)
			continue;
		++*found;
		if (s != APIPROF_SEND_OK && (worst == APIPROF_SEND_OK || s > worst))
			worst = s;
	}
	if (d != NULL)
		closedir(d);
	return worst;
}

static int find(int pid, const char *comm, struct apiprof_ctl_target *t)
{
	int n = apiprof_ctl_find(CTL_SHM_DIR, pid, comm, t, CTL_MAX_SEGS);

	if (n < 0)
		fprintf(stderr, "apiprof-ctl: %s: %s\n", CTL_SHM_DIR, strerror(errno));
	else if (n == 0 && pid > 0 && kill_probe(pid))
		fprintf(stderr, "apiprof-ctl: pid %d: no such process\n", pid);
	return n;
}

/* The segments found, then (no segment) the dormant processes. */
static int steer(int pid, const char *comm, const struct apiprof_ctl_request *r,
                 uint64_t timeout_ms)
{
	static struct apiprof_ctl_target t[CTL_MAX_SEGS];
	int n = find(pid, comm, t);

	if (n < 0 || (n == 0 && pid > 0 && kill_probe(pid)))
		return APIPROF_SEND_NOPROC;
	if (n == 0 && pid > 0)
		return wake_one(pid, r, timeout_ms, false);
	int found = n;
	int worst = n > 0 ? send_all(t, n, r, timeout_ms) : APIPROF_SEND_OK;
	if (comm == NULL)
		return worst;
	int woke = wake_comm(comm, t, n, r, timeout_ms, &found);
	if (found == 0) {
		fprintf(stderr, "apiprof-ctl: no profiled process named %s\n", comm);
		return APIPROF_SEND_NOPROC;
	}
	return woke != APIPROF_SEND_OK && (worst == APIPROF_SEND_OK || woke > worst) ? woke : worst;
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
	return steer(pid, comm, &r, (uint64_t)(timeout_s * 1000));
}
