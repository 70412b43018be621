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
/* Records t's layout (and its members') in h when t is a struct or union
 * by value (or an array of one). */
void imp_note_record(struct imp_header *h, CXType t);

#endif /* IMP_CLANG_H */
