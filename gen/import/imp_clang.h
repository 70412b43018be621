/* SPDX-License-Identifier: MIT */
/*
 * imp_clang.h - the importer's libclang helpers (imp_type.c), for the
 * files that are only built when libclang is.
 */
#ifndef IMP_CLANG_H
#define IMP_CLANG_H

#include <clang-c/Index.h>

#include "imp.h"

/* A malloc'ed copy of a CXString, which is disposed of. */
char *imp_string(CXString s);
char *imp_type_spell(CXType t);
/* Whether the generator's type grammar accepts the spelling. */
bool imp_type_ok(const char *spelling);
bool imp_is_va_list(CXType t);
/* Records in h what dynamic mode needs of t passed by value: its layout
 * (and its members') when it is a struct or union (or an array of one),
 * its canonical type when it is a typedef of anything else, its integer
 * type when it is an enum. */
void imp_note_type(struct imp_header *h, CXType t);

#endif /* IMP_CLANG_H */
