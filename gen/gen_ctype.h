/* SPDX-License-Identifier: MIT */
/*
 * gen_ctype.h - C type names as a spec spells them.
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
#ifndef GEN_CTYPE_H
#define GEN_CTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "gen_buf.h"

/* The outermost type constructor: what the declared entity *is*. */
enum gen_ckind {
	GEN_CT_BASE, /* no declarator: a scalar, struct/union/enum or typedef */
	GEN_CT_POINTER,
	GEN_CT_ARRAY,
	GEN_CT_FUNCTION,
};

enum gen_tok_kind {
	GEN_TOK_WORD,
	GEN_TOK_INT,
	GEN_TOK_PUNCT,
	GEN_TOK_ELLIPSIS,
};

struct gen_tok {
	enum gen_tok_kind kind;
	const char *s;
	size_t n;
	bool decl; /* an identifier naming a declarator (not a type) */
};

struct gen_ctype {
	char *text; /* private copy the tokens point into */
	struct gen_tok *toks;
	size_t ntoks;
	size_t name_pos; /* the declarator name goes before toks[name_pos] */
	enum gen_ckind kind;
	bool is_void;       /* exactly (qualified) void */
	bool is_signed_int; /* a signed integer: a missing function returns -1 */
	bool promotes;      /* char, short, _Bool or float: va_arg cannot read it */
	bool simple;        /* no parentheses or brackets */
	bool uses_bool;     /* spells `bool`, which needs <stdbool.h> */
};

struct gen_ctype_err {
	size_t offset; /* byte offset into the type string */
	char msg[160];
};

struct gen_ctype *gen_ctype_parse(const char *s, struct gen_ctype_err *err);
void gen_ctype_free(struct gen_ctype *t);
void gen_ctype_format(const struct gen_ctype *t, const char *name, struct gen_buf *out);

/* Internal to gen_ctype*.c: the tokenizer. */
int gen_ctype_lex(const char *text, struct gen_tok **toks, size_t *ntoks,
                  struct gen_ctype_err *err);
void gen_ctype_fail(struct gen_ctype_err *err, size_t offset, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#endif /* GEN_CTYPE_H */
