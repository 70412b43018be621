/* SPDX-License-Identifier: MIT */
/*
 * gen_ident.h - lexical checks on the strings of a spec.
 *
 * Every string a spec contributes to the generated C passes one of these
 * checks (or the type grammar in gen_ctype.h) first: that is what keeps
 * something like `int); system("id"); //` or a newline plus `#define` from
 * ever reaching the compiler.
 */
#ifndef GEN_IDENT_H
#define GEN_IDENT_H

#include <stdbool.h>
#include <stddef.h>

/* Why a string was refused; GEN_NAME_OK when it was accepted. */
enum gen_name_err {
	GEN_NAME_OK,
	GEN_NAME_EMPTY,
	GEN_NAME_SYNTAX,   /* not an identifier / a character outside the allow-list */
	GEN_NAME_KEYWORD,  /* a C (or GNU C) keyword */
	GEN_NAME_RESERVED, /* starts with apiprof_, which the generated code uses */
	GEN_NAME_TOO_LONG,
	GEN_NAME_DOTDOT, /* a header path with ".." */
	GEN_NAME_DASH,   /* a header path starting with '-' */
};

bool gen_is_keyword(const char *s, size_t n);
bool gen_is_reserved(const char *s, size_t n);
enum gen_name_err gen_check_ident(const char *s, size_t max);
enum gen_name_err gen_check_library(const char *s);
enum gen_name_err gen_check_header(const char *s);
enum gen_name_err gen_check_version(const char *s);
enum gen_name_err gen_check_symbol(const char *s);
enum gen_name_err gen_check_display(const char *s, size_t max);
const char *gen_name_err_str(enum gen_name_err e);

#endif /* GEN_IDENT_H */
