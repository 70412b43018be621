// SPDX-License-Identifier: MIT
/*
 * spec_ident.c - identifiers, keywords and the allow-lists of spec strings.
 */
#include <string.h>
#include <strings.h>

#include "spec_ident.h"

#define SPEC_LIBRARY_MAX 255
#define SPEC_HEADER_MAX  255
#define SPEC_VERSION_MAX 255
#define SPEC_SYMBOL_MAX  1024
#define SPEC_INCDIR_MAX  1024
#define SPEC_DEFINE_MAX  255 /* a define's value */

/* C11 keywords, the C23 ones a gnu11 compiler may already treat specially,
 * and the GNU spellings that would let a "type" smuggle in attributes or
 * assembly. */
static const char *const spec_keywords[] = {
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "_Alignas",
        "_Alignof",
        "_Atomic",
        "_Bool",
        "_Complex",
        "_Generic",
        "_Imaginary",
        "_Noreturn",
        "_Static_assert",
        "_Thread_local",
        "_Pragma",
        "bool",
        "true",
        "false",
        "alignas",
        "alignof",
        "constexpr",
        "nullptr",
        "static_assert",
        "thread_local",
        "typeof",
        "typeof_unqual",
        "asm",
        "__asm",
        "__asm__",
        "__attribute",
        "__attribute__",
        "__typeof",
        "__typeof__",
        "__extension__",
        "__inline",
        "__inline__",
        "__restrict",
        "__restrict__",
        "__const",
        "__volatile",
        "__volatile__",
        "__signed",
        "__signed__",
        "__label__",
        "__builtin_va_arg",
        "__builtin_offsetof",
        "__declspec",
        "defined",
};

bool spec_is_keyword(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof spec_keywords / sizeof spec_keywords[0]; i++)
		if (strlen(spec_keywords[i]) == n && memcmp(spec_keywords[i], s, n) == 0)
			return true;
	return false;
}

/* The generated code names its own things apiprof_* / APIPROF_*; a spec
 * identifier with that prefix could collide with (or redefine the meaning
 * of) one of them. */
bool spec_is_reserved(const char *s, size_t n)
{
	return n >= 8 && strncasecmp(s, "apiprof_", 8) == 0;
}

static bool spec_is_ident_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	return !first && c >= '0' && c <= '9';
}

enum spec_name_err spec_check_ident(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0)
		return SPEC_NAME_EMPTY;
	for (size_t i = 0; i < n; i++)
		if (!spec_is_ident_char(s[i], i == 0))
			return SPEC_NAME_SYNTAX;
	if (n > max)
		return SPEC_NAME_TOO_LONG;
	if (spec_is_keyword(s, n))
		return SPEC_NAME_KEYWORD;
	if (spec_is_reserved(s, n))
		return SPEC_NAME_RESERVED;
	return SPEC_NAME_OK;
}

static bool spec_all_in(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!spec_is_ident_char(*s, false) && strchr(extra, *s) == NULL)
			return false;
	return true;
}

static enum spec_name_err spec_check_set(const char *s, const char *extra, size_t max)
{
	if (*s == '\0')
		return SPEC_NAME_EMPTY;
	if (!spec_all_in(s, extra))
		return SPEC_NAME_SYNTAX;
	if (strlen(s) > max)
		return SPEC_NAME_TOO_LONG;
	return SPEC_NAME_OK;
}

enum spec_name_err spec_check_library(const char *s)
{
	return spec_check_set(s, ".+-", SPEC_LIBRARY_MAX);
}

enum spec_name_err spec_check_header(const char *s)
{
	enum spec_name_err e = spec_check_set(s, "./+-", SPEC_HEADER_MAX);

	if (e != SPEC_NAME_OK)
		return e;
	if (strstr(s, "..") != NULL)
		return SPEC_NAME_DOTDOT;
	if (s[0] == '-')
		return SPEC_NAME_DASH;
	return SPEC_NAME_OK;
}

/* Whether absolute path s has only real names as components: no empty
 * one (`//`, a trailing '/'), no "." and no "..". */
static bool spec_normalized(const char *s)
{
	if (strcmp(s, "/") == 0)
		return true;
	while (*s == '/') {
		size_t n = strcspn(s + 1, "/");
		if (n == 0 || (n == 1 && s[1] == '.') || (n == 2 && strncmp(s + 1, "..", 2) == 0))
			return false;
		s += 1 + n;
	}
	return true;
}

/* It becomes one compiler argument, "-IDIR", run without a shell: the
 * character set keeps it from being read as anything but a directory, and
 * an absolute, normalized path means the same wherever the spec is built. */
enum spec_name_err spec_check_include_dir(const char *s)
{
	enum spec_name_err e = spec_check_set(s, "/.+-", SPEC_INCDIR_MAX);

	if (e != SPEC_NAME_OK)
		return e;
	if (s[0] != '/')
		return SPEC_NAME_RELATIVE;
	return spec_normalized(s) ? SPEC_NAME_OK : SPEC_NAME_UNNORMALIZED;
}

/* It becomes a `#define NAME VALUE` line before the headers: the name is
 * an identifier that is neither a keyword nor the generated code's prefix,
 * the value a single token of letters, digits and '_' (a number such as
 * 200809L, or a name), so nothing but that one macro can be defined. */
enum spec_name_err spec_check_define(const char *s)
{
	const char *eq = strchr(s, '=');
	size_t n = eq ? (size_t)(eq - s) : strlen(s);
	char name[SPEC_DEFINE_MAX + 1];

	if (n > SPEC_DEFINE_MAX)
		return SPEC_NAME_TOO_LONG;
	memcpy(name, s, n);
	name[n] = '\0';
	enum spec_name_err e = spec_check_ident(name, SPEC_DEFINE_MAX);
	if (e == SPEC_NAME_EMPTY && *s != '\0')
		return SPEC_NAME_SYNTAX; /* "=1" */
	if (e != SPEC_NAME_OK || eq == NULL)
		return e;
	if (!spec_all_in(eq + 1, ""))
		return SPEC_NAME_SYNTAX;
	return strlen(eq + 1) > SPEC_DEFINE_MAX ? SPEC_NAME_TOO_LONG : SPEC_NAME_OK;
}

enum spec_name_err spec_check_version(const char *s)
{
	return spec_check_set(s, ".", SPEC_VERSION_MAX);
}

/* Linker names also allow '$' and '.', but must not start with a digit:
 * the assembler would read the label as a number. */
enum spec_name_err spec_check_symbol(const char *s)
{
	enum spec_name_err e = spec_check_set(s, "$.", SPEC_SYMBOL_MAX);

	if (e == SPEC_NAME_OK && !spec_is_ident_char(s[0], true))
		return SPEC_NAME_SYNTAX;
	if (e == SPEC_NAME_OK && spec_is_reserved(s, strlen(s)))
		return SPEC_NAME_RESERVED;
	return e;
}

/* The display name of a function with a "symbol" (C++ operators): it is
 * printed inside a C string and a C comment, so no quote, backslash or
 * slash (no comment end) can be in it, and it must start like a name. */
enum spec_name_err spec_check_display(const char *s, size_t max)
{
	enum spec_name_err e = spec_check_set(s, " ()*&,:<>[]~", max);

	if (e == SPEC_NAME_OK && !spec_is_ident_char(s[0], true))
		return SPEC_NAME_SYNTAX;
	if (e == SPEC_NAME_OK && spec_is_reserved(s, strlen(s)))
		return SPEC_NAME_RESERVED;
	return e;
}

const char *spec_name_err_str(enum spec_name_err e)
{
	switch (e) {
	case SPEC_NAME_OK:
		return "is valid";
	case SPEC_NAME_EMPTY:
		return "must not be empty";
	case SPEC_NAME_SYNTAX:
		return "contains a character that is not allowed";
	case SPEC_NAME_KEYWORD:
		return "is a C keyword";
	case SPEC_NAME_RESERVED:
		return "uses the prefix apiprof_, which is reserved for generated code";
	case SPEC_NAME_TOO_LONG:
		return "is too long";
	case SPEC_NAME_DOTDOT:
		return "must not contain \"..\"";
	case SPEC_NAME_DASH:
		return "must not start with '-'";
	case SPEC_NAME_RELATIVE:
		return "must be an absolute path";
	case SPEC_NAME_UNNORMALIZED:
		return "must be a normalized path (no empty, \".\" or \"..\" component, no "
		       "trailing '/')";
	}
	return "is invalid";
}
