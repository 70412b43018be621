// SPDX-License-Identifier: MIT
/*
 * gen_ctype_print.c - prints a parsed type back, with a declarator name.
 *
 * The output is rebuilt from tokens, never copied from the spec, with one
 * normalized spacing: "const char *s", "int (*cb)(void *, int)",
 * "char buf[16]", "char *const *p".
 */
#include <string.h>

#include "gen_ctype.h"

static bool gen_tok_punct(const struct gen_tok *t, char c)
{
	return t->kind == GEN_TOK_PUNCT && t->s[0] == c;
}

static bool gen_need_space(const struct gen_tok *prev, const struct gen_tok *cur)
{
	if (prev == NULL)
		return false;
	if (gen_tok_punct(prev, ','))
		return true;
	if (prev->kind != GEN_TOK_WORD)
		return false;
	if (cur->kind == GEN_TOK_WORD || gen_tok_punct(cur, '*'))
		return true;
	/* "char [16]" but "char buf[16]"; "int (*)" but "f(int)". */
	if (gen_tok_punct(cur, '(') || gen_tok_punct(cur, '['))
		return !prev->decl;
	return false;
}

static void gen_put_tok(struct gen_buf *out, const struct gen_tok **prev, const struct gen_tok *t)
{
	if (gen_need_space(*prev, t))
		gen_buf_putc(out, ' ');
	gen_buf_putn(out, t->s, t->n);
	*prev = t;
}

/* `name` is any already-formed declarator text ("p", "f(int x)",
 * "(*apiprof_fn_f)(int x)"); NULL prints the bare type. */
void gen_ctype_format(const struct gen_ctype *t, const char *name, struct gen_buf *out)
{
	struct gen_tok nt = {.kind = GEN_TOK_WORD, .s = name, .decl = true};
	const struct gen_tok *prev = NULL;
	size_t i;

	if (name != NULL)
		nt.n = strlen(name);
	for (i = 0; i < t->ntoks; i++) {
		if (name != NULL && i == t->name_pos)
			gen_put_tok(out, &prev, &nt);
		gen_put_tok(out, &prev, &t->toks[i]);
	}
	if (name != NULL && t->name_pos >= t->ntoks)
		gen_put_tok(out, &prev, &nt);
}
