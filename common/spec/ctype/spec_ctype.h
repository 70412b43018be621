/* SPDX-License-Identifier: MIT */
/*
 * spec_ctype.h - C type names as a spec spells them.
 *
 * A type string is tokenized and parsed as a C type-name (a specifier and
 * qualifier list plus an abstract declarator), then printed back from its
 * tokens with a declarator name spliced in at the right place:
 *
 *	"int (*)(void *, int)" + "cb"  ->  "int (*cb)(void *, int)"
 *	"char [16]"            + "buf" ->  "char buf[16]"
 *
 * Only identifiers, keywords, integers, `*` `(` `)` `,` `[` `]` and `...`
 * exist in this language, and parentheses are always balanced, so a type
 * that parses cannot end the declaration it is printed into.
 */
#ifndef SPEC_CTYPE_H
#define SPEC_CTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec_buf.h"

/* The outermost type constructor: what the declared entity *is*. */
enum spec_ckind {
	SPEC_CT_BASE, /* no declarator: a scalar, struct/union/enum or typedef */
	SPEC_CT_POINTER,
	SPEC_CT_ARRAY,
	SPEC_CT_FUNCTION,
};

enum spec_tok_kind {
	SPEC_TOK_WORD,
	SPEC_TOK_INT,
	SPEC_TOK_PUNCT,
	SPEC_TOK_ELLIPSIS,
};

struct spec_tok {
	enum spec_tok_kind kind;
	const char *s;
	size_t n;
	bool decl; /* an identifier naming a declarator (not a type) */
};

struct spec_ctype {
	char *text; /* private copy the tokens point into */
	struct spec_tok *toks;
	size_t ntoks;
	size_t name_pos; /* the declarator name goes before toks[name_pos] */
	enum spec_ckind kind;
	bool is_void;       /* exactly (qualified) void */
	bool is_signed_int; /* a signed integer: a missing function returns -1 */
	/* May be an integer: no pointer, array, function, void, floating
	 * type, struct, union or enum (a typedef may; the compiler checks it). */
	bool may_be_int;
	bool promotes;  /* char, short, _Bool or float: va_arg cannot read it */
	bool simple;    /* no parentheses or brackets */
	bool uses_bool; /* spells `bool`, which needs <stdbool.h> */
};

struct spec_ctype_err {
	size_t offset; /* byte offset into the type string */
	char msg[160];
};

struct spec_ctype *spec_ctype_parse(const char *s, struct spec_ctype_err *err);
void spec_ctype_free(struct spec_ctype *t);
void spec_ctype_format(const struct spec_ctype *t, const char *name, struct spec_buf *out);

/* Internal to spec_ctype*.c: the tokenizer. */
int spec_ctype_lex(const char *text, struct spec_tok **toks, size_t *ntoks,
                   struct spec_ctype_err *err);
void spec_ctype_fail(struct spec_ctype_err *err, size_t offset, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif /* SPEC_CTYPE_H */
