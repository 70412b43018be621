/* SPDX-License-Identifier: MIT */
/*
 * apiprof_bind_int.h - the engine's parts (apiprof_bind.h is its face):
 *
 *   apiprof_bind_obj.c   one loaded object's dynamic section, read from
 *                        memory: relocations, symbols, versions, RELRO
 *   apiprof_bind_slot.c  writing one slot (mprotect around a read-only
 *                        page), the record of every slot written, revert
 *   apiprof_bind.c       which slots: the symbols, the objects, the rules
 */
#ifndef APIPROF_BIND_INT_H
#define APIPROF_BIND_INT_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>

#include "apiprof_bind.h"
#include "apiprof_life.h"

#define BIND_HIDDEN __attribute__((visibility("hidden")))

/* One loaded object, as its dynamic section describes it. */
struct bind_obj {
	const char *name;
	uintptr_t base; /* l_addr */
	uintptr_t dyn;  /* its dynamic section: the object's key */
	const ElfW(Phdr) * phdr;
	unsigned phnum;
	const ElfW(Sym) * symtab;
	const char *strtab;
	size_t strsz;
	const ElfW(Rela) * rela;
	size_t nrela;
	const ElfW(Rela) * jmprel;
	size_t njmprel;
	const ElfW(Half) * versym;
	const ElfW(Verneed) * verneed;
	const ElfW(Verdef) * verdef;
	const uint32_t *gnu_hash;
	uintptr_t relro_lo, relro_hi; /* the pages the loader made read-only */
};

/* apiprof_bind_obj.c: fills o from info; -1 with *why when it cannot be
 * read (then nothing of it is touched). */
BIND_HIDDEN int bind_obj_parse(const struct dl_phdr_info *info, struct bind_obj *o,
                               const char **why);
/* Whether [p, p + n) lies in one of o's PT_LOAD segments (needing flag
 * PF_X or PF_W when asked, 0: any). */
BIND_HIDDEN bool bind_obj_has(const struct bind_obj *o, uintptr_t p, size_t n, unsigned flag);
/* The name of symbol i, NULL if out of bounds. */
BIND_HIDDEN const char *bind_obj_sym_name(const struct bind_obj *o, size_t i);
/* The version a reference (symbol i) asks for, NULL if none. */
BIND_HIDDEN const char *bind_obj_ref_version(const struct bind_obj *o, size_t i);
/* The version a definition (symbol i) has, NULL if none. */
BIND_HIDDEN const char *bind_obj_def_version(const struct bind_obj *o, size_t i);
/* The address o defines name at (in version ver, or the default one when
 * ver is NULL), 0 if it defines none. */
BIND_HIDDEN uintptr_t bind_obj_lookup(const struct bind_obj *o, const char *name, const char *ver);
/* The object whose dynamic section is at dyn, parsed into o. */
BIND_HIDDEN int bind_obj_find(uintptr_t dyn, struct bind_obj *o);

/* apiprof_bind_slot.c */
BIND_HIDDEN int bind_slot_write(const struct bind_obj *o, uintptr_t *slot, uintptr_t now);
BIND_HIDDEN int bind_slot_revert_all(void);
/* Drops the records of objects no longer loaded (after a dlclose). */
BIND_HIDDEN void bind_slot_forget_gone(void);
/* Whether the object with this dynamic section is loaded now. */
BIND_HIDDEN bool bind_obj_loaded(uintptr_t dyn, uintptr_t base);

/* apiprof_bind.c, for the runtime's dlopen and dlclose hooks
 * (hooks/apiprof_dl.c): whether some symbols are bound; binds the objects
 * loaded since; drops what the engine knew of objects unloaded. */
BIND_HIDDEN bool apiprof_bind_active(void);
BIND_HIDDEN int apiprof_bind_new_objects(void);
BIND_HIDDEN void apiprof_bind_forget_gone(void);

/* One line, unless APIPROF_QUIET. */
#define bind_say(...)                                                                              \
	do {                                                                                       \
		if (!apiprof_cfg.quiet)                                                            \
			apiprof_warn(__VA_ARGS__);                                                 \
	} while (0)

#endif /* APIPROF_BIND_INT_H */
