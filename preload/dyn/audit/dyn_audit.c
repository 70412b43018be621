// SPDX-License-Identifier: MIT
/*
 * dyn_audit.c - the rtld-audit interface of libapiprof-dyn-audit.so.
 *
 * Loaded with LD_AUDIT, so the dynamic linker asks it about every symbol
 * binding of a PLT slot: lazy or immediate (-z now), in the program, in
 * its libraries, in libraries dlopen()ed later, and every dlsym/dlvsym
 * lookup.  For a symbol of a spec it answers with that symbol's stub,
 * which jumps to the profiler's closure once that exists.
 *
 * No la_pltenter/la_pltexit: with them the loader would route every call
 * through its profiling trampoline; without them a bound call costs
 * nothing here.  This module runs in the audit namespace, with its own
 * copy of libc: it keeps to its own memory and never calls the profiler.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn_audit.h"

#define DYN_AUDIT_EXPORT __attribute__((visibility("default")))

static struct dyn_link *dyn_audit_rendezvous(void)
{
	return dyn_audit_table();
}

DYN_AUDIT_EXPORT unsigned la_version(unsigned version)
{
	const char *specs = secure_getenv("APIPROF_SPEC"); /* a spec names files */

	if (version < 1)
		return 0;
	if (specs != NULL && *specs != '\0')
		dyn_audit_load(specs);
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool name_starts(const char *name, const char *prefix)
{
	return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Every object may define a spec'd symbol (BINDTO).  Every object's calls
 * are bound through us (BINDFROM) except the loader's and those of the
 * profiler and the libraries it brings along, which only run on its
 * behalf: that keeps its start-up (jansson, libffi) out of the stubs. */
DYN_AUDIT_EXPORT unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	const char *name = base_name(map->l_name ? map->l_name : "");

	(void)lmid;
	*cookie = (uintptr_t)map;
	if (name_starts(name, "ld-linux"))
		return 0;
	if (name_starts(name, "libapiprof-dyn.so") || name_starts(name, "libffi.so") ||
	    name_starts(name, "libjansson.so"))
		return LA_FLG_BINDTO;
	return LA_FLG_BINDTO | LA_FLG_BINDFROM;
}

/* Records the definition the slot forwards to.  A second, different
 * definition of the same symbol (two copies of a library loaded
 * RTLD_LOCAL) keeps its own address: unprofiled, but never misrouted. */
static uintptr_t bind_slot(struct dyn_slot *s, uintptr_t value)
{
	uintptr_t cur = 0;

	if (apiprof_cas_acq_rel(&s->real, &cur, value)) {
		uintptr_t zero = 0;

		apiprof_cas_acq_rel(&s->target, &zero, value);
		return s->stub;
	}
	return cur == value ? s->stub : value;
}

DYN_AUDIT_EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned ndx, uintptr_t *refcook,
                                        uintptr_t *defcook, unsigned *flags, const char *name)
{
	(void)refcook;
	(void)flags;
	if (strcmp(name, DYN_LINK_SYMBOL) == 0)
		return (uintptr_t)dyn_audit_rendezvous;
	if (dyn_audit_table()->nslots == 0 || sym->st_value == 0)
		return sym->st_value;
	struct dyn_slot *s = dyn_audit_find(name, (struct link_map *)*defcook, ndx);
	return s ? bind_slot(s, sym->st_value) : sym->st_value;
}
