// SPDX-License-Identifier: MIT
/*
 * spec_ctype_lex.c - the tokenizer of type strings.
 *
 * Deliberately an allow-list: anything that is not one of the few tokens a
 * type-name needs (a quote, a semicolon, '#', '/', '{', '=', a newline, any
 * non-ASCII byte) stops the parse with the offset of the offending byte.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_ctype.h"

#define SPEC_CTYPE_MAX_LEN 1024

void spec_ctype_fail(struct spec_ctype_err *err, size_t offset, const char *fmt, ...)
{
	va_list ap;

	err->offset = offset;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

static bool spec_lex_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool spec_lex_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool spec_lex_xdigit(char c)
{
	return spec_lex_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t spec_lex_word_len(const char *s)
{
	size_t n = 0;

	while (spec_lex_alpha(s[n]) || spec_lex_digit(s[n]))
		n++;
	return n;
}

/* An array size: decimal without leading zeros, or 0x hex, no suffixes. */
static bool spec_lex_int_ok(const char *s, size_t n)
{
	size_t i = 2;

	if (n > 18)
		return false;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		while (i < n && spec_lex_xdigit(s[i]))
			i++;
		return i == n;
	}
	for (i = 0; i < n; i++)
		if (!spec_lex_digit(s[i]))
			return false;
	return n == 1 || s[0] != '0';
}

static void spec_lex_bad_char(const char *text, size_t i, struct spec_ctype_err *err)
{
	unsigned char c = (unsigned char)text[i];

	if (c > 0x20 && c < 0x7f)
		spec_ctype_fail(err, i, "unexpected '%c' in type", c);
	else
		spec_ctype_fail(err, i, "unexpected character 0x%02x in type", c);
}

/* Length of the token at text + i, 0 after reporting an error. */
static size_t spec_lex_one(const char *text, size_t i, enum spec_tok_kind *kind,
                           struct spec_ctype_err *err)
{
	const char *s = text + i;

	if (spec_lex_alpha(*s)) {
		*kind = SPEC_TOK_WORD;
		return spec_lex_word_len(s);
	}
	if (spec_lex_digit(*s)) {
		*kind = SPEC_TOK_INT;
		size_t n = spec_lex_word_len(s);
		if (!spec_lex_int_ok(s, n)) {
			spec_ctype_fail(err, i, "invalid array size '%.*s' in type", (int)n, s);
			return 0;
		}
		return n;
	}
	if (strchr("*(),[]", *s) != NULL) {
		*kind = SPEC_TOK_PUNCT;
		return 1;
	}
	if (strncmp(s, "...", 3) == 0) {
		*kind = SPEC_TOK_ELLIPSIS;
		return 3;
	}
	spec_lex_bad_char(text, i, err);
	return 0;
}

int spec_ctype_lex(const char *text, struct spec_tok **toks, size_t *ntoks,
                   struct spec_ctype_err *err)
{
	size_t len = strlen(text), i = 0, n = 0;

	if (len > SPEC_CTYPE_MAX_LEN) {
		spec_ctype_fail(err, 0, "type is longer than %d characters", SPEC_CTYPE_MAX_LEN);
		return -1;
	}
	/* A token is at least one byte, so len + 1 slots always suffice. */
	struct spec_tok *t = spec_xcalloc(len + 1, sizeof *t);
	while (i < len) {
		if (text[i] == ' ' || text[i] == '\t') {
			i++;
			continue;
		}
		size_t k = spec_lex_one(text, i, &t[n].kind, err);
		if (k == 0) {
			free(t);
			return -1;
		}
		t[n].s = text + i;
		t[n++].n = k;
		i += k;
	}
	*toks = t;
	*ntoks = n;
	return 0;
}
