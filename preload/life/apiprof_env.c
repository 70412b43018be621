/* SPDX-License-Identifier: MIT */
/* apiprof_env.c - the runtime's settings, all from the environment. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_file.h"
#include "apiprof_internal.h"

struct apiprof_config apiprof_cfg;

/* The program's stderr as it was when the runtime started.  A program may
 * close fd 2 and open a data file there, or close ours and reuse its
 * number: every write first checks that the descriptor still is the file
 * that was fd 2 at start-up.  Otherwise it goes to fd 2 only when that is
 * plainly a log (fd2_is_log), and nowhere else.
 *
 * With APIPROF_SUMMARY, which is written at exit, after coreutils'
 * close_stdout has closed fd 2, a private duplicate is kept: close-on-exec,
 * at the lowest free descriptor from ERR_FD_MIN up (fds 0-99 stay as the
 * program expects them).  Only then: the duplicate keeps the file open,
 * and a daemon that detaches by putting /dev/null on fds 0-2 would keep a
 * pipe to whoever started it open until it exits. */
#define ERR_FD_MIN 100

enum { ERR_NONE, ERR_MAKING, ERR_MADE };
static int err_state;
static int err_fd = -1; /* the duplicate, or fd 2, or -1: fd 2 was closed */
static dev_t err_dev;
static ino_t err_ino;

static bool env_bool(const char *name, bool def);

void apiprof_err_init(void)
{
	int st = ERR_NONE;
	struct stat sb;

	if (!apiprof_cas_acq_rel(&err_state, &st, ERR_MAKING))
		return;
	if (fstat(STDERR_FILENO, &sb) == 0) {
		err_dev = sb.st_dev;
		err_ino = sb.st_ino;
		err_fd = STDERR_FILENO;
		if (env_bool("APIPROF_SUMMARY", false)) {
			int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, ERR_FD_MIN);

			err_fd = fd >= 0 ? fd : STDERR_FILENO; /* RLIMIT_NOFILE <= 100 */
		}
	}
	apiprof_store_release(&err_state, ERR_MADE);
}

static bool is_err_file(int fd)
{
	struct stat sb;

	return fd >= 0 && fstat(fd, &sb) == 0 && sb.st_dev == err_dev && sb.st_ino == err_ino;
}

/* Whether fd 2 is a log the program put there in place of its stderr: a
 * terminal, a pipe or FIFO, or a regular file opened write-only for
 * appending (nginx puts its error log on fd 2 so).  Not a socket (a
 * connection) and not a file opened otherwise (data). */
static bool fd2_is_log(void)
{
	int saved = errno, fl = fcntl(STDERR_FILENO, F_GETFL);
	struct stat sb;
	bool is_log = false;

	if (fl >= 0 && fstat(STDERR_FILENO, &sb) == 0) {
		if (S_ISREG(sb.st_mode))
			is_log = (fl & O_ACCMODE) == O_WRONLY && (fl & O_APPEND);
		else
			is_log = S_ISFIFO(sb.st_mode) ||
			      (S_ISCHR(sb.st_mode) && isatty(STDERR_FILENO));
	}
	errno = saved;
	return is_log;
}

/* The stderr of start-up; when the program has replaced it (dup2 of its
 * own log onto fd 2, as servers do after reading their configuration),
 * the new fd 2 if it is a log: a warning that a worker's output was lost
 * must not be lost too.  Nothing when fd 2 was closed at start-up. */
static int err_target(void)
{
	apiprof_err_init();
	if (apiprof_load_acquire(&err_state) != ERR_MADE)
		return STDERR_FILENO; /* another thread is making it, this instant */
	if (err_fd < 0)
		return -1;
	if (is_err_file(err_fd))
		return err_fd;
	return is_err_file(STDERR_FILENO) || fd2_is_log() ? STDERR_FILENO : -1;
}

int apiprof_err_write(const void *buf, size_t len)
{
	int fd = err_target();

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	return apiprof_file_write(fd, buf, len);
}

/* One line on the program's stderr, written with a single write(2) so that
 * lines of several processes do not interleave; never allocates.  The
 * buffer is static, for a small stack; a second warning at the same time
 * (another thread, a signal handler) makes do with a short one. */
void apiprof_warn(const char *fmt, ...)
{
	static char big[APIPROF_FILE_PATH_MAX + 256];
	static int big_busy;
	char small[128];
	int saved = errno, zero = 0;
	uint64_t busy = apiprof_busy_enter(); /* our write(2) is not the program's */
	bool own = apiprof_cas_acquire(&big_busy, &zero, 1);
	char *buf = own ? big : small;
	size_t cap = own ? sizeof(big) : sizeof(small);
	va_list ap;
	int n;

	memcpy(buf, "apiprof: ", 9);
	va_start(ap, fmt);
	n = vsnprintf(buf + 9, cap - 10, fmt, ap);
	va_end(ap);
	n = n < 0 ? 9 : n + 9 > (int)cap - 2 ? (int)cap - 2 : n + 9;
	buf[n++] = '\n';
	apiprof_err_write(buf, (size_t)n); /* when stderr is gone, nothing to do */
	if (own)
		apiprof_store_release(&big_busy, 0);
	apiprof_busy_leave(busy);
	errno = saved;
}

/* Secure-execution mode (AT_SECURE): a setuid or setgid program, or one
 * that gains file capabilities, run by a user who may not be the owner,
 * with the runtime in /etc/ld.so.preload.  Then the environment is the
 * invoking user's, not to be trusted: every setting reads as unset
 * (secure_getenv), so no file is named by it, and nothing is written but
 * warnings: no output file, no summary, no shared-memory segment. */
static bool env_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

/* Whether any APIPROF_* variable is set: the user asked for something. */
static bool env_any_set(void)
{
	for (char **e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, "APIPROF_", 8) == 0)
			return true;
	return false;
}

/* Parses an unsigned decimal setting; a malformed or out-of-range value is
 * reported once and the default kept, so a typo never stops the program. */
static uint32_t env_u32(const char *name, uint32_t def, uint32_t lo, uint32_t hi)
{
	const char *s = secure_getenv(name);
	char *end;

	if (s == NULL || *s == '\0')
		return def;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		apiprof_warn("%s=%s is not a number in [%u, %u]; using %u", name, s, lo, hi, def);
		return def;
	}
	return (uint32_t)v;
}

static bool env_bool(const char *name, bool def)
{
	const char *s = secure_getenv(name);

	if (s == NULL || *s == '\0')
		return def;
	return !(strcmp(s, "0") == 0 || strcmp(s, "no") == 0 || strcmp(s, "off") == 0);
}

static int env_clock(void)
{
	const char *s = secure_getenv("APIPROF_CLOCK");

	if (s == NULL || *s == '\0' || strcmp(s, "auto") == 0)
		return 0;
	if (strcmp(s, "tsc") == 0)
		return APIPROF_CLOCK_TSC;
	if (strcmp(s, "monotonic") == 0)
		return APIPROF_CLOCK_MONOTONIC;
	apiprof_warn("APIPROF_CLOCK=%s is not tsc, monotonic or auto; using auto", s);
	return 0;
}

/* Rounds a record count down to a power of two and returns its log2. */
static uint32_t log2_floor(uint32_t v)
{
	return 31u - (uint32_t)__builtin_clz(v | 1u);
}

void apiprof_env_load(struct apiprof_config *cfg)
{
	const char *out = secure_getenv("APIPROF_OUTPUT");
	bool secure = env_secure();

	apiprof_err_init();
	if (secure && env_any_set())
		apiprof_warn("secure-execution mode (setuid, setgid or file capabilities): "
		             "every APIPROF_* setting is ignored and no profile is written");
	apiprof_file_init();
	cfg->interval_ms = env_u32("APIPROF_INTERVAL_MS", 200, 0, 1000);
	cfg->keyframe = env_u32("APIPROF_KEYFRAME", 10, 1, 1000000);
	cfg->ring_order = log2_floor(env_u32("APIPROF_RING_RECORDS", 4096, 2,
	                                              1u << APIPROF_RING_ORDER_MAX));
	/* a parent in a call site key is 1 + a function's index (APIPROF_SITES);
	 * below APIPROF_FUNC_CAP_MAX, what readers accept (apiprof_layout.h) */
	cfg->func_cap = env_u32("APIPROF_MAX_FUNCS", 2048, 1, APIPROF_PARENT_MAX);
	cfg->keep_exited = env_u32("APIPROF_KEEP_EXITED", 256, 0, 1u << 20);
	cfg->clock = env_clock();
	cfg->sample = env_u32("APIPROF_SAMPLE", 0, 0, 1u << 30);
	cfg->node_cap = env_u32("APIPROF_MAX_NODES", 2048, 4, 4096);
	cfg->summary = env_bool("APIPROF_SUMMARY", false);
	cfg->shm = !secure && env_bool("APIPROF_SHM", true);
	cfg->keep_shm = env_bool("APIPROF_KEEP_SHM", false);
	cfg->quiet = env_bool("APIPROF_QUIET", false);
	cfg->hints_pid = env_u32("APIPROF_HINTS_PID", 0, 1, INT32_MAX);
	cfg->output[0] = '\0';
	if (out != NULL && strlen(out) < sizeof(cfg->output))
		memcpy(cfg->output, out, strlen(out) + 1);
	else if (out != NULL)
		apiprof_warn("APIPROF_OUTPUT is longer than %zu bytes; ignored",
		             sizeof(cfg->output) - 1);
}

/* What this process says about the whole run: the hints and notes that
 * would be the same in every process of it (a spec's library never loaded,
 * dynamic mode's functions skipped).  apiprof-run names the process it
 * starts in APIPROF_HINTS_PID, which its children inherit: that process
 * speaks for the run, the others say nothing of it, and with APIPROF_QUIET
 * (apiprof-run -q) it says only what is wrong.  Without apiprof-run, each
 * process speaks for itself.  Read from the settings of the start, so a
 * program that changes its environment changes nothing here. */
int apiprof_say(void)
{
	if (!apiprof_ready())
		return APIPROF_SAY_ERRORS;
	if (apiprof_cfg.hints_pid != 0 && apiprof_cfg.hints_pid != (uint32_t)getpid())
		return APIPROF_SAY_NONE;
	return apiprof_cfg.quiet ? APIPROF_SAY_ERRORS : APIPROF_SAY_ALL;
}
