// SPDX-License-Identifier: MIT
/*
 * spec_ctype.c - a recursive-descent parser for C type-names.
 *
 *   type-name      := specifiers declarator
 *   specifiers     := ( qualifier | builtin | struct/union/enum ID | typedef-ID )+
 *   declarator     := ( '*' qualifier* )* direct suffix*
 *   direct         := '(' declarator ')' | ID (inside parameter lists only) | empty
 *   suffix         := '[' INT? ']' | '(' params ')'
 *   params         := empty | 'void' | type-name ( ',' type-name )* ( ',' '...' )?
 *
 * A typedef name is only a specifier while no other type specifier was seen
 * (the rule C itself uses), which is what tells `size_t n` apart from
 * `size_t`.  Beyond the grammar the parser checks the combination of
 * builtin keywords, so `long char` is refused here rather than by the
 * compiler, and records the few facts the emitter needs.
 */
#include <stdlib.h>
#include <string.h>

#include "spec_ctype.h"
#include "spec_ident.h"

#define SPEC_CTYPE_MAX_DEPTH 16

enum spec {
	SPEC_S_VOID,
	SPEC_S_CHAR,
	SPEC_S_SHORT,
	SPEC_S_INT,
	SPEC_S_LONG,
	SPEC_S_FLOAT,
	SPEC_S_DOUBLE,
	SPEC_S_SIGNED,
	SPEC_S_UNSIGNED,
	SPEC_S_BOOL,
	SPEC_S_COMPLEX,
	SPEC_S_TAG,
	SPEC_S_TYPEDEF,
	SPEC_S_COUNT,
};

static const char *const spec_tspec_words[SPEC_S_TAG] = {
        "void",   "char",   "short",    "int",   "long",     "float",
        "double", "signed", "unsigned", "_Bool", "_Complex",
};

/* Typedefs of signed integers common enough in C APIs that a missing
 * function of that return type should fail with -1 like the real one. */
static const char *const spec_signed_typedefs[] = {
        "ssize_t",     "off_t",     "off64_t",   "loff_t",  "pid_t",   "ptrdiff_t",    "intptr_t",
        "intmax_t",    "int8_t",    "int16_t",   "int32_t", "int64_t", "time_t",       "clock_t",
        "suseconds_t", "blkcnt_t",  "blksize_t", "key_t",   "mqd_t",   "sig_atomic_t", "__ssize_t",
        "__off_t",     "__off64_t", "__pid_t",   "wchar_t",
};

struct spec_tspecs {
	int count[SPEC_S_COUNT];
	const struct spec_tok *tdef;
};

struct spec_decl {
	size_t name_pos;
	enum spec_ckind kind;
	bool nonempty;
};

struct spec_parser {
	struct spec_tok *t;
	size_t n;
	size_t i;
	int depth;
	const char *text;
	struct spec_ctype_err *err;
	bool uses_bool;
};

static int spec_parse_type_name(struct spec_parser *p, bool nested, struct spec_tspecs *sp,
                                struct spec_decl *d);

static const struct spec_tok *spec_peek(const struct spec_parser *p, size_t ahead)
{
	return p->i + ahead < p->n ? &p->t[p->i + ahead] : NULL;
}

static bool spec_is_punct(const struct spec_tok *t, char c)
{
	return t != NULL && t->kind == SPEC_TOK_PUNCT && t->s[0] == c;
}

static bool spec_is_word(const struct spec_tok *t, const char *w)
{
	return t != NULL && t->kind == SPEC_TOK_WORD && t->n == strlen(w) &&
	       memcmp(t->s, w, t->n) == 0;
}

static size_t spec_offset(const struct spec_parser *p)
{
	const struct spec_tok *t = spec_peek(p, 0);

	return t ? (size_t)(t->s - p->text) : strlen(p->text);
}

/* Reports "expected X" at the current token (or at the end). */
static int spec_expected(struct spec_parser *p, const char *what)
{
	const struct spec_tok *t = spec_peek(p, 0);

	if (t == NULL)
		spec_ctype_fail(p->err, spec_offset(p), "type ends where %s was expected", what);
	else
		spec_ctype_fail(p->err, spec_offset(p), "expected %s before '%.*s' in type", what,
		                (int)t->n, t->s);
	return -1;
}

static int spec_expect(struct spec_parser *p, char c)
{
	char what[4] = {'\'', c, '\'', '\0'};

	if (!spec_is_punct(spec_peek(p, 0), c))
		return spec_expected(p, what);
	p->i++;
	return 0;
}

static bool spec_is_qualifier(const struct spec_tok *t)
{
	return spec_is_word(t, "const") || spec_is_word(t, "volatile") ||
	       spec_is_word(t, "restrict");
}

static int spec_builtin_index(const struct spec_tok *t)
{
	if (spec_is_word(t, "bool"))
		return SPEC_S_BOOL;
	for (int k = 0; k < SPEC_S_TAG; k++)
		if (spec_is_word(t, spec_tspec_words[k]))
			return k;
	return -1;
}

static bool spec_is_tag_word(const struct spec_tok *t)
{
	return spec_is_word(t, "struct") || spec_is_word(t, "union") || spec_is_word(t, "enum");
}

/* An identifier the spec may use as a name (tag, typedef, declarator). */
static int spec_check_name_tok(struct spec_parser *p, const struct spec_tok *t, const char *what)
{
	if (t == NULL || t->kind != SPEC_TOK_WORD || spec_is_keyword(t->s, t->n))
		return spec_expected(p, what);
	if (spec_is_reserved(t->s, t->n)) {
		spec_ctype_fail(
		        p->err, spec_offset(p),
		        "'%.*s' uses the prefix apiprof_, which is reserved for generated code",
		        (int)t->n, t->s);
		return -1;
	}
	return 0;
}

static bool spec_any_type_spec(const struct spec_tspecs *sp)
{
	for (int k = 0; k < SPEC_S_COUNT; k++)
		if (sp->count[k])
			return true;
	return false;
}

/* Consumes one specifier or qualifier; 1 when there was none to take. */
static int spec_parse_one_spec(struct spec_parser *p, struct spec_tspecs *sp)
{
	const struct spec_tok *t = spec_peek(p, 0);
	int k = spec_builtin_index(t);

	if (t == NULL || t->kind != SPEC_TOK_WORD)
		return 1;
	if (spec_is_qualifier(t)) {
		p->i++;
		return 0;
	}
	if (k >= 0) {
		sp->count[k]++;
		p->uses_bool |= spec_is_word(t, "bool");
		p->i++;
		return 0;
	}
	if (spec_is_tag_word(t)) {
		p->i++;
		if (spec_check_name_tok(p, spec_peek(p, 0), "a tag name") < 0)
			return -1;
		sp->count[SPEC_S_TAG]++;
		p->i++;
		return 0;
	}
	if (spec_is_keyword(t->s, t->n)) {
		spec_ctype_fail(p->err, spec_offset(p), "keyword '%.*s' is not allowed in a type",
		                (int)t->n, t->s);
		return -1;
	}
	if (spec_any_type_spec(sp))
		return 1; /* an identifier after a complete type: a declarator name */
	if (spec_check_name_tok(p, t, "a type name") < 0)
		return -1;
	sp->count[SPEC_S_TYPEDEF]++;
	sp->tdef = t;
	p->i++;
	return 0;
}

static int spec_sum(const struct spec_tspecs *sp, int skip1, int skip2)
{
	int s = 0;

	for (int k = 0; k < SPEC_S_COUNT; k++)
		if (k != skip1 && k != skip2)
			s += sp->count[k];
	return s;
}

/* Which builtin keyword combinations are C types (C11 6.7.2p2). */
static const char *spec_check_combination(const struct spec_tspecs *sp)
{
	const int *c = sp->count;

	if (c[SPEC_S_TAG] + c[SPEC_S_TYPEDEF] > 0)
		return spec_sum(sp, SPEC_S_COUNT, SPEC_S_COUNT) == 1 ? NULL : "too many type names";
	if (c[SPEC_S_VOID] || c[SPEC_S_BOOL])
		return spec_sum(sp, SPEC_S_COUNT, SPEC_S_COUNT) == 1
		               ? NULL
		               : "void or bool combined with another type";
	if (c[SPEC_S_LONG] > 2)
		return "too many 'long'";
	if (c[SPEC_S_SIGNED] + c[SPEC_S_UNSIGNED] > 1)
		return "more than one of 'signed' and 'unsigned'";
	if (c[SPEC_S_CHAR] > 1 || c[SPEC_S_SHORT] > 1 || c[SPEC_S_INT] > 1 || c[SPEC_S_FLOAT] > 1 ||
	    c[SPEC_S_DOUBLE] > 1 || c[SPEC_S_COMPLEX] > 1)
		return "a type keyword is repeated";
	if (c[SPEC_S_FLOAT] || c[SPEC_S_DOUBLE] || c[SPEC_S_COMPLEX]) {
		if (c[SPEC_S_FLOAT] + c[SPEC_S_DOUBLE] != 1 ||
		    spec_sum(sp, SPEC_S_COMPLEX, SPEC_S_LONG) != 1 ||
		    c[SPEC_S_LONG] > (c[SPEC_S_DOUBLE] ? 1 : 0))
			return "invalid combination of floating type keywords";
		return NULL;
	}
	if (c[SPEC_S_CHAR] && (c[SPEC_S_SHORT] || c[SPEC_S_LONG] || c[SPEC_S_INT]))
		return "invalid combination with 'char'";
	if (c[SPEC_S_SHORT] && c[SPEC_S_LONG])
		return "both 'short' and 'long'";
	return NULL;
}

static int spec_parse_specs(struct spec_parser *p, struct spec_tspecs *sp)
{
	size_t start = spec_offset(p);
	int r;

	memset(sp, 0, sizeof *sp);
	while ((r = spec_parse_one_spec(p, sp)) == 0)
		;
	if (r < 0)
		return -1;
	if (!spec_any_type_spec(sp))
		return spec_expected(p, "a type");
	const char *bad = spec_check_combination(sp);
	if (bad != NULL) {
		spec_ctype_fail(p->err, start, "%s in type", bad);
		return -1;
	}
	return 0;
}

static bool spec_is_void(const struct spec_tspecs *sp, const struct spec_decl *d)
{
	return sp->count[SPEC_S_VOID] && d->kind == SPEC_CT_BASE;
}

/* '(' params ')' of a function declarator; the '(' is current. */
static int spec_parse_params(struct spec_parser *p)
{
	struct spec_tspecs sp;
	struct spec_decl d;
	size_t np = 0;

	p->i++;
	if (spec_is_punct(spec_peek(p, 0), ')') ||
	    (spec_is_word(spec_peek(p, 0), "void") && spec_is_punct(spec_peek(p, 1), ')'))) {
		p->i += spec_is_punct(spec_peek(p, 0), ')') ? 1 : 2;
		return 0;
	}
	for (;; np++) {
		if (np > 0 && spec_peek(p, 0) != NULL &&
		    spec_peek(p, 0)->kind == SPEC_TOK_ELLIPSIS) {
			p->i++;
			return spec_expect(p, ')');
		}
		if (spec_parse_type_name(p, true, &sp, &d) < 0)
			return -1;
		if (spec_is_void(&sp, &d)) {
			spec_ctype_fail(p->err, spec_offset(p),
			                "a parameter cannot have type void");
			return -1;
		}
		if (!spec_is_punct(spec_peek(p, 0), ','))
			return spec_expect(p, ')');
		p->i++;
	}
}

static int spec_parse_suffix(struct spec_parser *p, enum spec_ckind *kind)
{
	if (spec_is_punct(spec_peek(p, 0), '(')) {
		*kind = SPEC_CT_FUNCTION;
		return spec_parse_params(p);
	}
	*kind = SPEC_CT_ARRAY;
	p->i++;
	if (spec_peek(p, 0) != NULL && spec_peek(p, 0)->kind == SPEC_TOK_INT)
		p->i++;
	return spec_expect(p, ']');
}

static int spec_parse_declarator(struct spec_parser *p, bool nested, struct spec_decl *d);

/* '(' declarator ')': a '(' followed by what can only start a declarator. */
static bool spec_at_group(const struct spec_parser *p)
{
	const struct spec_tok *t = spec_peek(p, 1);

	return spec_is_punct(spec_peek(p, 0), '(') &&
	       (spec_is_punct(t, '*') || spec_is_punct(t, '(') || spec_is_punct(t, '['));
}

static int spec_parse_group(struct spec_parser *p, bool nested, struct spec_decl *d)
{
	p->i++;
	if (spec_parse_declarator(p, nested, d) < 0)
		return -1;
	return spec_expect(p, ')');
}

static int spec_parse_direct(struct spec_parser *p, bool nested, struct spec_decl *d)
{
	const struct spec_tok *t = spec_peek(p, 0);

	d->name_pos = p->i;
	if (spec_at_group(p))
		return spec_parse_group(p, nested, d);
	if (nested && t != NULL && t->kind == SPEC_TOK_WORD) {
		if (spec_check_name_tok(p, t, "a parameter name") < 0)
			return -1;
		p->t[p->i++].decl = true;
		d->nonempty = true;
	}
	return 0;
}

static int spec_parse_declarator(struct spec_parser *p, bool nested, struct spec_decl *d)
{
	enum spec_ckind first = SPEC_CT_BASE;
	bool pointer = false;

	if (++p->depth > SPEC_CTYPE_MAX_DEPTH) {
		spec_ctype_fail(p->err, spec_offset(p), "type is nested too deeply");
		return -1;
	}
	memset(d, 0, sizeof *d);
	for (; spec_is_punct(spec_peek(p, 0), '*'); pointer = true)
		for (p->i++; spec_is_qualifier(spec_peek(p, 0));)
			p->i++;
	bool group = spec_at_group(p);
	if (spec_parse_direct(p, nested, d) < 0)
		return -1;
	while (spec_is_punct(spec_peek(p, 0), '(') || spec_is_punct(spec_peek(p, 0), '[')) {
		enum spec_ckind k;

		if (spec_parse_suffix(p, &k) < 0)
			return -1;
		first = first == SPEC_CT_BASE ? k : first;
	}
	/* The derivation closest to the name is the outermost constructor. */
	if (!group)
		d->kind = first != SPEC_CT_BASE ? first : pointer ? SPEC_CT_POINTER : SPEC_CT_BASE;
	d->nonempty |= pointer || group || first != SPEC_CT_BASE;
	p->depth--;
	return 0;
}

static int spec_parse_type_name(struct spec_parser *p, bool nested, struct spec_tspecs *sp,
                                struct spec_decl *d)
{
	if (spec_parse_specs(p, sp) < 0)
		return -1;
	return spec_parse_declarator(p, nested, d);
}

/* The usual mistake here is a name inside the type: say where it goes. */
static void spec_trailing(struct spec_parser *p)
{
	const struct spec_tok *t = spec_peek(p, 0);

	if (t->kind == SPEC_TOK_WORD && !spec_is_keyword(t->s, t->n))
		spec_ctype_fail(p->err, spec_offset(p),
		                "unexpected name '%.*s' after the type (a parameter's name goes in "
		                "\"name\")",
		                (int)t->n, t->s);
	else
		spec_expected(p, "the end of the type");
}

static bool spec_in_list(const struct spec_tok *t, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (spec_is_word(t, list[i]))
			return true;
	return false;
}

static bool spec_signed_int(const struct spec_tspecs *sp)
{
	const int *c = sp->count;

	if (sp->tdef != NULL)
		return spec_in_list(sp->tdef, spec_signed_typedefs,
		                    sizeof spec_signed_typedefs / sizeof spec_signed_typedefs[0]);
	if (c[SPEC_S_UNSIGNED] || c[SPEC_S_FLOAT] || c[SPEC_S_DOUBLE] || c[SPEC_S_VOID] ||
	    c[SPEC_S_BOOL] || c[SPEC_S_TAG])
		return false;
	/* Plain char has implementation-defined signedness. */
	return c[SPEC_S_CHAR] ? c[SPEC_S_SIGNED] > 0 : true;
}

static void spec_fill_facts(struct spec_ctype *t, const struct spec_tspecs *sp,
                            const struct spec_decl *d)
{
	const int *c = sp->count;

	t->name_pos = d->name_pos;
	t->kind = d->kind;
	t->is_void = spec_is_void(sp, d);
	t->is_signed_int = d->kind == SPEC_CT_BASE && spec_signed_int(sp);
	t->may_be_int = d->kind == SPEC_CT_BASE && !c[SPEC_S_VOID] && !c[SPEC_S_FLOAT] &&
	                !c[SPEC_S_DOUBLE] && !c[SPEC_S_COMPLEX] && !c[SPEC_S_TAG];
	t->promotes =
	        d->kind == SPEC_CT_BASE && (c[SPEC_S_CHAR] || c[SPEC_S_SHORT] || c[SPEC_S_BOOL] ||
	                                    (c[SPEC_S_FLOAT] && !c[SPEC_S_COMPLEX]));
	t->simple = true;
	for (size_t i = 0; i < t->ntoks; i++)
		if (spec_is_punct(&t->toks[i], '(') || spec_is_punct(&t->toks[i], '['))
			t->simple = false;
}

struct spec_ctype *spec_ctype_parse(const char *s, struct spec_ctype_err *err)
{
	struct spec_ctype *t = spec_xcalloc(1, sizeof *t);
	struct spec_parser p = {.err = err};
	struct spec_tspecs sp;
	struct spec_decl d;

	t->text = spec_xstrdup(s);
	p.text = t->text;
	if (spec_ctype_lex(t->text, &t->toks, &t->ntoks, err) < 0)
		goto fail;
	if (t->ntoks == 0) {
		spec_ctype_fail(err, 0, "type is empty");
		goto fail;
	}
	p.t = t->toks;
	p.n = t->ntoks;
	if (spec_parse_type_name(&p, false, &sp, &d) < 0)
		goto fail;
	if (p.i != p.n) {
		spec_trailing(&p);
		goto fail;
	}
	spec_fill_facts(t, &sp, &d);
	t->uses_bool = p.uses_bool;
	return t;
fail:
	spec_ctype_free(t);
	return NULL;
}

void spec_ctype_free(struct spec_ctype *t)
{
	if (t == NULL)
		return;
	free(t->toks);
	free(t->text);
	free(t);
}
