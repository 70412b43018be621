/* SPDX-License-Identifier: MIT */
/*
 * apiprof_dl.c - dlopen, dlsym and dlclose as the program sees them.
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
 *    preloaded shims first.  But a shim exports its wrappers whether its
 *    library is loaded or not, and a program that probes
 *    dlsym(RTLD_DEFAULT, "fn") to learn whether a library is there would
 *    find a wrapper that stands for nothing.  So RTLD_DEFAULT first asks
 *    apiprof_dl_default_sym (a string compare per symbol of each shim,
 *    and more only for a spec'd name): for a wrapper whose library is
 *    absent it answers as bare, NULL and an "undefined symbol" error;
 *    everything else still jumps to glibc with the caller's address.
 *    RTLD_NEXT needs nothing: it searches after the caller, and a shim
 *    calling it is looking for what it wraps.
 *  - dlclose is a plain C wrapper, as its work does not depend on the
 *    caller: after the real dlclose has unloaded something, the cached
 *    pointers of the shims into it are dropped (apiprof_unload.c).
 *
 * Like the exec hooks these act only when libapiprof.so is preloaded ahead
 * of libc (apiprof-run does so).  x86-64 only, as is the TSC hot path.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include <sys/syscall.h>
#include <unistd.h>

#include "apiprof_bind_int.h"
#include "apiprof_internal.h"

/* Read by the trampolines; 0 until the first call resolves them.  dlvsym
 * is not hooked: the runtime needs libc's own to find these. */
APIPROF_HIDDEN void *apiprof_real_dlsym, *apiprof_real_dlopen;
static void *real_dlclose;

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

	apiprof_write_once(&apiprof_real_dlsym, libc_dl("dlsym"));
	apiprof_write_once(&apiprof_real_dlopen, libc_dl("dlopen"));
	apiprof_busy_leave(busy);
}

/* RTLD_DEEPBIND makes the loaded library prefer its own symbols, shims
 * and all: calls made inside it are not seen.  Said once. */
APIPROF_HIDDEN void apiprof_dl_deepbind(const char *file)
{
	if (!apiprof_xchg_relaxed(&deepbind_warned, 1))
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

	memcpy(&sym, &apiprof_real_dlsym, sizeof(sym));
	void *p = sym(handle, name);
	return p ? apiprof_api_redirect(name, p) : NULL;
}

void apiprof_dl_clear_error(void)
{
	void *h = dlopen(NULL, RTLD_LAZY);

	if (h != NULL)
		dlclose(h);
}

/* What dlsym(RTLD_DEFAULT, name) returns bare, for a name whose only
 * definition in the global scope is a wrapper standing for nothing: the
 * lookup made again in a scope without the shims, which fails with glibc's
 * own "undefined symbol" error.  For a caller in a library that scope is
 * the library's own (itself and its dependencies; bare, it follows the
 * global scope in the caller's), so the error names the caller as bare;
 * for the main program, whose own scope is the global one, it is the
 * runtime's, and the error names libapiprof.so instead of the program. */
static void *as_bare(const char *name, const void *caller)
{
	static void *runtime;
	struct link_map *lm = NULL;
	Dl_info info;
	void *h = NULL;

	if (dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm != NULL &&
	    lm->l_name[0] != '\0')
		h = dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD);
	/* Closed first, as a successful dlclose clears the error state: the
	 * caller's object stays loaded, as its code is running. */
	if (h != NULL)
		dlclose(h);
	if (h == NULL)
		h = apiprof_read_once(&runtime);
	if (h == NULL && dladdr((const void *)as_bare, &info)) {
		/* Never closed: libapiprof.so is NODELETE anyway. */
		h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
		apiprof_write_once(&runtime, h);
	}
	void *p = h ? dlsym(h, name) : NULL;
	return p;
}

struct dl_answer {
	void *sym;
	uintptr_t pass; /* 1: let the real dlsym answer; 0: sym is the answer */
};

static struct dl_answer default_sym(const char *name, const void *caller)
{
	struct dl_answer a = {NULL, 1};
	int saved = errno;

	if (name == NULL || apiprof_busy())
		return a;
	uint64_t busy = apiprof_busy_enter();
	if (apiprof_api_absent(name) != NULL) {
		a.sym = as_bare(name, caller);
		a.pass = 0;
	}
	apiprof_busy_leave(busy);
	errno = saved;
	return a;
}

/* Called by the dlsym trampoline for RTLD_DEFAULT, with the caller's return
 * address; returned in %rax and %rdx.  Not instrumented by ASan, whose
 * start-up calls dlsym before its shadow memory exists. */
__attribute__((no_sanitize_address)) APIPROF_HIDDEN struct dl_answer
apiprof_dl_default_sym(const char *name, const void *caller)
{
	if (!apiprof_tls_ok() || apiprof_api_count() == 0)
		return (struct dl_answer){NULL, 1};
	return default_sym(name, caller);
}

/* The loader's counts of objects added and removed so far. */
static int read_counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *c = arg;

	(void)size;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1;
}

void apiprof_unload_counts(uint64_t *adds, uint64_t *subs)
{
	uint64_t c[2] = {0, 0};

	dl_iterate_phdr(read_counts, c);
	*adds = c[0];
	*subs = c[1];
}

/* dlclose: unloads exactly as bare; first the libraries of the apis are
 * looked for (a library loaded and closed again was loaded all the same),
 * then, when it removed an object, the shims' cached pointers into it are
 * dropped.  The runtime's own dlclose
 * calls (busy) never unload anything but pass through the same way. */
APIPROF_EXPORT int dlclose(void *handle)
{
	void *p = apiprof_read_once(&real_dlclose);
	uint64_t adds, subs, adds1, subs1;
	int (*real)(void *);

	if (p == NULL) {
		p = libc_dl("dlclose");
		apiprof_write_once(&real_dlclose, p);
	}
	memcpy(&real, &p, sizeof(real));
	if (apiprof_busy() || apiprof_api_count() == 0)
		return real(handle);
	apiprof_loaded_before_close();
	apiprof_unload_counts(&adds, &subs);
	int r = real(handle);
	int saved = errno;
	apiprof_unload_counts(&adds1, &subs1);
	if (r == 0 && subs1 != subs) {
		apiprof_unload_forget(adds);
		apiprof_bind_forget_gone();
	}
	errno = saved;
	return r;
}

/* Whether this thread runs with a shadow stack (CET), where a return to
 * another address than the call's kills the process. */
static bool shadow_stack(void)
{
	unsigned long features = 0;
	int saved = errno;
	long r = syscall(SYS_arch_prctl, 0x5005 /* ARCH_SHSTK_STATUS */, &features);

	errno = saved;
	return r == 0 && (features & 1) != 0;
}

struct gadget_arg {
	uintptr_t caller, ret;
};

static int gadget_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct gadget_arg *a = arg;
	const ElfW(Phdr) *x = NULL;
	bool inside = false;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		inside |= a->caller >= lo && a->caller - lo < ph->p_memsz;
		if ((ph->p_flags & PF_X) && x == NULL)
			x = ph;
	}
	if (!inside)
		return 0;
	const unsigned char *p = x ? (const unsigned char *)(info->dlpi_addr + x->p_vaddr) : NULL;
	for (size_t i = 0; p && i < x->p_filesz; i++)
		if (p[i] == 0xc3)
			return a->ret = (uintptr_t)&p[i], 1;
	return 1;
}

/*
 * dlopen's return, seen without changing its caller.  glibc takes the
 * caller from dlopen's return address (its $ORIGIN, RUNPATH and
 * namespace), so the trampoline cannot call the real dlopen.  Instead it
 * jumps there with the return address replaced by one of a `ret`
 * instruction (the byte 0xc3) in the caller's own object, and below it
 * apiprof_dl_after: glibc sees the caller's object, and its `ret` goes on
 * to apiprof_dl_after, which returns to the caller.  Only while the
 * engine has symbols bound (apiprof_bind.c), and never under a shadow
 * stack; 0: the plain jump.  Called by the trampoline before dlopen.
 */
__attribute__((no_sanitize_address)) APIPROF_HIDDEN uintptr_t apiprof_dl_gadget(uintptr_t caller)
{
	struct gadget_arg a = {caller, 0};

	if (!apiprof_bind_active() || shadow_stack())
		return 0;
	int saved = errno;
	dl_iterate_phdr(gadget_one, &a);
	errno = saved;
	return a.ret;
}

/* After a dlopen the engine saw: binds the objects it loaded.  Nothing
 * here touches errno or dlerror's state. */
APIPROF_HIDDEN void apiprof_dl_opened(void *handle)
{
	if (handle != NULL)
		apiprof_bind_new_objects();
}

__asm__(".text\n"
        ".type apiprof_dl_after, @function\n"
        "apiprof_dl_after:\n"
        "	.cfi_startproc\n"
        "	pushq %rax\n"
        "	.cfi_adjust_cfa_offset 8\n"
        "	movq %rax, %rdi\n"
        "	call apiprof_dl_opened\n"
        "	popq %rax\n"
        "	.cfi_adjust_cfa_offset -8\n"
        "	ret\n"
        "	.cfi_endproc\n"
        ".size apiprof_dl_after, .-apiprof_dl_after\n");

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

/* dlsym(handle, name): RTLD_NEXT (-1) goes straight through; explicit
 * handles to apiprof_dl_handle_sym; RTLD_DEFAULT (0) asks
 * apiprof_dl_default_sym first (three pushes keep the stack aligned), and
 * returns its answer or goes through with the arguments as they were. */
__asm__(TRAMPOLINE_PROLOGUE("dlsym", "apiprof_real_dlsym") "	testq %rdi, %rdi\n"
                                                           "	jz 2f\n"
                                                           "	cmpq $-1, %rdi\n"
                                                           "	je 1f\n"
                                                           "	jmp apiprof_dl_handle_sym\n"
                                                           "1:	jmp *%rax\n"
                                                           "2:	pushq %rdi\n"
                                                           "	pushq %rsi\n"
                                                           "	pushq %rax\n"
                                                           "	movq %rsi, %rdi\n"
                                                           "	movq 24(%rsp), %rsi\n"
                                                           "	call apiprof_dl_default_sym\n"
                                                           "	testq %rdx, %rdx\n"
                                                           "	jz 3f\n"
                                                           "	popq %rax\n"
                                                           "	popq %rsi\n"
                                                           "	popq %rdi\n"
                                                           "	jmp *%rax\n"
                                                           "3:	addq $24, %rsp\n"
                                                           "	ret\n" TRAMPOLINE_INIT("dlsym"));

/* dlopen(file, flags): a warning for RTLD_DEEPBIND (0x8), then a jump,
 * through apiprof_dl_after when the engine binds (apiprof_dl_gadget). */
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
                                                   "1:	pushq %rdi\n"
                                                   "	pushq %rsi\n"
                                                   "	pushq %rax\n"
                                                   "	movq 24(%rsp), %rdi\n"
                                                   "	call apiprof_dl_gadget\n"
                                                   "	movq %rax, %r11\n"
                                                   "	popq %rax\n"
                                                   "	popq %rsi\n"
                                                   "	popq %rdi\n"
                                                   "	testq %r11, %r11\n"
                                                   "	jz 2f\n"
                                                   "	subq $16, %rsp\n"
                                                   "	movq %r11, (%rsp)\n"
                                                   "	leaq apiprof_dl_after(%rip), %r11\n"
                                                   "	movq %r11, 8(%rsp)\n"
                                                   "2:	jmp *%rax\n" TRAMPOLINE_INIT("dlopen"));
