/* SPDX-License-Identifier: MIT */
/*
 * apiprof_dl.c - dlopen and dlsym as the program sees them.
 *
 * A program that dlopen()s an api's library and calls through
 * dlsym(handle, "fn") gets the library's own function and bypasses the
 * shim.  Hooking dlsym lets the runtime hand out the shim's wrapper
 * instead.  Two things make the hook delicate:
 *
 *  - dlsym(RTLD_NEXT, ...) and dlopen's $ORIGIN and RUNPATH are relative to
 *    the *caller*, which glibc finds from the return address.  A C wrapper
 *    would make the runtime the caller.  So the hooks are small assembly
 *    trampolines that *jump* to the real function with the caller's return
 *    address still on the stack, and only leave the fast path for explicit
 *    handles, whose lookups do not depend on the caller.
 *  - lookups in the global scope (RTLD_DEFAULT, RTLD_NEXT) already find the
 *    preloaded shims first, so they need nothing.
 *
 * Like the exec hooks these act only when libapiprof.so is preloaded ahead
 * of libc (apiprof-run does so).  x86-64 only, as is the TSC hot path.
 */
#include <dlfcn.h>
#include <string.h>

#include "apiprof_internal.h"

/* Read by the trampolines; 0 until the first call resolves them.  dlvsym
 * is not hooked: the runtime needs libc's own to find these. */
APIPROF_HIDDEN void *apiprof_real_dlsym, *apiprof_real_dlopen;

static uint32_t deepbind_warned;

static void *libc_dl(const char *name)
{
	void *p = dlvsym(RTLD_NEXT, name, "GLIBC_2.34");

	if (p == NULL)
		p = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5");
	return p;
}

/* Called by a trampoline on its first use, with the program's arguments
 * saved around it.  dlvsym is not hooked, so this cannot recurse. */
APIPROF_HIDDEN void apiprof_dl_init(void)
{
	uint64_t busy = apiprof_busy_enter();

	__atomic_store_n(&apiprof_real_dlsym, libc_dl("dlsym"), __ATOMIC_RELAXED);
	__atomic_store_n(&apiprof_real_dlopen, libc_dl("dlopen"), __ATOMIC_RELAXED);
	apiprof_busy_leave(busy);
}

/* RTLD_DEEPBIND makes the loaded library prefer its own symbols, shims
 * and all: calls made inside it are not seen.  Said once. */
APIPROF_HIDDEN void apiprof_dl_deepbind(const char *file)
{
	if (!__atomic_exchange_n(&deepbind_warned, 1, __ATOMIC_RELAXED))
		apiprof_warn(
		        "%s opened with RTLD_DEEPBIND: calls through a DEEPBIND handle are not "
		        "seen",
		        file ? file : "(main program)");
}

/* An explicit handle: look the symbol up, then hand out the shim's
 * wrapper when the result is the real function a shim wraps. */
APIPROF_HIDDEN void *apiprof_dl_handle_sym(void *handle, const char *name)
{
	void *(*sym)(void *, const char *);
	void *p;

	memcpy(&sym, &apiprof_real_dlsym, sizeof(sym));
	p = sym(handle, name);
	return p ? apiprof_api_redirect(name, p) : NULL;
}

/*
 * The trampolines.  On entry %rdi, %rsi (and %rdx) hold the arguments and
 * the caller's return address is on top of the stack.  The first call
 * saves the arguments, keeps the stack 16-byte aligned across the call to
 * apiprof_dl_init, and starts over.
 */
#define TRAMPOLINE_PROLOGUE(fn, real)                                                              \
	".text\n"                                                                                  \
	".globl " fn "\n"                                                                          \
	".type " fn ", @function\n" fn ":\n"                                                       \
	"0:	movq " real "(%rip), %rax\n"                                                       \
	"	testq %rax, %rax\n"                                                                      \
	"	jz 9f\n"

#define TRAMPOLINE_INIT(fn)                                                                        \
	"9:	pushq %rdi\n"                                                                          \
	"	pushq %rsi\n"                                                                            \
	"	pushq %rdx\n"                                                                            \
	"	call apiprof_dl_init\n"                                                                  \
	"	popq %rdx\n"                                                                             \
	"	popq %rsi\n"                                                                             \
	"	popq %rdi\n"                                                                             \
	"	jmp 0b\n"                                                                                \
	".size " fn ", .-" fn "\n"

/* dlsym(handle, name): global-scope handles (RTLD_DEFAULT 0, RTLD_NEXT -1)
 * go straight through; explicit ones to apiprof_dl_handle_sym. */
__asm__(TRAMPOLINE_PROLOGUE("dlsym",
                            "apiprof_real_dlsym") "	testq %rdi, %rdi\n"
                                                  "	jz 1f\n"
                                                  "	cmpq $-1, %rdi\n"
                                                  "	je 1f\n"
                                                  "	jmp apiprof_dl_handle_sym\n"
                                                  "1:	jmp *%rax\n" TRAMPOLINE_INIT("dlsym"));

/* dlopen(file, flags): a warning for RTLD_DEEPBIND (0x8), then a jump. */
__asm__(TRAMPOLINE_PROLOGUE("dlopen",
                            "apiprof_real_dlopen") "	testl $8, %esi\n"
                                                   "	jz 1f\n"
                                                   "	pushq %rdi\n"
                                                   "	pushq %rsi\n"
                                                   "	pushq %rax\n"
                                                   "	call apiprof_dl_deepbind\n"
                                                   "	popq %rax\n"
                                                   "	popq %rsi\n"
                                                   "	popq %rdi\n"
                                                   "1:	jmp *%rax\n" TRAMPOLINE_INIT("dlopen"));
