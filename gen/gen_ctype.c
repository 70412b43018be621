// SPDX-License-Identifier: MIT
/*
 * gen_ctype.c - a recursive-descent parser for C type-names.
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

#include "gen_ctype.h"
#include "gen_ident.h"

#define GEN_CTYPE_MAX_DEPTH 16

enum gen_spec {
	GEN_S_VOID,
	GEN_S_CHAR,
	GEN_S_SHORT,
	GEN_S_INT,
	GEN_S_LONG,
	GEN_S_FLOAT,
	GEN_S_DOUBLE,
	GEN_S_SIGNED,
	GEN_S_UNSIGNED,
	GEN_S_BOOL,
	GEN_S_COMPLEX,
	GEN_S_TAG,
	GEN_S_TYPEDEF,
	GEN_S_COUNT,
};

static const char *const gen_spec_words[GEN_S_TAG] = {
        "void",   "char",   "short",    "int",   "long",     "float",
        "double", "signed", "unsigned", "_Bool", "_Complex",
};

/* Typedefs of signed integers common enough in C APIs that a missing
 * function of that return type should fail with -1 like the real one. */
static const char *const gen_signed_typedefs[] = {
        "ssize_t",     "off_t",     "off64_t",   "loff_t",  "pid_t",   "ptrdiff_t",    "intptr_t",
        "intmax_t",    "int8_t",    "int16_t",   "int32_t", "int64_t", "time_t",       "clock_t",
        "suseconds_t", "blkcnt_t",  "blksize_t", "key_t",   "mqd_t",   "sig_atomic_t", "__ssize_t",
        "__off_t",     "__off64_t", "__pid_t",   "wchar_t",
};

struct gen_specs {
	int count[GEN_S_COUNT];
	const struct gen_tok *tdef;
};

struct gen_decl {
	size_t name_pos;
	enum gen_ckind kind;
	bool nonempty;
};

struct gen_parser {
	struct gen_tok *t;
	size_t n;
	size_t i;
	int depth;
	const char *text;
	struct gen_ctype_err *err;
	bool uses_bool;
};

static int gen_parse_type_name(struct gen_parser *p, bool nested, struct gen_specs *sp,
                               struct gen_decl *d);

static const struct gen_tok *gen_peek(const struct gen_parser *p, size_t ahead)
{
	return p->i + ahead < p->n ? &p->t[p->i + ahead] : NULL;
}

static bool gen_is_punct(const struct gen_tok *t, char c)
{
	return t != NULL && t->kind == GEN_TOK_PUNCT && t->s[0] == c;
}

static bool gen_is_word(const struct gen_tok *t, const char *w)
{
	return t != NULL && t->kind == GEN_TOK_WORD && t->n == strlen(w) &&
	       memcmp(t->s, w, t->n) == 0;
}

static size_t gen_offset(const struct gen_parser *p)
{
	const struct gen_tok *t = gen_peek(p, 0);

	return t ? (size_t)(t->s - p->text) : strlen(p->text);
}

/* Reports "expected X" at the current token (or at the end). */
static int gen_expected(struct gen_parser *p, const char *what)
{
	const struct gen_tok *t = gen_peek(p, 0);

	if (t == NULL)
		gen_ctype_fail(p->err, gen_offset(p), "type ends where %s was expected", what);
	else
		gen_ctype_fail(p->err, gen_offset(p), "expected %s before '%.*s' in type", what,
		               (int)t->n, t->s);
	return -1;
}

static int gen_expect(struct gen_parser *p, char c)
{
	char what[4] = {'\'', c, '\'', '\0'};

	if (!gen_is_punct(gen_peek(p, 0), c))
		return gen_expected(p, what);
	p->i++;
	return 0;
}

static bool gen_is_qualifier(const struct gen_tok *t)
{
	return gen_is_word(t, "const") || gen_is_word(t, "volatile") || gen_is_word(t, "restrict");
}

static int gen_builtin_index(const struct gen_tok *t)
{
	int k;

	if (gen_is_word(t, "bool"))
		return GEN_S_BOOL;
	for (k = 0; k < GEN_S_TAG; k++)
		if (gen_is_word(t, gen_spec_words[k]))
			return k;
	return -1;
}

static bool gen_is_tag_word(const struct gen_tok *t)
{
	return gen_is_word(t, "struct") || gen_is_word(t, "union") || gen_is_word(t, "enum");
}

/* An identifier the spec may use as a name (tag, typedef, declarator). */
static int gen_check_name_tok(struct gen_parser *p, const struct gen_tok *t, const char *what)
{
	if (t == NULL || t->kind != GEN_TOK_WORD || gen_is_keyword(t->s, t->n))
		return gen_expected(p, what);
	if (gen_is_reserved(t->s, t->n)) {
		gen_ctype_fail(
		        p->err, gen_offset(p),
		        "'%.*s' uses the prefix apiprof_, which is reserved for generated code",
		        (int)t->n, t->s);
		return -1;
	}
	return 0;
}

static bool gen_any_type_spec(const struct gen_specs *sp)
{
	int k;

	for (k = 0; k < GEN_S_COUNT; k++)
		if (sp->count[k])
			return true;
	return false;
}

/* Consumes one specifier or qualifier; 1 when there was none to take. */
static int gen_parse_one_spec(struct gen_parser *p, struct gen_specs *sp)
{
	const struct gen_tok *t = gen_peek(p, 0);
	int k = gen_builtin_index(t);

	if (t == NULL || t->kind != GEN_TOK_WORD)
		return 1;
	if (gen_is_qualifier(t)) {
		p->i++;
		return 0;
	}
	if (k >= 0) {
		sp->count[k]++;
		p->uses_bool |= gen_is_word(t, "bool");
		p->i++;
		return 0;
	}
	if (gen_is_tag_word(t)) {
		p->i++;
		if (gen_check_name_tok(p, gen_peek(p, 0), "a tag name") < 0)
			return -1;
		sp->count[GEN_S_TAG]++;
		p->i++;
		return 0;
	}
	if (gen_is_keyword(t->s, t->n)) {
		gen_ctype_fail(p->err, gen_offset(p), "keyword '%.*s' is not allowed in a type",
		               (int)t->n, t->s);
		return -1;
	}
	if (gen_any_type_spec(sp))
		return 1; /* an identifier after a complete type: a declarator name */
	if (gen_check_name_tok(p, t, "a type name") < 0)
		return -1;
	sp->count[GEN_S_TYPEDEF]++;
	sp->tdef = t;
	p->i++;
	return 0;
}

static int gen_sum(const struct gen_specs *sp, int skip1, int skip2)
{
	int k, s = 0;

	for (k = 0; k < GEN_S_COUNT; k++)
		if (k != skip1 && k != skip2)
			s += sp->count[k];
	return s;
}

/* Which builtin keyword combinations are C types (C11 6.7.2p2). */
static const char *gen_check_combination(const struct gen_specs *sp)
{
	const int *c = sp->count;

	if (c[GEN_S_TAG] + c[GEN_S_TYPEDEF] > 0)
		return gen_sum(sp, GEN_S_COUNT, GEN_S_COUNT) == 1 ? NULL : "too many type names";
	if (c[GEN_S_VOID] || c[GEN_S_BOOL])
		return gen_sum(sp, GEN_S_COUNT, GEN_S_COUNT) == 1
		               ? NULL
		               : "void or bool combined with another type";
	if (c[GEN_S_LONG] > 2)
		return "too many 'long'";
	if (c[GEN_S_SIGNED] + c[GEN_S_UNSIGNED] > 1)
		return "more than one of 'signed' and 'unsigned'";
	if (c[GEN_S_CHAR] > 1 || c[GEN_S_SHORT] > 1 || c[GEN_S_INT] > 1 || c[GEN_S_FLOAT] > 1 ||
	    c[GEN_S_DOUBLE] > 1 || c[GEN_S_COMPLEX] > 1)
		return "a type keyword is repeated";
	if (c[GEN_S_FLOAT] || c[GEN_S_DOUBLE] || c[GEN_S_COMPLEX]) {
		if (c[GEN_S_FLOAT] + c[GEN_S_DOUBLE] != 1 ||
		    gen_sum(sp, GEN_S_COMPLEX, GEN_S_LONG) != 1 ||
		    c[GEN_S_LONG] > (c[GEN_S_DOUBLE] ? 1 : 0))
			return "invalid combination of floating type keywords";
		return NULL;
	}
	if (c[GEN_S_CHAR] && (c[GEN_S_SHORT] || c[GEN_S_LONG] || c[GEN_S_INT]))
		return "invalid combination with 'char'";
	if (c[GEN_S_SHORT] && c[GEN_S_LONG])
		return "both 'short' and 'long'";
	return NULL;
}

static int gen_parse_specs(struct gen_parser *p, struct gen_specs *sp)
{
	size_t start = gen_offset(p);
	const char *bad;
	int r;

	memset(sp, 0, sizeof *sp);
	while ((r = gen_parse_one_spec(p, sp)) == 0)
		;
	if (r < 0)
		return -1;
	if (!gen_any_type_spec(sp))
		return gen_expected(p, "a type");
	bad = gen_check_combination(sp);
	if (bad != NULL) {
		gen_ctype_fail(p->err, start, "%s in type", bad);
		return -1;
	}
	return 0;
}

static bool gen_is_void(const struct gen_specs *sp, const struct gen_decl *d)
{
	return sp->count[GEN_S_VOID] && d->kind == GEN_CT_BASE;
}

/* '(' params ')' of a function declarator; the '(' is current. */
static int gen_parse_params(struct gen_parser *p)
{
	struct gen_specs sp;
	struct gen_decl d;
	size_t np = 0;

	p->i++;
	if (gen_is_punct(gen_peek(p, 0), ')') ||
	    (gen_is_word(gen_peek(p, 0), "void") && gen_is_punct(gen_peek(p, 1), ')'))) {
		p->i += gen_is_punct(gen_peek(p, 0), ')') ? 1 : 2;
		return 0;
	}
	for (;; np++) {
		if (np > 0 && gen_peek(p, 0) != NULL && gen_peek(p, 0)->kind == GEN_TOK_ELLIPSIS) {
			p->i++;
			return gen_expect(p, ')');
		}
		if (gen_parse_type_name(p, true, &sp, &d) < 0)
			return -1;
		if (gen_is_void(&sp, &d)) {
			gen_ctype_fail(p->err, gen_offset(p), "a parameter cannot have type void");
			return -1;
		}
		if (!gen_is_punct(gen_peek(p, 0), ','))
			return gen_expect(p, ')');
		p->i++;
	}
}

static int gen_parse_suffix(struct gen_parser *p, enum gen_ckind *kind)
{
	if (gen_is_punct(gen_peek(p, 0), '(')) {
		*kind = GEN_CT_FUNCTION;
		return gen_parse_params(p);
	}
	*kind = GEN_CT_ARRAY;
	p->i++;
	if (gen_peek(p, 0) != NULL && gen_peek(p, 0)->kind == GEN_TOK_INT)
		p->i++;
	return gen_expect(p, ']');
}

static int gen_parse_declarator(struct gen_parser *p, bool nested, struct gen_decl *d);

/* '(' declarator ')': a '(' followed by what can only start a declarator. */
static bool gen_at_group(const struct gen_parser *p)
{
	const struct gen_tok *t = gen_peek(p, 1);

	return gen_is_punct(gen_peek(p, 0), '(') &&
	       (gen_is_punct(t, '*') || gen_is_punct(t, '(') || gen_is_punct(t, '['));
}

static int gen_parse_group(struct gen_parser *p, bool nested, struct gen_decl *d)
{
	p->i++;
	if (gen_parse_declarator(p, nested, d) < 0)
		return -1;
	return gen_expect(p, ')');
}

static int gen_parse_direct(struct gen_parser *p, bool nested, struct gen_decl *d)
{
	const struct gen_tok *t = gen_peek(p, 0);

	d->name_pos = p->i;
	if (gen_at_group(p))
		return gen_parse_group(p, nested, d);
	if (nested && t != NULL && t->kind == GEN_TOK_WORD) {
		if (gen_check_name_tok(p, t, "a parameter name") < 0)
			return -1;
		p->t[p->i++].decl = true;
		d->nonempty = true;
	}
	return 0;
}

static int gen_parse_declarator(struct gen_parser *p, bool nested, struct gen_decl *d)
{
	enum gen_ckind first = GEN_CT_BASE, k;
	bool pointer = false, group;

	if (++p->depth > GEN_CTYPE_MAX_DEPTH) {
		gen_ctype_fail(p->err, gen_offset(p), "type is nested too deeply");
		return -1;
	}
	memset(d, 0, sizeof *d);
	for (; gen_is_punct(gen_peek(p, 0), '*'); pointer = true)
		for (p->i++; gen_is_qualifier(gen_peek(p, 0));)
			p->i++;
	group = gen_at_group(p);
	if (gen_parse_direct(p, nested, d) < 0)
		return -1;
	while (gen_is_punct(gen_peek(p, 0), '(') || gen_is_punct(gen_peek(p, 0), '[')) {
		if (gen_parse_suffix(p, &k) < 0)
			return -1;
		first = first == GEN_CT_BASE ? k : first;
	}
	/* The derivation closest to the name is the outermost constructor. */
	if (!group)
		d->kind = first != GEN_CT_BASE ? first : pointer ? GEN_CT_POINTER : GEN_CT_BASE;
	d->nonempty |= pointer || group || first != GEN_CT_BASE;
	p->depth--;
	return 0;
}

static int gen_parse_type_name(struct gen_parser *p, bool nested, struct gen_specs *sp,
                               struct gen_decl *d)
{
	if (gen_parse_specs(p, sp) < 0)
		return -1;
	return gen_parse_declarator(p, nested, d);
}

/* The usual mistake here is a name inside the type: say where it goes. */
static void gen_trailing(struct gen_parser *p)
{
	const struct gen_tok *t = gen_peek(p, 0);

	if (t->kind == GEN_TOK_WORD && !gen_is_keyword(t->s, t->n))
		gen_ctype_fail(p->err, gen_offset(p),
		               "unexpected name '%.*s' after the type (a parameter's name goes in "
		               "\"name\")",
		               (int)t->n, t->s);
	else
		gen_expected(p, "the end of the type");
}

static bool gen_in_list(const struct gen_tok *t, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (gen_is_word(t, list[i]))
			return true;
	return false;
}

static bool gen_signed_int(const struct gen_specs *sp)
{
	const int *c = sp->count;

	if (sp->tdef != NULL)
		return gen_in_list(sp->tdef, gen_signed_typedefs,
		                   sizeof gen_signed_typedefs / sizeof gen_signed_typedefs[0]);
	if (c[GEN_S_UNSIGNED] || c[GEN_S_FLOAT] || c[GEN_S_DOUBLE] || c[GEN_S_VOID] ||
	    c[GEN_S_BOOL] || c[GEN_S_TAG])
		return false;
	/* Plain char has implementation-defined signedness. */
	return c[GEN_S_CHAR] ? c[GEN_S_SIGNED] > 0 : true;
}

static void gen_fill_facts(struct gen_ctype *t, const struct gen_specs *sp,
                           const struct gen_decl *d)
{
	const int *c = sp->count;
	size_t i;

	t->name_pos = d->name_pos;
	t->kind = d->kind;
	t->is_void = gen_is_void(sp, d);
	t->is_signed_int = d->kind == GEN_CT_BASE && gen_signed_int(sp);
	t->promotes = d->kind == GEN_CT_BASE && (c[GEN_S_CHAR] || c[GEN_S_SHORT] || c[GEN_S_BOOL] ||
	                                         (c[GEN_S_FLOAT] && !c[GEN_S_COMPLEX]));
	t->simple = true;
	for (i = 0; i < t->ntoks; i++)
		if (gen_is_punct(&t->toks[i], '(') || gen_is_punct(&t->toks[i], '['))
			t->simple = false;
}

struct gen_ctype *gen_ctype_parse(const char *s, struct gen_ctype_err *err)
{
	struct gen_ctype *t = gen_xcalloc(1, sizeof *t);
	struct gen_parser p = {.err = err};
	struct gen_specs sp;
	struct gen_decl d;

	t->text = gen_xstrdup(s);
	p.text = t->text;
	if (gen_ctype_lex(t->text, &t->toks, &t->ntoks, err) < 0)
		goto fail;
	if (t->ntoks == 0) {
		gen_ctype_fail(err, 0, "type is empty");
		goto fail;
	}
	p.t = t->toks;
	p.n = t->ntoks;
	if (gen_parse_type_name(&p, false, &sp, &d) < 0)
		goto fail;
	if (p.i != p.n) {
		gen_trailing(&p);
		goto fail;
	}
	gen_fill_facts(t, &sp, &d);
	t->uses_bool = p.uses_bool;
	return t;
fail:
	gen_ctype_free(t);
	return NULL;
}

void gen_ctype_free(struct gen_ctype *t)
{
	if (t == NULL)
		return;
	free(t->toks);
	free(t->text);
	free(t);
}
