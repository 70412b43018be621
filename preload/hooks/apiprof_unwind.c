/* SPDX-License-Identifier: MIT */
/*
 * apiprof_unwind.c - the runtime's C++ exception hooks: the calls an
 * exception abandons.
 *
 * A C++ callback that throws out of a profiled call (a C library function
 * that called it), caught above that call, never passes the wrapper's way
 * out, as a longjmp does not (apiprof_jmp.c): the thread's frame word for
 * the api would go on saying that call is in progress, and the later
 * calls of the api from deeper frames would be taken as nested in it.  So
 * the two ends of an exception's way are hooked:
 *
 * - __cxa_begin_catch, which a catch handler (catch (...) too, and the
 *   terminate handler of a noexcept function) calls first, from the
 *   catching frame, once the stack below it has been unwound.  Every call
 *   in progress whose frame lies below the caller's stack pointer, and
 *   not below the thrower's, is abandoned, and ended as a jump ends it
 *   (apiprof_abandon: counted, with no time).  A handler inside the
 *   callback lies below the profiled call, which goes on; an exception
 *   that nothing catches reaches it from __cxa_throw itself, below every
 *   call in progress: nothing ends.  A frame below the thrower's is on
 *   another stack (a catch on a coroutine's stack above the thread's), and
 *   so is one off the alternate signal stack the catch runs on: those
 *   calls go on.
 * - _Unwind_RaiseException and _Unwind_Resume_or_Rethrow, through which
 *   every throw, rethrow and foreign exception starts to unwind, from the
 *   thrower's stack.  A call that the inline way in entered leaves only its
 *   stack address in the frame word; its row is found from its return
 *   address (apiprof_wrappers_below), which only this live stack still
 *   holds: the catching frame's calls overwrite it.  So the throw keeps,
 *   for each api's call in progress, its row in the thread's entry, for
 *   the catch, and its own stack pointer (the lowest of the throws since
 *   the latest catch: a cleanup on the way may throw and catch again).
 *   A call entered out of line has its row there already
 *   (apiprof_slow_row).  In dynamic mode the row is not known: the call
 *   is ended, not counted, as a jump's is.
 *
 * The exception itself is untouched: each hook ends with a tail call of
 * the real function with what it was given, so the unwinder finds the
 * stack as bare, without the hook's frame.  Like the longjmp hooks
 * they take effect only when libapiprof.so comes before the C++ runtime,
 * as LD_PRELOAD puts it.  An object dlopen()ed with RTLD_LOCAL (a Python
 * extension) brings libstdc++ and libgcc_s into its own scope, not the
 * global one: its calls bind to these hooks all the same, and RTLD_NEXT
 * finds nothing, so the real function is the one its caller's own scope
 * has.  Either is kept once found: a process has one libstdc++ and one
 * libgcc_s, whatever scope they came in, and a lookup at every catch
 * would reset the program's dlerror state each time, not once.
 *
 * The hooks use no lock on the way and a few hundred bytes of the
 * program's stack; a lookup through the caller's scope takes the loader's
 * lock, as the program's own dlsym would.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <unwind.h>

#include "apiprof_internal.h"

/* The real functions, looked up as void pointers.  Converted through a
 * union, not through a local whose address is taken (apiprof_hook_store):
 * that would keep the hook's frame alive across the call, and the raise
 * hooks' calls are tail calls, which leave the unwinder one frame fewer
 * to step through on every throw. */
union real_raise {
	void *p;
	_Unwind_Reason_Code (*f)(struct _Unwind_Exception *exc);
};
union real_catch {
	void *p;
	void *(*f)(void *exc);
};

/* A frame this far above the throw is taken to be on another stack (a
 * call a signal handler on an alternate stack interrupted): the words
 * below it are not read, as in apiprof_slow.c. */
#define STACK_SPAN (1u << 20)

static void *real_raise, *real_rethrow, *real_catch;

/* name in the scope of the object that holds `caller` (itself and its
 * dependencies), when that is not this hook `self`: apiprof_dl.c's
 * as_bare does the same. */
static void *in_caller_scope(const char *name, const void *caller, const void *self)
{
	struct link_map *lm = NULL;
	Dl_info info;
	void *h = NULL, *p = NULL;

	if (dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm != NULL &&
	    lm->l_name[0] != '\0')
		h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
	if (h != NULL) {
		p = dlsym(h, name);
		dlclose(h); /* the caller's object stays: its code is running */
	}
	return p == self ? NULL : p;
}

/* The real function for a hook `self` called from `caller`: the next
 * definition in the global scope, else the caller's scope's, kept once
 * found.  The lookup ends with calls that succeed, so the program's
 * dlerror state is left clear, never with an error of the runtime's.
 * abort() stands for the call that cannot be made otherwise (no definition
 * anywhere but here: the program could not have made it). */
static void *real(void **slot, const char *name, const void *caller, const void *self)
{
	void *f = apiprof_load_acquire(slot);

	if (f != NULL)
		return f;
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	f = apiprof_hook_next(name);
	if (f == NULL || f == self)
		f = in_caller_scope(name, caller, self);
	if (f != NULL)
		apiprof_store_release(slot, f);
	errno = saved;
	apiprof_busy_leave(busy);
	if (f == NULL)
		abort();
	return f;
}

/* The thread's table and entry when the hooks may act on them: the
 * runtime is not busy on it (a signal handler's exception out of runtime
 * code is not undone) and one of its frame words says a call is in
 * progress, which makes the entry valid.  NULL otherwise. */
static struct apiprof_tls *acting(void)
{
	if (!apiprof_tls_ok())
		return NULL;
	struct apiprof_tls *t = apiprof_tls_self();
	uint32_t n = apiprof_api_count();

	if (t->guard & APIPROF_GUARD_BUSY)
		return NULL;
	for (uint32_t id = 1; id <= n && id < APIPROF_MAX_APIS; id++)
		if (t->api[id].frame > APIPROF_FRAME_IDLE)
			return t;
	return NULL;
}

static struct apiprof_thread *entry_of(struct apiprof_tls *t)
{
	return ((struct apiprof_tls_block *)t)->self;
}

/* The rows of the calls in progress that the inline way in entered, seen
 * from `sp`, the thrower's stack pointer: the words between sp and a
 * frame above it are live stack.  And sp, for the catch. */
static void keep_rows(uintptr_t sp)
{
	struct apiprof_tls *t = acting();

	if (t == NULL)
		return;
	struct apiprof_thread *th = entry_of(t);
	uint64_t busy = apiprof_busy_enter();
	uint32_t n = apiprof_api_count();
	if (th->thrown_sp == 0 || sp < th->thrown_sp)
		th->thrown_sp = sp;
	for (uint32_t id = 1; id <= n && id < APIPROF_MAX_APIS; id++) {
		uintptr_t w = t->api[id].frame;
		uintptr_t frame = w & ~(uintptr_t)APIPROF_FRAME_TAGS;
		const struct apiprof_api *api = apiprof_api_get(id);
		bool kept = w > APIPROF_FRAME_IDLE && !(w & APIPROF_FRAME_SLOW) && api != NULL &&
		            api->entries_end != NULL && frame > sp && frame - sp <= STACK_SPAN;

		th->thrown_frame[id] = kept ? frame : 0;
		if (kept)
			th->thrown_row[id] = apiprof_wrappers_below(id, frame, sp);
	}
	apiprof_busy_leave(busy);
}

/* The row of the abandoned call of api id at `frame`, UINT32_MAX when
 * unknown (not counted); what the throw kept is used once.  A dynamic-mode
 * api's calls are not counted, as in apiprof_jmp.c: only those a change of
 * call site sent out of line would be known. */
static uint32_t row_of(const struct apiprof_unwinding *u, struct apiprof_tls *t, uint32_t id,
                       uintptr_t frame)
{
	struct apiprof_thread *th = u->ctx;
	const struct apiprof_api *api = apiprof_api_get(id);

	if (api == NULL || api->entries_end == NULL)
		return UINT32_MAX;
	if (t->api[id].frame & APIPROF_FRAME_SLOW)
		return apiprof_slow_row(t, id);
	if (th->thrown_frame[id] != frame)
		return UINT32_MAX;
	th->thrown_frame[id] = 0;
	return th->thrown_row[id];
}

/* Whether the call at `frame` lies in the stack that a catch (u->to, its
 * stack pointer) has unwound from the thrower's (u->from; 0: not known,
 * an unwinding the throw hooks did not see). */
static bool unwound(const struct apiprof_unwinding *u, uintptr_t frame)
{
	return frame >= u->from && frame < u->to && !apiprof_handler_off_frame(frame);
}

/* Ends the calls of this thread that lie between the thrower's stack
 * pointer and the catching frame's.  The thread's innermost call becomes
 * the one the outermost of them (the highest frame) was made in, as after
 * a jump. */
static void caught(uintptr_t catcher)
{
	struct apiprof_tls *t = acting();

	if (t == NULL)
		return;
	struct apiprof_thread *th = entry_of(t);
	uint64_t busy = apiprof_busy_enter();
	struct apiprof_unwinding u = {
	        .left = unwound, .row = row_of, .from = th->thrown_sp, .to = catcher, .ctx = th};
	th->thrown_sp = 0;
	apiprof_abandon_unwound(t, &u);
	apiprof_busy_leave(busy);
}

/* Not instrumented by ASan: the real function does not return to these
 * frames when the exception is caught, and the redzones ASan would put
 * around their locals would stay poisoned, for the program's later frames
 * there to trip over. */
APIPROF_EXPORT __attribute__((no_sanitize_address)) _Unwind_Reason_Code
_Unwind_RaiseException(struct _Unwind_Exception *exc)
{
	union real_raise u = {real(&real_raise, "_Unwind_RaiseException",
	                           __builtin_return_address(0), (void *)_Unwind_RaiseException)};

	keep_rows(apiprof_sp());
	return u.f(exc);
}

APIPROF_EXPORT __attribute__((no_sanitize_address)) _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *exc)
{
	union real_raise u = {real(&real_rethrow, "_Unwind_Resume_or_Rethrow",
	                           __builtin_return_address(0), (void *)_Unwind_Resume_or_Rethrow)};

	keep_rows(apiprof_sp());
	return u.f(exc);
}

/* The catching frame's stack pointer is this hook's canonical frame
 * address: the caller's stack pointer before the call. */
APIPROF_EXPORT void *__cxa_begin_catch(void *exc)
{
	union real_catch u = {real(&real_catch, "__cxa_begin_catch", __builtin_return_address(0),
	                           (void *)__cxa_begin_catch)};

	caught((uintptr_t)__builtin_dwarf_cfa());
	return u.f(exc);
}

/* Found at load time when the C++ runtime is there already.  In a C
 * program the lookups fail, and the failure would be what the program's
 * first dlerror() says: a call that succeeds clears it. */
__attribute__((constructor)) static void unwind_init(void)
{
	apiprof_store_release(&real_raise, apiprof_hook_next("_Unwind_RaiseException"));
	apiprof_store_release(&real_rethrow, apiprof_hook_next("_Unwind_Resume_or_Rethrow"));
	apiprof_store_release(&real_catch, apiprof_hook_next("__cxa_begin_catch"));
	if (!real_raise || !real_rethrow || !real_catch) {
		uint64_t busy = apiprof_busy_enter();

		apiprof_dl_clear_error();
		apiprof_busy_leave(busy);
	}
}
