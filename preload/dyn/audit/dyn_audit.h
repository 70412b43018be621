/* SPDX-License-Identifier: MIT */
/* dyn_audit.h - the audit module's pieces (libapiprof-dyn-audit.so). */
#ifndef DYN_AUDIT_H
#define DYN_AUDIT_H

#include <link.h>
#include <stdbool.h>
#include <stddef.h>

#include "apiprof_atomic.h"
#include "dyn_link.h"

#define DYN_AUDIT_HIDDEN __attribute__((visibility("hidden")))

/* dyn_audit_slots.c: the slots of every spec in APIPROF_SPEC. */
DYN_AUDIT_HIDDEN struct dyn_link *dyn_audit_table(void);
DYN_AUDIT_HIDDEN int dyn_audit_load(const char *specs);
/* The slot of symbol `name` whose version the definition has; NULL if none. */
DYN_AUDIT_HIDDEN struct dyn_slot *dyn_audit_find(const char *name, struct link_map *def,
                                                 unsigned ndx);

/* dyn_audit_stub.c: executable `jmp *slot.target` stubs next to the slots. */
DYN_AUDIT_HIDDEN struct dyn_slot *dyn_audit_stubs(size_t n);

/* dyn_audit_ver.c: the version of symbol ndx of a loaded object: its
 * name (NULL when unversioned) and whether it is hidden (an old version
 * that only references naming it reach). */
DYN_AUDIT_HIDDEN const char *dyn_audit_version(struct link_map *m, unsigned ndx, bool *hidden);

#endif /* DYN_AUDIT_H */
