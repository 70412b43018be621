/* SPDX-License-Identifier: MIT */
/*
 * spec_ident.h - lexical checks on the strings of a spec.
 *
 * Every string a spec contributes to the generated C passes one of these
 * checks (or the type grammar in spec_ctype.h) first: that is what keeps
 * something like `int); system("id"); //` or a newline plus `#define` from
 * ever reaching the compiler.
 */
#ifndef SPEC_IDENT_H
#define SPEC_IDENT_H

#include <stdbool.h>
#include <stddef.h>

/* Why a string was refused; SPEC_NAME_OK when it was accepted. */
enum spec_name_err {
	SPEC_NAME_OK,
	SPEC_NAME_EMPTY,
	SPEC_NAME_SYNTAX,   /* not an identifier / a character outside the allow-list */
	SPEC_NAME_KEYWORD,  /* a C (or GNU C) keyword */
	SPEC_NAME_RESERVED, /* starts with apiprof_, which the generated code uses */
	SPEC_NAME_TOO_LONG,
	SPEC_NAME_DOTDOT,       /* a header path with ".." */
	SPEC_NAME_DASH,         /* a header path starting with '-' */
	SPEC_NAME_RELATIVE,     /* an include directory that is not absolute */
	SPEC_NAME_UNNORMALIZED, /* ... with an empty, "." or ".." component or a trailing '/' */
};

bool spec_is_keyword(const char *s, size_t n);
bool spec_is_reserved(const char *s, size_t n);
enum spec_name_err spec_check_ident(const char *s, size_t max);
enum spec_name_err spec_check_library(const char *s);
enum spec_name_err spec_check_header(const char *s);
enum spec_name_err spec_check_version(const char *s);
/* An "include_dirs" entry: an absolute, normalized path of safe characters. */
enum spec_name_err spec_check_include_dir(const char *s);
/* A "defines" entry: NAME or NAME=VALUE, an identifier and [A-Za-z0-9_]*. */
enum spec_name_err spec_check_define(const char *s);
enum spec_name_err spec_check_symbol(const char *s);
enum spec_name_err spec_check_display(const char *s, size_t max);
const char *spec_name_err_str(enum spec_name_err e);

#endif /* SPEC_IDENT_H */
