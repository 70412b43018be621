/* SPDX-License-Identifier: MIT */
/*
 * run_attach.c - apiprof-run -p PID: attach to a running process, and
 * detach (issue 38).
 *
 * Every thread is stopped (run_stop.c); one that may call the loader is
 * picked (run_pick.c) and made to call, in the process (run_inject.c):
 * __errno_location (its errno is put back at the end), dlopen of the
 * runtime, dlsym of its apiprof_attach, and apiprof_attach with what
 * apiprof-run would have put in the environment (the runtime loads the
 * shims and rewrites the slots: preload/life/apiprof_attach.c).  Then
 * every register is put back and every thread let go.  The runtime and
 * the shims are named as the process sees its files (/proc/PID/root).
 *
 * Attached, apiprof-run stays in the foreground, as strace -p does, until
 * Ctrl-C (or SIGTERM, SIGHUP): then it detaches the same way, calling
 * apiprof_detach.  The process's end ends it too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_rsym.h"
#include "gen_paths.h"
#include "run_attach.h"

#define WHY_MAX    512
#define CONFIG_MAX (RUN_PATH_MAX * (RUN_MAX_SPECS + 2))

/* One attach or detach: the process, its loader's entries, the thread. */
struct sess {
	pid_t pid;
	uint64_t dlopen_at, dlsym_at, dlerror_at, dlclose_at, errno_fn;
	uint64_t errno_at;
	int errno_val;
	int nthreads; /* stopped */
	struct run_inject j;
	char why[WHY_MAX];
};

static struct run_stopped stopped;
static struct sess sess;

static int rcall(struct sess *s, uint64_t fn, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t *ret)
{
	const uint64_t a[3] = {a0, a1, a2};

	return run_inject_call(&s->j, fn, a, ret, s->why, sizeof(s->why));
}

static int find_entry(struct sess *s, const struct apiprof_rsym_obj *o, const char *name,
                      uint64_t *at)
{
	struct apiprof_rsym_err e;

	if (apiprof_rsym_lookup(o, name, at, &e) != 0)
		return run_whyf(s->why, sizeof(s->why), "%s", e.text);
	return 0;
}

/* The loader's entries in the process's libc (glibc 2.34 and later). */
static int find_entries(struct sess *s)
{
	struct apiprof_rsym_obj o;
	struct apiprof_rsym_err e;

	if (apiprof_rsym_find_obj(s->pid, "libc.so", &o, &e) != 0)
		return run_whyf(s->why, sizeof(s->why),
		                "%s (a static program cannot be attached to)", e.text);
	if (find_entry(s, &o, "dlopen", &s->dlopen_at) != 0 ||
	    find_entry(s, &o, "dlsym", &s->dlsym_at) != 0 ||
	    find_entry(s, &o, "dlerror", &s->dlerror_at) != 0 ||
	    find_entry(s, &o, "dlclose", &s->dlclose_at) != 0 ||
	    find_entry(s, &o, "__errno_location", &s->errno_fn) != 0)
		return -1;
	return 0;
}

/* A string of the process (at most cap - 1 bytes of it). */
static void read_string(pid_t pid, uint64_t at, char *out, size_t cap)
{
	size_t n = cap - 1;

	out[0] = '\0';
	while (n > 0 && run_inject_read(pid, at, out, n) != 0)
		n /= 2;
	out[n] = '\0';
}

/* dlopen(path, flags) in the process: the handle, or 0 with why. */
static uint64_t remote_dlopen(struct sess *s, const char *path, int flags)
{
	uint64_t p = run_inject_push(&s->j, path, strlen(path) + 1), h = 0, e = 0;
	char text[256];

	if (p == 0 || rcall(s, s->dlopen_at, p, (uint64_t)flags, 0, &h) != 0)
		return 0;
	if (h == 0 && rcall(s, s->dlerror_at, 0, 0, 0, &e) == 0) {
		read_string(s->pid, e, text, sizeof(text));
		run_whyf(s->why, sizeof(s->why), "%s", e ? text : "dlopen failed");
	}
	return h;
}

static uint64_t remote_dlsym(struct sess *s, uint64_t h, const char *name)
{
	uint64_t p = run_inject_push(&s->j, name, strlen(name) + 1), f = 0;

	if (p == 0 || rcall(s, s->dlsym_at, h, p, 0, &f) != 0)
		return 0;
	if (f == 0)
		run_whyf(s->why, sizeof(s->why),
		         "the runtime in process %d has no %s (an older one?)", (int)s->pid, name);
	return f;
}

/* fn(config, why, cap) of the runtime (config 0: fn(why, cap)), its why
 * read back: its return value. */
static int remote_entry(struct sess *s, uint64_t fn, uint64_t config)
{
	char zero[WHY_MAX] = {0};
	uint64_t w = run_inject_push(&s->j, zero, sizeof(zero)), r = 0;
	int rc = w == 0   ? -1
	         : config ? rcall(s, fn, config, w, sizeof(zero), &r)
	                  : rcall(s, fn, w, sizeof(zero), 0, &r);

	if (rc != 0)
		return -1;
	if ((int)r < 0)
		read_string(s->pid, w, s->why, sizeof(s->why));
	return (int)r;
}

struct work {
	int (*fn)(struct sess *s, const void *arg);
	const void *arg;
};

/* The work, on a picked thread of the stopped process, whose errno,
 * registers and signal mask are put back after, whatever happened. */
static int on_thread(struct sess *s, struct work w)
{
	int i = run_pick_thread(&stopped, s->why, sizeof(s->why));

	if (i == RUN_PICK_LATER)
		return i;
	if (i < 0 || run_inject_begin(&s->j, stopped.t[i].tid, s->why, sizeof(s->why)) != 0)
		return -1;
	int rc = rcall(s, s->errno_fn, 0, 0, 0, &s->errno_at);
	if (rc == 0)
		rc = run_inject_read(s->pid, s->errno_at, &s->errno_val, sizeof(int));
	if (rc == 0) {
		rc = w.fn(s, w.arg);
		run_inject_write(s->pid, s->errno_at, &s->errno_val, sizeof(int));
	}
	if (run_inject_end(&s->j) != 0 && rc >= 0)
		rc = run_whyf(s->why, sizeof(s->why), "cannot restore thread %d", (int)s->j.tid);
	return rc;
}

/* Stops the process, does the work, lets it go: the work's result. */
static int in_process_once(struct sess *s, struct work w, double *ms)
{
	if (run_stop_all(s->pid, &stopped, s->why, sizeof(s->why)) != 0)
		return -1;
	int rc = find_entries(s) == 0 ? on_thread(s, w) : -1;
	*ms = run_stopped_ms(&stopped);
	s->nthreads = stopped.n;
	run_let_go(&stopped);
	return rc;
}

/* A dlopen in progress in the process (a thread holds the loader's lock):
 * it is let go, and asked again a few times, RETRY_MS apart and more. */
#define RETRIES  5
#define RETRY_MS 20

static int in_process(struct sess *s, struct work w, double *ms)
{
	int rc = in_process_once(s, w, ms);

	for (int k = 1; rc == RUN_PICK_LATER && k <= RETRIES; k++) {
		struct timespec d = {0, (long)k * RETRY_MS * 1000000L};

		nanosleep(&d, NULL);
		rc = in_process_once(s, w, ms);
	}
	if (rc == RUN_PICK_LATER)
		strncat(s->why, "; asked 6 times, try again later",
		        sizeof(s->why) - strlen(s->why) - 1);
	return rc < 0 ? -1 : rc;
}

/* path is the file the process sees at that path (its mount namespace). */
static int visible(pid_t pid, const char *path, char *why, size_t cap)
{
	char theirs[RUN_PATH_MAX + 64];
	struct stat a, b;

	snprintf(theirs, sizeof(theirs), "/proc/%d/root%s", (int)pid, path);
	if (stat(path, &a) != 0 || stat(theirs, &b) != 0 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino)
		return run_whyf(
		        why, cap,
		        "process %d does not see %s at that path (another mount namespace?)",
		        (int)pid, path);
	return 0;
}

/* The runtime and every shim of the config are visible to the process. */
static int visible_all(struct sess *s, const char *config)
{
	char line[RUN_PATH_MAX + 16];

	if (visible(s->pid, gen_path(GEN_PART_RUNTIME), s->why, sizeof(s->why)) != 0)
		return -1;
	for (const char *p = config; *p != '\0';) {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (strncmp(line, "APIPROF_SHIM=", 13) == 0 &&
		    visible(s->pid, line + 13, s->why, sizeof(s->why)) != 0)
			return -1;
		p += n + (p[n] != '\0');
	}
	return 0;
}

static int do_attach(struct sess *s, const void *arg)
{
	const char *config = arg;

	if (visible_all(s, config) != 0)
		return -1;
	uint64_t h = remote_dlopen(s, gen_path(GEN_PART_RUNTIME), RTLD_NOW);
	if (h == 0)
		return -1;
	uint64_t fn = remote_dlsym(s, h, "apiprof_attach");
	uint64_t c = fn ? run_inject_push(&s->j, config, strlen(config) + 1) : 0;
	if (c == 0)
		return -1;
	return remote_entry(s, fn, c);
}

static int do_detach(struct sess *s, const void *arg)
{
	uint64_t ignored;

	(void)arg;
	uint64_t h = remote_dlopen(s, gen_path(GEN_PART_RUNTIME), RTLD_NOW | RTLD_NOLOAD);
	if (h == 0)
		return run_whyf(s->why, sizeof(s->why), "apiprof is not in process %d",
		                (int)s->pid);
	uint64_t fn = remote_dlsym(s, h, "apiprof_detach");
	int rc = fn ? remote_entry(s, fn, 0) : -1;
	rcall(s, s->dlclose_at, h, 0, 0, &ignored); /* the RTLD_NOLOAD reference */
	return rc;
}

/* The config apiprof_attach reads: the shims, output, mode. */
static int make_config(const struct run_opts *o, char *config, size_t cap)
{
	static char preload[RUN_PATH_MAX * 8];
	size_t n = 0;

	unsetenv("LD_PRELOAD");
	if (run_build_preload(o, preload, sizeof(preload)) != 0 || run_output_env(o) != 0)
		return -1;
	for (char *save = NULL, *p = strtok_r(preload, ":", &save); p != NULL;
	     p = strtok_r(NULL, ":", &save)) {
		if (strcmp(p, gen_path(GEN_PART_RUNTIME)) != 0)
			n += (size_t)snprintf(config + n, cap - n, "APIPROF_SHIM=%s\n", p);
	}
	const char *out = getenv("APIPROF_OUTPUT");
	if (out != NULL && *out)
		n += (size_t)snprintf(config + n, cap - n, "APIPROF_OUTPUT=%s\n", out);
	if (o->mode != NULL)
		n += (size_t)snprintf(config + n, cap - n, "APIPROF_MODE=%s\n", o->mode);
	if (o->quiet)
		n += (size_t)snprintf(config + n, cap - n, "APIPROF_QUIET=1\n");
	return n < cap ? 0 : -1;
}

/* Detaches; already_ok: a process detached meanwhile (apiprof-run -p PID
 * --detach from elsewhere) is what was asked (the foreground's Ctrl-C). */
static int detach(pid_t pid, int quiet, bool already_ok)
{
	double ms = 0;

	sess.pid = pid;
	if (in_process(&sess, (struct work){do_detach, NULL}, &ms) != 0) {
		if (already_ok && strcmp(sess.why, "detach: not attached") == 0) {
			if (!quiet)
				fprintf(stderr, "apiprof-run: %d was detached already\n", (int)pid);
			return 0;
		}
		fprintf(stderr, "apiprof-run: -p %d: %s\n", (int)pid, sess.why);
		return 1;
	}
	if (!quiet)
		fprintf(stderr, "apiprof-run: detached from %d (stopped %.1f ms)\n", (int)pid, ms);
	return 0;
}

/* Attached: waits for Ctrl-C (or SIGTERM, SIGHUP), then detaches, or for
 * the process's end. */
static int stay(const struct run_opts *o)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC), pfd = (int)syscall(SYS_pidfd_open, o->pid, 0);
	struct pollfd p[2] = {{sfd, POLLIN, 0}, {pfd, POLLIN, 0}};

	while (poll(p, pfd >= 0 ? 2 : 1, -1) < 0 && errno == EINTR)
		;
	if (p[1].revents & POLLIN) {
		if (!o->quiet)
			fprintf(stderr, "apiprof-run: process %d has ended\n", (int)o->pid);
		return 0;
	}
	return detach(o->pid, o->quiet, true);
}

int run_attach_main(const struct run_opts *o)
{
	static char config[CONFIG_MAX];
	sigset_t set;
	double ms = 0;

	if (o->detach)
		return detach(o->pid, o->quiet, false);
	if (o->dynamic) {
		fprintf(stderr, "apiprof-run: -p with --dynamic is not supported yet\n");
		return 125;
	}
	if (make_config(o, config, sizeof(config)) != 0)
		return 125;
	/* blocked before the attach: a Ctrl-C from now on detaches */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sess.pid = o->pid;
	int slots = in_process(&sess, (struct work){do_attach, config}, &ms);
	if (slots < 0) {
		fprintf(stderr, "apiprof-run: -p %d: %s\n", (int)o->pid, sess.why);
		return 125;
	}
	if (!o->quiet)
		fprintf(stderr,
		        "apiprof-run: attached to %d (%d slots, %d threads stopped %.1f ms);"
		        " Ctrl-C detaches\n",
		        (int)o->pid, slots, sess.nthreads, ms);
	return stay(o);
}
