/* SPDX-License-Identifier: MIT */
/*
 * apiprof_tls.c - where each thread's state lives.
 *
 * The hot path reaches a thread's state at one offset from the thread
 * pointer, the same in every thread, which only static TLS gives.
 *
 * Preloaded, the runtime is loaded with the program and its own block
 * (below) is in static TLS, sized in with the program's: the common case,
 * and it takes nothing from the reserve glibc keeps for libraries that
 * are dlopen()ed later.  The block is TLSDESC (meson.build compiles the
 * runtime with -mtls-dialect=gnu2), not initial-exec, so that a shim
 * dlopen()ed late never fails to load because of it: glibc then gives the
 * block dynamic TLS instead, allocated by malloc on each thread's first
 * access, which the runtime must never touch (under a malloc shim, that
 * malloc would come straight back here).
 *
 * In that case the block comes from libapiprof-tls.so, a library with
 * nothing but an initial-exec block, dlopen()ed from the runtime's
 * constructor: glibc places it in its static reserve, or refuses to load
 * it.  Refused, the runtime stays off, and every call passes straight
 * through the shims, after one warning.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "apiprof_internal.h"

int apiprof_tls_state;
intptr_t apiprof_tls_off;

APIPROF_HIDDEN __thread struct apiprof_tls_block apiprof_tls_own;

#define SPARE_NAME "libapiprof-tls.so.0"

/* The offset of our own block from the thread pointer when it is static,
 * 0 when it is not (a static block is below the thread pointer, never at
 * it).  A TLSDESC descriptor is {resolver, argument}: glibc's resolver for
 * a static block returns the argument, the block's (negative) offset; the
 * one for a dynamic block takes a pointer to a record, which is positive.
 * Only a negative argument is used, and only once it matches the address
 * the compiler computes through the resolver, which for a static block
 * allocates nothing. */
static intptr_t own_offset(void)
{
#ifdef APIPROF_TLS_EXE /* linked into a program: always static */
	return (char *)&apiprof_tls_own - apiprof_tp();
#else
	const intptr_t *desc;

	__asm__("leaq apiprof_tls_own@TLSDESC(%%rip), %0" : "=a"(desc));
	if (desc[1] >= 0 || (char *)&apiprof_tls_own - apiprof_tp() != desc[1])
		return 0;
	return desc[1];
#endif
}

static bool use(intptr_t off)
{
	if (off == 0)
		return false;
	apiprof_tls_off = off;
	apiprof_store_release(&apiprof_tls_state, 1);
	return true;
}

bool apiprof_tls_use_own(void)
{
	return use(own_offset());
}

/* libapiprof-tls.so, from the directory this runtime was loaded from;
 * NULL and *why set when it cannot be loaded. */
static void *spare_open(const char **why)
{
	static char path[PATH_MAX]; /* not on a program's stack; called once */
	Dl_info info;
	const char *slash;

	if (dladdr((void *)spare_open, &info) == 0 || info.dli_fname == NULL ||
	    (slash = strrchr(info.dli_fname, '/')) == NULL ||
	    snprintf(path, sizeof(path), "%.*s/" SPARE_NAME, (int)(slash - info.dli_fname),
	             info.dli_fname) >= (int)sizeof(path)) {
		*why = "cannot tell where " SPARE_NAME " is";
		return NULL;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (h == NULL)
		*why = dlerror();
	return h;
}

/* Called once, from the constructor, when our own block is not static. */
bool apiprof_tls_use_spare(void)
{
	const char *why = "it has no apiprof_tls_spare_offset";
	void *h = spare_open(&why);
	intptr_t (*offset)(void) = NULL;
	void *p = h ? dlsym(h, "apiprof_tls_spare_offset") : NULL;

	memcpy(&offset, &p, sizeof(p));
	if (offset != NULL && use(offset()))
		return true;
	apiprof_store_release(&apiprof_tls_state, -1);
	apiprof_warn("no static TLS for the runtime (%s); calls pass through unprofiled. "
	             "Preload the shim, or raise glibc.rtld.optional_static_tls",
	             why);
	return false;
}
