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
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"

#define MAX_EXECL_ARGS 4096

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);

static void *next(const char *name)
{
	void *p;
	uint64_t busy = apiprof_busy_enter();

	p = dlsym(RTLD_NEXT, name);
	apiprof_busy_leave(busy);
	return p;
}

/* Resolves the real function into *slot once; returns it or NULL. */
#define REAL(slot, name)                                                                           \
	(__atomic_load_n(&(slot), __ATOMIC_RELAXED) ? (slot)                                       \
	                                            : (memcpy_fn(&(slot), next(name)), (slot)))

static void memcpy_fn(void *slot, void *p)
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
	execve_fn f = REAL(real_execve, "execve");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(path, argv, envp) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn f = REAL(real_execvpe, "execvpe");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(file, argv, envp) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execv(const char *path, char *const argv[])
{
	execv_fn f = REAL(real_execv, "execv");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(path, argv) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int execvp(const char *file, char *const argv[])
{
	execv_fn f = REAL(real_execvp, "execvp");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(file, argv) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn f = REAL(real_fexecve, "fexecve");
	uint64_t busy = apiprof_finish(APIPROF_END_EXEC);

	return exec_failed(busy, f ? f(fd, argv, envp) : (errno = ENOSYS, -1));
}

/* Collects execl's variable arguments, up to and including the NULL, into
 * argv; with envp != NULL also reads execle's trailing environment. */
static int collect(const char *arg0, va_list ap, char **argv, char ***envp)
{
	int n = 0;

	argv[n++] = (char *)arg0;
	while (arg0 != NULL && (argv[n++] = va_arg(ap, char *)) != NULL)
		if (n == MAX_EXECL_ARGS) {
			errno = E2BIG;
			return -1;
		}
	if (envp != NULL)
		*envp = va_arg(ap, char **);
	return 0;
}

APIPROF_EXPORT int execl(const char *path, const char *arg, ...)
{
	char *argv[MAX_EXECL_ARGS];
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect(arg, ap, argv, NULL);
	va_end(ap);
	return r ? r : execv(path, argv);
}

APIPROF_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char *argv[MAX_EXECL_ARGS];
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect(arg, ap, argv, NULL);
	va_end(ap);
	return r ? r : execvp(file, argv);
}

APIPROF_EXPORT int execle(const char *path, const char *arg, ...)
{
	char *argv[MAX_EXECL_ARGS];
	char **envp;
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect(arg, ap, argv, &envp);
	va_end(ap);
	return r ? r : execve(path, argv, envp);
}

APIPROF_EXPORT void _exit(int status)
{
	exit_fn f = REAL(real__exit, "_exit");

	apiprof_finish(APIPROF_END_EXIT);
	if (f != NULL)
		f(status);
	abort(); /* _exit cannot be missing from libc; never return */
}

APIPROF_EXPORT void _Exit(int status)
{
	exit_fn f = REAL(real__Exit, "_Exit");

	apiprof_finish(APIPROF_END_EXIT);
	if (f != NULL)
		f(status);
	abort();
}
