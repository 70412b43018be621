/* SPDX-License-Identifier: MIT */
/*
 * apiprof-run - start a program under one or more apiprof shims.
 *
 *   apiprof-run [--dynamic] -s SPEC[,SPEC...] [-o OUT.json] [--summary] [--strict] -- CMD [ARGS...]
 *
 * SPEC is a spec file (built into a shim on first use and cached by the
 * hash of its contents) or the name of a shipped api (zlib, malloc, ...).
 * The launcher puts the shims in front of LD_PRELOAD, sets APIPROF_OUTPUT
 * from -o, and execs CMD: the program keeps the launcher's pid, exit status
 * and stdio.  With --dynamic nothing is compiled: the prebuilt libffi
 * profiler reads the specs at run time (run_dyn.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_mode.h"
#include "run.h"
#include "run_attach.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: apiprof-run [--dynamic] -s SPEC[,SPEC...] [-o OUT.json] [--summary]"
	        " [--strict] [--mode MODE] [--] CMD [ARGS...]\n"
	        "       apiprof-run -s SPEC[,SPEC...] [-o OUT.json] [--mode MODE] -p PID\n"
	        "       apiprof-run -p PID --detach\n"
	        "  -s, --spec SPEC   a spec file, or the name of a shipped api (%s)\n"
	        "      --dynamic     libffi mode: no compiler or headers needed\n"
	        "  -o, --output F    write per-thread totals as JSON at exit (%%p = pid)\n"
	        "      --summary     print a per-thread table on stderr at exit\n"
	        "      --strict      refuse to run a program that cannot be profiled\n"
	        "      --mode MODE   off, count, sampled[:N] or full at start, API=MODE items\n"
	        "                    after a comma (APIPROF_MODE)\n"
	        "  -p, --pid PID     attach to a running process (ptrace), until Ctrl-C\n"
	        "      --detach      with -p: detach from it\n"
	        "  -q, --quiet       no messages from the launcher, nor hints and notes\n"
	        "                    from the program's processes\n",
	        run_shipped_names());
}

/* --mode: checked here with the runtime's own parser, so that a bad word
 * stops the launcher rather than falls back to full in the program. */
static int parse_mode(struct run_opts *o, const char *s)
{
	struct apiprof_mode_list l;
	const char *why;

	if (apiprof_mode_list_parse(s, &l, &why) != 0) {
		fprintf(stderr, "apiprof-run: --mode %s: %s\n", s, why);
		return -1;
	}
	o->mode = s;
	return 0;
}

static int parse_pid(struct run_opts *o, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v <= 0 || v > INT32_MAX) {
		fprintf(stderr, "apiprof-run: -p %s: not a process id\n", s);
		return -1;
	}
	o->pid = (int)v;
	return 0;
}

/* -p PID: no command; specs to attach with, none to detach. */
static int attach_args(int argc, struct run_opts *o)
{
	const char *why = o->pid == 0      ? "--detach needs -p PID"
	                  : optind < argc  ? "-p PID takes no command"
	                  : o->detach      ? (o->nspecs ? "--detach takes no spec" : NULL)
	                  : o->nspecs == 0 ? "no spec given (-s SPEC)"
	                                   : NULL;

	if (why != NULL) {
		fprintf(stderr, "apiprof-run: %s\n", why);
		usage(stderr);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
	        {"spec", required_argument, NULL, 's'},
	        {"output", required_argument, NULL, 'o'},
	        {"summary", no_argument, NULL, 'S'},
	        {"strict", no_argument, NULL, 'T'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"dynamic", no_argument, NULL, 'D'},
	        {"mode", required_argument, NULL, 'M'},
	        {"pid", required_argument, NULL, 'p'},
	        {"detach", no_argument, NULL, 'X'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+s:o:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (run_opts_add_specs(o, optarg) != 0)
				return -1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'S':
			o->summary = 1;
			break;
		case 'T':
			o->strict = 1;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'D':
			o->dynamic = 1;
			break;
		case 'M':
			if (parse_mode(o, optarg) != 0)
				return -1;
			break;
		case 'p':
			if (parse_pid(o, optarg) != 0)
				return -1;
			break;
		case 'X':
			o->detach = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (o->pid != 0 || o->detach)
		return attach_args(argc, o);
	if (optind >= argc || o->nspecs == 0) {
		fprintf(stderr, "apiprof-run: %s\n",
		        o->nspecs == 0 ? "no spec given (-s SPEC)" : "no command given");
		usage(stderr);
		return -1;
	}
	o->argv = argv + optind;
	return 0;
}

/* Who speaks for the run: the process exec'd here keeps this pid, and its
 * children, which inherit the variable, say nothing of what is the same in
 * all of them (a spec's library never loaded, dynamic mode's notes); with
 * -q, it says only what is wrong (apiprof_say, preload/life/apiprof_env.c). */
static void set_hints_env(const struct run_opts *o)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	setenv("APIPROF_HINTS_PID", pid, 1);
	if (o->quiet)
		setenv("APIPROF_QUIET", "1", 1);
}

/* The profiler's environment: generated shims, or the dynamic mode's. */
static int set_profiler_env(const struct run_opts *o)
{
	static struct run_dyn_env dyn;
	static char preload[RUN_PATH_MAX * 8];

	if (o->can_profile)
		set_hints_env(o);

	if (!o->dynamic) {
		if (run_build_preload(o, preload, sizeof(preload)) != 0)
			return -1;
		if (o->can_profile)
			setenv("LD_PRELOAD", preload, 1);
		return 0;
	}
	if (run_build_dynamic(o, &dyn) != 0)
		return -1;
	if (o->can_profile) {
		setenv("LD_PRELOAD", dyn.preload, 1);
		setenv("LD_AUDIT", dyn.audit, 1);
		setenv("APIPROF_SPEC", dyn.specs, 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct run_opts o = {0};

	if (argc > 1 && strcmp(argv[1], RUN_PROBE_ARG) == 0)
		return run_probe_main(argc, argv);
	if (parse_args(argc, argv, &o) != 0)
		return 2;
	if (o.pid != 0)
		return run_attach_main(&o);
	/* 125 for the launcher's own failures, as env(1) and timeout(1) do, so
	 * they cannot be mistaken for the program's exit status. */
	if (run_check_target(&o) != 0)
		return 125;
	if (set_profiler_env(&o) != 0)
		return 125;
	if (o.can_profile) {
		if (run_output_env(&o) != 0)
			return 125;
		if (o.summary)
			setenv("APIPROF_SUMMARY", "1", 1);
		if (o.mode != NULL)
			setenv("APIPROF_MODE", o.mode, 1);
		if (run_probe(&o) != 0)
			return 125;
	}
	execvp(o.argv[0], o.argv);
	fprintf(stderr, "apiprof-run: cannot run %s: %s\n", o.argv[0], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
