// SPDX-License-Identifier: MIT
/*
 * spec_ctype_print.c - prints a parsed type back, with a declarator name.
 *
 * The output is rebuilt from tokens, never copied from the spec, with one
 * normalized spacing: "const char *s", "int (*cb)(void *, int)",
 * "char buf[16]", "char *const *p".
 */
#include <string.h>

#include "spec_ctype.h"

static bool spec_tok_punct(const struct spec_tok *t, char c)
{
	return t->kind == SPEC_TOK_PUNCT && t->s[0] == c;
}

static bool spec_need_space(const struct spec_tok *prev, const struct spec_tok *cur)
{
	if (prev == NULL)
		return false;
	if (spec_tok_punct(prev, ','))
		return true;
	if (prev->kind != SPEC_TOK_WORD)
		return false;
	if (cur->kind == SPEC_TOK_WORD || spec_tok_punct(cur, '*'))
		return true;
	/* "char [16]" but "char buf[16]"; "int (*)" but "f(int)". */
	if (spec_tok_punct(cur, '(') || spec_tok_punct(cur, '['))
		return !prev->decl;
	return false;
}

static void spec_put_tok(struct spec_buf *out, const struct spec_tok **prev,
                         const struct spec_tok *t)
{
	if (spec_need_space(*prev, t))
		spec_buf_putc(out, ' ');
	spec_buf_putn(out, t->s, t->n);
	*prev = t;
}

/* `name` is any already-formed declarator text ("p", "f(int x)",
 * "(*apiprof_fn_f)(int x)"); NULL prints the bare type. */
void spec_ctype_format(const struct spec_ctype *t, const char *name, struct spec_buf *out)
{
	struct spec_tok nt = {.kind = SPEC_TOK_WORD, .s = name, .decl = true};
	const struct spec_tok *prev = NULL;

	if (name != NULL)
		nt.n = strlen(name);
	for (size_t i = 0; i < t->ntoks; i++) {
		if (name != NULL && i == t->name_pos)
			spec_put_tok(out, &prev, &nt);
		spec_put_tok(out, &prev, &t->toks[i]);
	}
	if (name != NULL && t->name_pos >= t->ntoks)
		spec_put_tok(out, &prev, &nt);
}
