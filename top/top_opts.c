/* SPDX-License-Identifier: MIT */
/*
 * top_opts.c - command-line parsing.  Every number is parsed strictly: a
 * typo must be an error, not a silent 0.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "top_cols.h"
#include "top_opts.h"
#include "top_ptree.h"

enum {
	OPT_JSON = 256,
	OPT_CLEAN,
	OPT_LINGER,
	OPT_SHM_DIR,
	OPT_LISTEN,
	OPT_TEXTFILE,
	OPT_PER_PROCESS,
	OPT_PER_THREAD,
	OPT_GROUP,
	OPT_FOLDED,
	OPT_HTTP_TIMEOUT,
	OPT_ALL_USERS,
	OPT_CHILDREN,
	OPT_USER,
	OPT_COMM,
};

/* The -s names, from the column table. */
static void put_sort_keys(FILE *out)
{
	for (int c = 0; c < TOP_COL_COUNT; c++)
		if (top_columns[c].key)
			fprintf(out, " %s", top_columns[c].key);
}

void top_opts_usage(FILE *out)
{
	fputs("usage: apiprof-top [-b] [-d SECONDS] [-n COUNT] [-p PID[,PID...] [--children]]\n"
	      "                   [--user NAME,...] [--comm NAME,...] [--json] [--folded[=ns]]\n"
	      "                   [-a] [-f FILTER] [-s COLUMN] [-i] [--group tree|comm]\n"
	      "                   [--linger SECONDS] [--clean]\n"
	      "       apiprof-top [--listen [ADDR:]PORT|unix:PATH] [--textfile DIR]\n"
	      "                   [--all-users] [--per-process] [--per-thread]\n"
	      "                   [--http-timeout SECONDS] [-d SECONDS] [-p PID,...]\n"
	      "                   [--user NAME,...] [--comm NAME,...]\n"
	      "  -b, --batch          plain output, one block per refresh (default when\n"
	      "                       stdout is not a terminal)\n"
	      "      --json           batch output as one JSON object per line\n"
	      "      --folded[=ns]    one refresh as folded stacks for flame graphs:\n"
	      "                       caller;api.function;api.child CALLS (or ns)\n"
	      "  -d, --delay SECONDS  refresh interval, fractions allowed (default 1)\n"
	      "  -n, --iterations N   exit after N refreshes\n"
	      "  -p, --pid PID,...    only these processes (default: all of yours)\n"
	      "      --children       with -p, also the processes they fork (at any depth),\n"
	      "                       as each appears: new backends, restarted workers\n"
	      "      --user NAME,...  only these users' processes (names or uids; root sees\n"
	      "                       every user's, others only their own)\n"
	      "      --comm NAME,...  only processes of these commands (/proc/PID/comm: its\n"
	      "                       first 15 characters); -p, --user, --comm: all must hold\n"
	      "  -a, --aggregate      one row per function, summed over threads\n"
	      "      --group KIND     one table per process tree (tree) or per command\n"
	      "                       (comm), one row per function summed over its processes\n"
	      "  -f, --filter TEXT    only rows whose api, function or thread contains TEXT\n"
	      "  -s, --sort COLUMN   ",
	      out);
	put_sort_keys(out);
	fputs("\n"
	      "  -i, --invert         invert the sort order\n"
	      "      --linger SECONDS how long an ended process stays visible (default 10)\n"
	      "      --clean          remove the segments of processes that are provably gone\n"
	      "                       (your own; root: every user's)\n"
	      "      --shm-dir DIR    look for segments in DIR instead of /dev/shm\n"
	      "Prometheus exporter (no screen; docs/FLEET.md):\n"
	      "      --listen [ADDR:]PORT  serve http://ADDR:PORT/metrics (ADDR: 127.0.0.1)\n"
	      "      --listen unix:PATH    serve /metrics on a new Unix socket: each scraper\n"
	      "                       sees its own processes (root's: everyone's)\n"
	      "      --all-users      as root, export every user's processes on TCP or\n"
	      "                       --textfile (anyone who connects or reads sees them)\n"
	      "      --textfile DIR   write DIR/"
	      "apiprof.prom every refresh (node_exporter)\n"
	      "      --per-process    series per process (pid, title), not summed per command\n"
	      "      --per-thread     series per thread (tid, thread) of each process\n"
	      "      --http-timeout SECONDS  a request header must be in within SECONDS of\n"
	      "                       the accept (default 10)\n",
	      out);
}

static int parse_seconds(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v < 0 || *v > 86400)
		return -1;
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || end == s || *end || *v < lo || *v > hi)
		return -1;
	return 0;
}

static int parse_pids(struct top_opts *o, const char *arg)
{
	char buf[1024], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long pid;

		if (o->npids >= TOP_MAX_PIDS || parse_long(tok, 1, INT_MAX, &pid))
			return -1;
		o->pids[o->npids++] = (int)pid;
	}
	return o->npids ? 0 : -1;
}

/* A user name, or a uid in digits (one without a passwd entry). */
static int parse_user(const char *tok, uint32_t *uid)
{
	char buf[1024];
	struct passwd pw, *res = NULL;
	long v;

	if (getpwnam_r(tok, &pw, buf, sizeof(buf), &res) == 0 && res) {
		*uid = (uint32_t)res->pw_uid;
		return 0;
	}
	if (parse_long(tok, 0, UINT32_MAX - 1, &v))
		return -1;
	*uid = (uint32_t)v;
	return 0;
}

/* NAME[,NAME...], added to what earlier --user gave. */
static int parse_users(struct top_opts *o, const char *arg)
{
	char buf[1024], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (o->nuids >= TOP_MAX_USERS || parse_user(tok, &o->uids[o->nuids++]))
			return -1;
	return o->nuids ? 0 : -1;
}

/* NAME[,NAME...]: each its first 15 characters, as the kernel keeps a comm. */
static int parse_comms(struct top_opts *o, const char *arg)
{
	char buf[1024], *save = NULL;

	if (strlen(arg) >= sizeof(buf))
		return -1;
	strcpy(buf, arg);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->ncomms >= TOP_MAX_COMMS)
			return -1;
		snprintf(o->comms[o->ncomms++], TOP_SELECT_COMM_LEN, "%s", tok);
	}
	return o->ncomms ? 0 : -1;
}

static void defaults(struct top_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->delay_s = 1.0;
	o->linger_s = 10.0;
	o->batch = !isatty(STDOUT_FILENO);
	o->view.sort = TOP_COL_TIME_IV;
}

/* One option; returns -1 on a bad value. */
static int apply(struct top_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'b':
		o->batch = true;
		return 0;
	case OPT_JSON:
		o->json = o->batch = true;
		return 0;
	case OPT_CLEAN:
		o->clean = true;
		return 0;
	case OPT_FOLDED: /* one refresh, like -b -n 1 */
		o->folded = arg && strcmp(arg, "ns") == 0 ? TOP_FOLDED_NS : TOP_FOLDED_CALLS;
		o->batch = true;
		o->count = 1;
		return arg && o->folded != TOP_FOLDED_NS ? -1 : 0;
	case 'a':
		o->view.aggregate = true;
		return 0;
	case 'i':
		o->view.reverse = true;
		return 0;
	case 'f':
		o->view.filter = arg;
		return 0;
	case OPT_SHM_DIR:
		o->shm_dir = arg;
		return 0;
	case OPT_GROUP:
		return top_group_parse(arg, &o->view.group);
	case OPT_LISTEN:
		o->listen = arg;
		return 0;
	case OPT_TEXTFILE:
		o->textfile = arg;
		return 0;
	case OPT_PER_PROCESS:
		o->per_process = true;
		return 0;
	case OPT_PER_THREAD:
		o->per_thread = true;
		return 0;
	case OPT_ALL_USERS:
		o->all_users = true;
		return 0;
	case OPT_CHILDREN:
		o->children = true;
		return 0;
	case OPT_USER:
		return parse_users(o, arg);
	case OPT_COMM:
		return parse_comms(o, arg);
	case OPT_HTTP_TIMEOUT: {
		long v;

		if (parse_long(arg, 1, 3600, &v))
			return -1;
		o->http_timeout_s = (unsigned)v;
		return 0;
	}
	case 'd':
		return parse_seconds(arg, &o->delay_s) || o->delay_s < 0.01 ? -1 : 0;
	case OPT_LINGER:
		return parse_seconds(arg, &o->linger_s);
	case 'n':
		return parse_long(arg, 1, LONG_MAX, &o->count);
	case 'p':
		return parse_pids(o, arg);
	case 's':
		return top_col_parse(arg, &o->view.sort);
	}
	return -1;
}

/* 0: run; 1: help printed, exit 0; -1: usage error (message printed). */
int top_opts_parse(struct top_opts *o, int argc, char **argv)
{
	static const struct option longs[] = {
	        {"batch", no_argument, NULL, 'b'},
	        {"json", no_argument, NULL, OPT_JSON},
	        {"folded", optional_argument, NULL, OPT_FOLDED},
	        {"delay", required_argument, NULL, 'd'},
	        {"iterations", required_argument, NULL, 'n'},
	        {"pid", required_argument, NULL, 'p'},
	        {"aggregate", no_argument, NULL, 'a'},
	        {"filter", required_argument, NULL, 'f'},
	        {"sort", required_argument, NULL, 's'},
	        {"invert", no_argument, NULL, 'i'},
	        {"linger", required_argument, NULL, OPT_LINGER},
	        {"clean", no_argument, NULL, OPT_CLEAN},
	        {"shm-dir", required_argument, NULL, OPT_SHM_DIR},
	        {"group", required_argument, NULL, OPT_GROUP},
	        {"listen", required_argument, NULL, OPT_LISTEN},
	        {"textfile", required_argument, NULL, OPT_TEXTFILE},
	        {"per-process", no_argument, NULL, OPT_PER_PROCESS},
	        {"per-thread", no_argument, NULL, OPT_PER_THREAD},
	        {"http-timeout", required_argument, NULL, OPT_HTTP_TIMEOUT},
	        {"all-users", no_argument, NULL, OPT_ALL_USERS},
	        {"children", no_argument, NULL, OPT_CHILDREN},
	        {"user", required_argument, NULL, OPT_USER},
	        {"comm", required_argument, NULL, OPT_COMM},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	int c, li = -1;

	defaults(o);
	while ((c = getopt_long(argc, argv, "bd:n:p:af:s:ih", longs, &li)) != -1) {
		if (c == 'h') {
			top_opts_usage(stdout);
			return 1;
		}
		if (c == '?' || apply(o, c, optarg)) {
			if (c != '?' && c >= 256 && li >= 0)
				fprintf(stderr, "apiprof-top: bad value for --%s: %s\n",
				        longs[li].name, optarg ? optarg : "");
			else if (c != '?')
				fprintf(stderr, "apiprof-top: bad value for -%c: %s\n", c,
				        optarg ? optarg : "");
			top_opts_usage(stderr);
			return -1;
		}
		li = -1;
	}
	if (optind < argc) {
		fprintf(stderr, "apiprof-top: unexpected argument %s\n", argv[optind]);
		return -1;
	}
	if (o->children && !o->npids) {
		fprintf(stderr,
		        "apiprof-top: --children follows the children of -p PID: give -p\n");
		return -1;
	}
	if ((o->per_process || o->per_thread) && !o->listen && !o->textfile) {
		fprintf(stderr, "apiprof-top: --per-process and --per-thread need --listen or "
		                "--textfile\n");
		return -1;
	}
	return 0;
}
