/* SPDX-License-Identifier: MIT */
/*
 * dyn_link.h - what the audit module (libapiprof-dyn-audit.so, in the
 * loader's audit namespace) and the profiler (libapiprof-dyn.so, in the
 * program's namespace) share.
 *
 * The audit module owns one slot per symbol of the specs, and one stub per
 * slot: `lea slot(%rip), %r11; jmp *slot.target`.  la_symbind64 hands the
 * stub to every object that binds the symbol, and records the definition
 * it found in `real`.  `target` is `real` until the profiler installs its
 * gate there (dyn_gate.S), which finds the slot in %r11 (a scratch
 * register no call passes anything in), so a call bound before the
 * profiler started simply goes to the library.
 *
 * The profiler finds the table by looking up DYN_LINK_SYMBOL with dlsym:
 * the audit module answers that lookup with its own function.
 */
#ifndef DYN_LINK_H
#define DYN_LINK_H

#include <stdint.h>

#define DYN_LINK_SYMBOL  "apiprof_dyn_link"
#define DYN_LINK_MAGIC   0x4b4e494c4e5944ull /* "DYNLINK" */
#define DYN_LINK_VERSION 2u

struct dyn_slot {
	const char *symbol;  /* the linker name */
	const char *version; /* NULL: the default (or only) definition */
	uintptr_t real;      /* the definition bound first; 0 until then */
	uintptr_t target;    /* where the stub jumps: real, then the closure */
	uintptr_t stub;      /* the address handed out */
	/* The profiler's, set before target leads to its gate: the api (a
	 * struct apiprof_api) whose frame word tells a nested call, which
	 * the gate sends to `real`, and the closure it sends the others to. */
	const void *api;
	uintptr_t closure;
};

struct dyn_link {
	uint64_t magic;
	uint32_t version;
	uint32_t nslots;
	struct dyn_slot *slots;
};

typedef struct dyn_link *(*dyn_link_fn)(void);

#endif /* DYN_LINK_H */
