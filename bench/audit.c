/* SPDX-License-Identifier: MIT */
/*
 * audit.c - an LD_AUDIT library that times the bench library's calls the
 * way latrace does: la_symbind64 asks for la_pltenter/la_pltexit on the
 * bench functions only, and those two take a TSC timestamp each and add the
 * difference to per-thread totals, as the ideal shim does (global, for the
 * same reason as there: write-only statics may be optimised away).  What it costs
 * beyond the ideal shim is therefore the dynamic linker's audit path
 * (_dl_runtime_profile on every call: saving all argument registers, a
 * copy of the stack frame, the calls into the auditor).
 *
 *   LD_AUDIT=.../libbench_audit.so bench_driver ...
 */
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <x86intrin.h>

#define EXPORT __attribute__((visibility("default")))
#define DEPTH  64

/* The timestamps of the calls in progress on this thread, innermost last:
 * pltexit has nowhere else to find its call's start. */
struct audit_tls {
	unsigned depth;
	uint64_t t0[DEPTH];
	uint64_t calls, ticks;
};

__thread struct audit_tls audit_tls __attribute__((tls_model("initial-exec")));

static int wanted(const char *name)
{
	return strncmp(name, "bench_", 6) == 0 || strncmp(name, "bm", 2) == 0;
}

EXPORT unsigned int la_version(unsigned int version)
{
	(void)version;
	return LAV_CURRENT;
}

EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)map;
	(void)lmid;
	(void)cookie;
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
                              uintptr_t *defcook, unsigned int *flags, const char *symname)
{
	(void)ndx;
	(void)refcook;
	(void)defcook;
	/* Everything else is bound once and never comes back here. */
	if (!wanted(symname))
		*flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
	return sym->st_value;
}

EXPORT Elf64_Addr la_x86_64_gnu_pltenter(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
                                         uintptr_t *defcook, La_x86_64_regs *regs,
                                         unsigned int *flags, const char *symname,
                                         long int *framesizep)
{
	struct audit_tls *t = &audit_tls;

	(void)ndx;
	(void)refcook;
	(void)defcook;
	(void)regs;
	(void)flags;
	(void)symname;
	if (t->depth < DEPTH)
		t->t0[t->depth] = __rdtsc();
	t->depth++;
	/* A frame size >= 0 is what makes the linker call la_pltexit.  The
	 * bench functions take no stack arguments, so nothing needs copying. */
	*framesizep = 0;
	return sym->st_value;
}

EXPORT unsigned int la_x86_64_gnu_pltexit(Elf64_Sym *sym, unsigned int ndx, uintptr_t *refcook,
                                          uintptr_t *defcook, const La_x86_64_regs *inregs,
                                          La_x86_64_retval *outregs, const char *symname)
{
	struct audit_tls *t = &audit_tls;

	(void)sym;
	(void)ndx;
	(void)refcook;
	(void)defcook;
	(void)inregs;
	(void)outregs;
	(void)symname;
	if (t->depth > 0 && --t->depth < DEPTH) {
		t->ticks += __rdtsc() - t->t0[t->depth];
		t->calls++;
	}
	return 0;
}

EXPORT void la_preinit(uintptr_t *cookie)
{
	(void)cookie;
}
