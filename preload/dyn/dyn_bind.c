// SPDX-License-Identifier: MIT
/*
 * dyn_bind.c - the calls the audit module cannot see, led to the same
 * stubs by the slot-rewriting engine (preload/bind/apiprof_bind.h).
 *
 * la_symbind64 sees PLT bindings and dlsym lookups only: a GOT entry that
 * -fno-plt code calls through (GLOB_DAT) and a function pointer stored by a
 * data relocation (a table of handlers filled at load time) keep the real
 * function, and their calls were not counted.  Once every closure is
 * installed, the engine rewrites those slots in every loaded object to the
 * symbol's stub, and does the same in every object dlopen()ed later (the
 * runtime's dlopen hook).  So every call reaches the gate, as a generated
 * shim's wrapper sees every call.
 *
 * The audit module stays: it answers dlsym and dlvsym with the stubs, and
 * binds the PLT slots of objects loaded before any constructor runs.  The
 * engine covers what is left, lazy PLT slots not yet resolved included
 * (it binds them to the stub right away).
 *
 * The real function: the audit module's slot records it when a PLT slot or
 * a dlsym binds it, else the engine looks the definition up (no dlsym here:
 * the audit module would answer with the stub, and a non-PIE program with
 * its canonical PLT entry).  The engine's answer goes into the slot when
 * the slot had none; a symbol whose library is loaded later gets it in the
 * engine's record, read when the slot's is 0 (dyn_real).
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_bind.h"
#include "dyn.h"

static struct apiprof_bind_sym **bound; /* per slot of the table, or NULL */
static struct dyn_link *bound_link;

uintptr_t dyn_bound_real(const struct dyn_slot *s)
{
	struct apiprof_bind_sym *b;

	if (bound == NULL || (b = bound[s - bound_link->slots]) == NULL)
		return 0;
	return (uintptr_t)__atomic_load_n(&b->real, __ATOMIC_ACQUIRE);
}

static const char *sym_name(const struct dyn_slot *s)
{
	if (s->version == NULL)
		return s->symbol;
	size_t n = strlen(s->symbol) + strlen(s->version) + 2;
	char *name = dyn_alloc(n);
	snprintf(name, n, "%s@%s", s->symbol, s->version);
	return name;
}

/* The engine's real function in the slot, where the gate and the closure
 * read it: when the slot had none, or had the program's canonical PLT entry
 * (a non-PIE program taking the function's address), which leads back to
 * the stub once the program's own slot is rewritten. */
static void adopt(struct dyn_slot *s, const struct apiprof_bind_sym *b, uintptr_t given)
{
	uintptr_t had = apiprof_load_acquire(&s->real);

	if (b != NULL && b->real != NULL && (had == 0 || had == given))
		apiprof_store_release(&s->real, (uintptr_t)b->real);
}

void dyn_bind_slots(struct dyn_link *l)
{
	struct apiprof_bind_sym *syms = dyn_alloc(l->nslots * sizeof(*syms) + 1);
	uintptr_t *given = dyn_alloc(l->nslots * sizeof(*given) + 1);
	size_t n = 0;

	bound = dyn_alloc(l->nslots * sizeof(*bound) + 1);
	bound_link = l;
	for (uint32_t i = 0; i < l->nslots; i++) {
		struct dyn_slot *s = &l->slots[i];

		if (apiprof_load_acquire(&s->closure) == 0)
			continue; /* not profiled: its calls go to the library */
		syms[n] = (struct apiprof_bind_sym){sym_name(s), (void *)s->stub,
		                                    (void *)apiprof_load_acquire(&s->real)};
		given[i] = (uintptr_t)syms[n].real;
		__atomic_store_n(&bound[i], &syms[n], __ATOMIC_RELEASE);
		n++;
	}
	if (n == 0)
		return;
	int r = apiprof_bind_apply(syms, n);
	for (uint32_t i = 0; r >= 0 && i < l->nslots; i++)
		adopt(&l->slots[i], bound[i], given[i]);
	if (r < 0)
		dyn_tell(APIPROF_SAY_ERRORS,
		         "cannot rewrite the slots of the spec'd functions (%s): only the PLT "
		         "calls are seen",
		         strerror(-r));
}
