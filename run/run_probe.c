/* SPDX-License-Identifier: MIT */
/*
 * run_probe.c - did the profiler load?  Asked before the exec that cannot
 * be taken back.
 *
 * run_preload_check() looks at each file the launcher preloads, but only
 * ld.so knows whether it will load: a shim whose NEEDED library is gone, a
 * damaged file, an audit module it refuses.  Then it prints a message and
 * the program runs unprofiled (or not at all), while the launcher would
 * have exited as if all were well.  So the launcher first runs itself,
 * with the program's environment, in a hidden probe mode: ld.so loads the
 * same libraries into it, and the probe checks that each of the
 * launcher's own LD_PRELOAD elements is in its link map (and, in dynamic
 * mode, that the audit module answers).  What ld.so said goes to a pipe;
 * its first line is the reason given to the user.
 *
 * The probe is one posix_spawn of the launcher: no output file, no
 * shared-memory segment and no flusher thread are made in it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"

#define PROBE_MISSING 1 /* the probe ran: something is not loaded */
#define PROBE_NAME    "apiprof-run"

extern char **environ;

/* --- the probe itself, in the launched copy ----------------------------- */

/* dlopen with RTLD_NOLOAD finds an object by name or by file identity and
 * never loads one. */
static int is_loaded(const char *path)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);

	if (h != NULL)
		dlclose(h);
	return h != NULL;
}

/* The dynamic profiler's link symbol: answered by the audit module when it
 * is active, else by libapiprof-dyn.so's own stub, which returns NULL. */
static int audit_active(void)
{
	void *p = dlsym(RTLD_DEFAULT, "apiprof_dyn_link");
	void *(*fn)(void);

	if (p == NULL)
		return 0;
	memcpy(&fn, &p, sizeof(fn));
	return fn() != NULL;
}

int run_probe_main(int argc, char **argv)
{
	const char *pl = getenv("LD_PRELOAD");
	int n = argc > 2 ? atoi(argv[2]) : 0;

	for (int i = 0; i < n && pl != NULL && *pl; i++) {
		char elem[RUN_PATH_MAX];
		size_t len = strcspn(pl, " :");

		if (len > 0 && len < sizeof(elem)) {
			memcpy(elem, pl, len);
			elem[len] = '\0';
			if (!is_loaded(elem)) {
				fprintf(stderr, "%s is not loaded\n", elem);
				return PROBE_MISSING;
			}
		}
		pl += len + (pl[len] != '\0');
	}
	if (argc > 3 && strcmp(argv[3], "audit") == 0 && !audit_active()) {
		fprintf(stderr, "the audit module is not active\n");
		return PROBE_MISSING;
	}
	return 0;
}

/* --- the launcher's side ------------------------------------------------- */

static int is_var(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return strncmp(entry, name, n) == 0 && entry[n] == '=';
}

/* The program's environment, less what would leave a trace (an output
 * file, a summary, a segment, a thread), and without the specs of dynamic
 * mode: loading is what is probed, and reading them again (libffi closures
 * for every function) made 40 ms of the probe's 42 with the sqlite3 spec.
 * The program reads them itself and says what is wrong.  NULL when out of
 * memory. */
static char **probe_env(void)
{
	static const char *const drop[] = {"APIPROF_OUTPUT", "APIPROF_SUMMARY", "APIPROF_SHM",
	                                   "APIPROF_INTERVAL_MS", "APIPROF_SPEC"};
	size_t n = 0, k = 0;

	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (env == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = 0;

		while (d < sizeof(drop) / sizeof(drop[0]) && !is_var(environ[i], drop[d]))
			d++;
		if (d == sizeof(drop) / sizeof(drop[0]))
			env[k++] = environ[i];
	}
	env[k++] = "APIPROF_SHM=0";
	env[k++] = "APIPROF_INTERVAL_MS=0";
	env[k++] = "APIPROF_SPEC=";
	return env;
}

/* posix_spawn: no copy of the launcher's page tables.  -1 when the probe
 * could not be started (then nothing is checked). */
static pid_t spawn_probe(int fd, const struct run_opts *o)
{
	char count[16];
	char *argv[] = {PROBE_NAME, RUN_PROBE_ARG, count, o->dynamic ? "audit" : "-", NULL};
	char **env = probe_env();
	posix_spawn_file_actions_t fa;
	pid_t pid = -1;

	snprintf(count, sizeof(count), "%d", o->dynamic ? 2 : 1 + o->nspecs);
	if (env == NULL || posix_spawn_file_actions_init(&fa) != 0) {
		free(env);
		return -1;
	}
	if (posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO) != 0 ||
	    posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	return pid;
}

/* Reads the probe's output to the end; keeps the first line. */
static void read_first_line(int fd, char *line, size_t cap)
{
	size_t len = 0;
	char buf[512];
	ssize_t n;

	line[0] = '\0';
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (len + 1 < cap) {
			size_t take = (size_t)n < cap - 1 - len ? (size_t)n : cap - 1 - len;

			memcpy(line + len, buf, take);
			len += take;
			line[len] = '\0';
		}
	}
	line[strcspn(line, "\n")] = '\0';
}

/* ld.so names the failing program ("apiprof-run: error while loading
 * shared libraries: ..."): that is the probe, not the user's program. */
static const char *reason(const char *line, int status, char *buf, size_t cap)
{
	if (strncmp(line, PROBE_NAME ": ", sizeof(PROBE_NAME ": ") - 1) == 0)
		return line + sizeof(PROBE_NAME ": ") - 1;
	if (line[0] != '\0')
		return line;
	if (WIFSIGNALED(status))
		snprintf(buf, cap, "loading it killed the check with signal %d (%s)",
		         WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, cap, "the check exited with status %d", WEXITSTATUS(status));
	return buf;
}

static int wait_child(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return 0;
}

int run_probe(const struct run_opts *o)
{
	char line[1024], buf[128];
	int fds[2], status;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* A sanitized launcher refuses to start with a library preloaded
	 * ahead of its sanitizer runtime: there is nothing to learn. */
	(void)o;
	return 0;
#endif
	if (pipe2(fds, O_CLOEXEC) != 0)
		return 0; /* cannot ask: the exec will tell */
	/* With stdout or stderr closed, the write end could be fd 1 or 2,
	 * which the dup2 onto itself would leave close-on-exec. */
	if (fds[1] <= STDERR_FILENO) {
		int w = fcntl(fds[1], F_DUPFD_CLOEXEC, STDERR_FILENO + 1);

		close(fds[1]);
		fds[1] = w;
	}
	pid_t pid = fds[1] < 0 ? -1 : spawn_probe(fds[1], o);
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return 0;
	}
	read_first_line(fds[0], line, sizeof(line));
	close(fds[0]);
	if (wait_child(pid, &status) != 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return 0;
	fprintf(stderr, "apiprof-run: the profiler did not load: %s\n",
	        reason(line, status, buf, sizeof(buf)));
	return -1;
}
