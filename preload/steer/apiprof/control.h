/* SPDX-License-Identifier: MIT */
/*
 * apiprof/control.h - a program steers its own profiling (issue 37), as
 * MPI_Pcontrol does:
 *
 *   apiprof_mode(api, mode)  every api (api NULL) or one in mode "off",
 *                            "count", "sampled", "sampled:N" or "full"
 *   apiprof_reset()          "since reset" totals start again at zero
 *   apiprof_mark(label)      a named point in time, with the totals then
 *
 * Each returns 0 when done, -1 otherwise (errno EINVAL: a mode or api not
 * known; EBUSY: another thread was taking totals too long; ENOSYS: not
 * run under apiprof).  A program built with this header needs nothing of
 * apiprof to link or to run: the entries of libapiprof.so are weak
 * references, null when it is not loaded, and the calls then do nothing.
 * Run under apiprof (LD_PRELOAD, apiprof-run) they act.  In code built
 * without -fPIC/-fPIE the linker sets a weak reference no library
 * defines to 0 for good, so there the entry is looked up by name instead
 * (dlsym, in libc since glibc 2.34).
 */
#ifndef APIPROF_CONTROL_H
#define APIPROF_CONTROL_H

#include <errno.h>
#if !defined(__PIC__) && !defined(__PIE__)
#include <dlfcn.h>
#ifndef RTLD_DEFAULT
#define RTLD_DEFAULT ((void *)0)
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

extern int apiprof_control_mode(const char *api, const char *mode) __attribute__((weak));
extern int apiprof_control_reset(void) __attribute__((weak));
extern int apiprof_control_mark(const char *label) __attribute__((weak));

/* The entry named name: the weak reference, or in code that is not
 * position-independent the dynamic linker's answer. */
#if defined(__PIC__) || defined(__PIE__)
#define APIPROF_CONTROL_ENTRY(name) (name)
#else
#define APIPROF_CONTROL_ENTRY(name) (__extension__(__typeof__(&name)) dlsym(RTLD_DEFAULT, #name))
#endif

static inline int apiprof_not_loaded(void)
{
	errno = ENOSYS;
	return -1;
}

static inline int apiprof_mode(const char *api, const char *mode)
{
	__typeof__(&apiprof_control_mode) f = APIPROF_CONTROL_ENTRY(apiprof_control_mode);

	return f ? f(api, mode) : apiprof_not_loaded();
}

static inline int apiprof_reset(void)
{
	__typeof__(&apiprof_control_reset) f = APIPROF_CONTROL_ENTRY(apiprof_control_reset);

	return f ? f() : apiprof_not_loaded();
}

static inline int apiprof_mark(const char *label)
{
	__typeof__(&apiprof_control_mark) f = APIPROF_CONTROL_ENTRY(apiprof_control_mark);

	return f ? f(label) : apiprof_not_loaded();
}

#ifdef __cplusplus
}
#endif

#endif /* APIPROF_CONTROL_H */
