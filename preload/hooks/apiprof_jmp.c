/* SPDX-License-Identifier: MIT */
/*
 * apiprof_jmp.c - the runtime's longjmp hooks: the calls a jump abandons.
 *
 * A callback that longjmps out of a profiled call, or a signal handler
 * that siglongjmps out of one, never passes the wrapper's way out.  The
 * thread's frame word for the api would go on saying that call is in
 * progress, and every later call of the api from a deeper frame would be
 * taken as nested in it.  So longjmp, _longjmp, siglongjmp and
 * __longjmp_chk (what longjmp becomes under _FORTIFY_SOURCE) are hooked:
 * each finds where the jump lands, ends every call of the thread that
 * lies between there and here (apiprof_abandon: counted, with no time),
 * then jumps with the real function.  Like the exec hooks, they take
 * effect only when libapiprof.so is itself preloaded ahead of libc, as
 * apiprof-run does.
 *
 * Where the jump lands is the stack pointer saved in the jmp_buf, which
 * glibc keeps mangled with the thread's pointer guard (on x86-64: xored
 * with %fs:0x30, then rotated left by 17 bits).  That is an internal of
 * glibc's, so the constructor checks it on a jmp_buf of its own: if it
 * does not give back its own stack pointer, the hooks only jump, and an
 * abandoned frame is taken over by the next call at or above it on its
 * stack (apiprof_slow.c), as before.
 *
 * The hooks use no lock and no allocation, and under a hundred bytes of
 * the program's stack.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_internal.h"

typedef void (*jmp_fn)(void *env, int val) __attribute__((noreturn));

/* glibc's x86-64 jmp_buf: rbx rbp r12-r15 rsp pc, then the signal mask. */
#define JB_RSP      6
#define JB_WORDS    32 /* sizeof(jmp_buf) is 200 */
#define PTR_ROTATE  17
#define CALIB_SLACK 256

int _setjmp(void *env) __attribute__((returns_twice));

static int jmp_known; /* 1 once jmp_target is checked */
static jmp_fn real_longjmp, real__longjmp, real_siglongjmp, real_longjmp_chk;

static uintptr_t pointer_guard(void)
{
	uintptr_t g;

	__asm__("mov %%fs:0x30, %0" : "=r"(g));
	return g;
}

/* The stack pointer a jump to env lands on. */
static uintptr_t jmp_target(const void *env)
{
	uintptr_t v;

	memcpy(&v, (const char *)env + JB_RSP * sizeof(v), sizeof(v));
	v = (v >> PTR_ROTATE) | (v << (64 - PTR_ROTATE));
	return v ^ pointer_guard();
}

/* Whether the jump from cur to tgt leaves the call whose frame is at
 * `frame`.  On one stack it goes up, and leaves what lies in between.
 * Out of a signal handler on an alternate stack above the thread's, it
 * goes down: it leaves the handler's stack from here up and the thread's
 * below the target, everything but what lies in between. */
static bool unwound(const struct apiprof_unwinding *u, uintptr_t frame)
{
	if (u->to > u->from)
		return frame >= u->from && frame < u->to;
	return frame >= u->from || frame < u->to;
}

/* The row of the abandoned call at `frame`, UINT32_MAX when unknown (not
 * counted).  A dynamic-mode api has no wrappers (entries NULL), so only
 * its calls entered out of line would be known, and which those are
 * depends on the calls' sites: none is counted. */
static uint32_t row_of(const struct apiprof_unwinding *u, struct apiprof_tls *t, uint32_t id,
                       uintptr_t frame)
{
	const struct apiprof_api *api = apiprof_api_get(id);

	if (api == NULL || api->entries_end == NULL)
		return UINT32_MAX;
	if (t->api[id].frame & APIPROF_FRAME_SLOW)
		return apiprof_slow_row(t, id);
	/* The words read lie between the jump's own frame (when on the same
	 * stack) and the abandoned one: live stack. */
	return apiprof_wrappers_below(id, frame, frame > u->from ? u->from : 0);
}

/* Ends the calls of this thread that the jump to env abandons.  The
 * thread's innermost call becomes the one the outermost of them (the
 * highest frame: stacks grow down) was made in, when its row is known. */
static void jump(const void *env)
{
	struct apiprof_unwinding u = {.left = unwound, .row = row_of, .from = apiprof_sp()};

	/* Runtime code that a signal handler's jump leaves is not undone */
	if (!apiprof_read_once(&jmp_known) || !apiprof_tls_ok() ||
	    (apiprof_tls_self()->guard & APIPROF_GUARD_BUSY))
		return;
	struct apiprof_tls *t = apiprof_tls_self();
	u.to = jmp_target(env);
	uint64_t busy = apiprof_busy_enter();
	apiprof_abandon_unwound(t, &u);
	apiprof_busy_leave(busy);
}

static jmp_fn next(const char *name)
{
	jmp_fn f;

	apiprof_hook_store(&f, apiprof_hook_next(name));
	return f;
}

/* The real function, found at load time (a jump out of a signal handler
 * should not have to look it up).  A hook is reached only when the
 * runtime comes before libc, where it is found; abort() stands for the
 * jump that cannot be made otherwise. */
static jmp_fn real(jmp_fn *slot, const char *name)
{
	jmp_fn f = apiprof_load_acquire(slot);

	if (f == NULL) {
		f = next(name);
		if (f == NULL)
			abort();
		apiprof_store_release(slot, f);
	}
	return f;
}

/* Whether jmp_target reads a jmp_buf right: it must give back the stack
 * pointer _setjmp saved here, up to the slack of this frame's layout. */
static __attribute__((noinline)) bool jmp_check(void)
{
	uint64_t env[JB_WORDS] __attribute__((aligned(16)));

	if (_setjmp(env) != 0)
		return false; /* never jumped to */
	uintptr_t sp = apiprof_sp();
	uintptr_t tgt = jmp_target(env);
	return tgt - sp < CALIB_SLACK || sp - tgt < CALIB_SLACK;
}

__attribute__((constructor)) static void jmp_init(void)
{
	/* NULL when the runtime comes after libc: its hooks are not reached */
	apiprof_store_release(&real_longjmp, next("longjmp"));
	apiprof_store_release(&real__longjmp, next("_longjmp"));
	apiprof_store_release(&real_siglongjmp, next("siglongjmp"));
	apiprof_store_release(&real_longjmp_chk, next("__longjmp_chk"));
	apiprof_write_once(&jmp_known, jmp_check());
}

APIPROF_EXPORT __attribute__((noreturn)) void longjmp(void *env, int val)
{
	jump(env);
	real(&real_longjmp, "longjmp")(env, val);
}

APIPROF_EXPORT __attribute__((noreturn)) void _longjmp(void *env, int val)
{
	jump(env);
	real(&real__longjmp, "_longjmp")(env, val);
}

APIPROF_EXPORT __attribute__((noreturn)) void siglongjmp(void *env, int val)
{
	jump(env);
	real(&real_siglongjmp, "siglongjmp")(env, val);
}

APIPROF_EXPORT __attribute__((noreturn)) void __longjmp_chk(void *env, int val)
{
	jump(env);
	real(&real_longjmp_chk, "__longjmp_chk")(env, val);
}
