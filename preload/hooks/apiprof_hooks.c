/* SPDX-License-Identifier: MIT */
/*
 * apiprof_hooks.c - the runtime's own interposers: the ends of a process
 * image that skip the destructors.
 *
 * exec*() replaces the image and _exit() skips atexit and destructors, so
 * without these the last interval's numbers and APIPROF_OUTPUT would be
 * lost.  They only take effect when libapiprof.so is itself preloaded,
 * ahead of libc (apiprof-run does that): as a mere dependency of a shim it
 * is loaded after libc, and libc's definitions win.
 *
 * Each hook finishes the image, then calls the real function, found with
 * dlsym(RTLD_NEXT).  A failed exec resumes profiling with errno intact.
 * glibc's execl* and execv* call its internal __execve directly, so every
 * public entry point is hooked, not just execve.
 *
 * quick_exit() runs the at_quick_exit handlers, then ends the process as
 * _exit does (glibc's internal call, which no hook sees).  It is not
 * hooked: a handler of the runtime's own, registered by its constructor,
 * finishes the image as exit() does, after the handlers the program
 * registered since, whose calls count; and whether or not the runtime is
 * preloaded ahead of libc.  The runtime is never unloaded (-z nodelete),
 * so the handler stays valid.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apiprof_internal.h"

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);

void *apiprof_hook_next(const char *name)
{
	uint64_t busy = apiprof_busy_enter();

	void *p = dlsym(RTLD_NEXT, name);
	apiprof_busy_leave(busy);
	return p;
}

/* A function pointer stored through a void pointer (ISO C has no cast
 * between the two). */
void apiprof_hook_store(void *slot, void *p)
{
	memcpy(slot, &p, sizeof(p));
}

static int exec_failed(uint64_t busy, int r)
{
	int saved = errno;

	apiprof_resume(busy);
	errno = saved;
	return r;
}

static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;
static exit_fn real__exit, real__Exit;

APIPROF_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn f = APIPROF_REAL(real_execve, "execve");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(path, argv, envp) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn f = APIPROF_REAL(real_execvpe, "execvpe");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(file, argv, envp) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn f = APIPROF_REAL(real_execv, "execv");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(path, argv) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn f = APIPROF_REAL(real_execvp, "execvp");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(file, argv) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = APIPROF_REAL(real_fexecve, "fexecve");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(fd, argv, envp) : (errno = ENOSYS, -1));
}

/* execl's arguments become an argv array.  A few fit in a small array on
 * the stack; more (there is no limit but the kernel's) go to memory from
 * mmap, which, unlike malloc, may be called where execl may (in a fork
 * child, in a signal handler) and which puts nothing on a small stack. */
#define SMALL_ARGV 16

/* The length of execl's argv: arg0, the rest, and the NULL. */
static size_t count_args(const char *arg0, va_list ap)
{
	size_t n = 1;

	for (const char *a = arg0; a != NULL; a = va_arg(ap, const char *))
		n++;
	return n;
}

static char **argv_get(char **small, size_t n)
{
	if (n <= SMALL_ARGV)
		return small;
	if (n > SIZE_MAX / sizeof(char *)) {
		errno = E2BIG;
		return NULL;
	}
	void *p = mmap(NULL, n * sizeof(char *), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void argv_put(char **argv, char **small, size_t n)
{
	int saved = errno;

	if (argv != small)
		munmap(argv, n * sizeof(char *));
	errno = saved;
}

/* Fills argv (n entries, the last the NULL); with envp != NULL also reads
 * execle's trailing environment. */
static void collect(const char *arg0, va_list *ap, char **argv, size_t n, char ***envp)
{
	argv[0] = (char *)arg0;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(*ap, char *);
	if (envp != NULL)
		*envp = va_arg(*ap, char **);
}

/* The argv of an execl* call (small, or mapped), n its length; NULL with
 * errno set when there is no memory for it. */
static char **execl_argv(const char *arg0, va_list *ap, char **small, size_t *n, char ***envp)
{
	va_list cp;

	va_copy(cp, *ap);
	*n = count_args(arg0, cp);
	va_end(cp);
	char **argv = argv_get(small, *n);
	if (argv != NULL)
		collect(arg0, ap, argv, *n, envp);
	return argv;
}

/* Which exec the l-form stands for: execl searches no PATH and keeps
 * environ, execlp searches PATH, execle takes the environment after the
 * argument list's NULL. */
enum execl_form { EXECL_PATH, EXECL_SEARCH, EXECL_ENV };

static int execl_run(enum execl_form form, const char *path, const char *arg, va_list *ap)
{
	char *small[SMALL_ARGV], **envp = NULL;
	size_t n;
	char **argv = execl_argv(arg, ap, small, &n, form == EXECL_ENV ? &envp : NULL);

	if (argv == NULL)
		return -1;
	int r = form == EXECL_SEARCH ? execvp(path, argv)
	        : form == EXECL_ENV  ? execve(path, argv, envp)
	                             : execv(path, argv);
	argv_put(argv, small, n);
	return r;
}

APIPROF_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	int r = execl_run(EXECL_PATH, path, arg, &ap);
	va_end(ap);
	return r;
}

APIPROF_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	int r = execl_run(EXECL_SEARCH, file, arg, &ap);
	va_end(ap);
	return r;
}

APIPROF_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;

	va_start(ap, arg);
	int r = execl_run(EXECL_ENV, path, arg, &ap);
	va_end(ap);
	return r;
}

APIPROF_EXPORT void _exit(int status)
{
	exit_fn f = APIPROF_REAL(real__exit, "_exit");

	apiprof_finish(APIPROF_END_EXIT);
	if (f != NULL)
		f(status);
	abort(); /* _exit cannot be missing from libc; never return */
}

APIPROF_EXPORT void _Exit(int status)
{
	exit_fn f = APIPROF_REAL(real__Exit, "_Exit");

	apiprof_finish(APIPROF_END_EXIT);
	if (f != NULL)
		f(status);
	abort();
}

static void quick_exit_finish(void)
{
	apiprof_finish(APIPROF_END_EXIT); /* the thread keeps the busy bit, as _exit's */
}

void apiprof_hooks_init(void)
{
	if (at_quick_exit(quick_exit_finish) != 0)
		apiprof_warn("cannot register a quick_exit handler: a program that ends by "
		             "quick_exit() writes no output and leaves its segment");
}
