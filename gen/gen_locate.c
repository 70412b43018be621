// SPDX-License-Identifier: MIT
/*
 * gen_locate.c - a minimal JSON scanner that finds a value's line:column.
 *
 * It runs only on text jansson has accepted, but still never reads past
 * the end: a mismatch between the two parsers must cost a less precise
 * position, not a crash.
 */
#include <string.h>

#include "gen_buf.h"
#include "gen_locate.h"

struct gen_scan {
	const char *p;
	const char *end;
	struct gen_pos pos;
	const char *base;
};

void gen_path_key(struct gen_path *p, const char *key)
{
	if (p->depth < GEN_PATH_MAX)
		p->step[p->depth++] = (struct gen_path_step){.key = key};
}

void gen_path_index(struct gen_path *p, size_t index)
{
	if (p->depth < GEN_PATH_MAX)
		p->step[p->depth++] = (struct gen_path_step){.index = index};
}

void gen_path_pop(struct gen_path *p)
{
	if (p->depth > 0)
		p->depth--;
}

static void gen_advance(struct gen_scan *s)
{
	if (s->p >= s->end)
		return;
	if (*s->p == '\n') {
		s->pos.line++;
		s->pos.col = 1;
	} else if (((unsigned char)*s->p & 0xc0) != 0x80) {
		s->pos.col++; /* UTF-8 continuation bytes share their lead's column */
	}
	s->p++;
	s->pos.byte = (size_t)(s->p - s->base);
}

static char gen_cur(const struct gen_scan *s)
{
	return s->p < s->end ? *s->p : '\0';
}

static void gen_skip_ws(struct gen_scan *s)
{
	while (s->p < s->end && strchr(" \t\r\n", *s->p) != NULL && *s->p != '\0')
		gen_advance(s);
}

static void gen_skip_string(struct gen_scan *s)
{
	gen_advance(s);
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\')
			gen_advance(s);
		gen_advance(s);
	}
	gen_advance(s);
}

static void gen_skip_scalar(struct gen_scan *s)
{
	while (s->p < s->end && *s->p != '\0' && strchr(",:}] \t\r\n", *s->p) == NULL)
		gen_advance(s);
}

/* Counts brackets outside strings rather than recursing, so a deeply
 * nested document costs no stack. */
static void gen_skip_container(struct gen_scan *s)
{
	size_t depth = 0;

	while (s->p < s->end) {
		char c = *s->p;

		if (c == '"') {
			gen_skip_string(s);
			continue;
		}
		gen_advance(s);
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return;
	}
}

static void gen_skip_value(struct gen_scan *s)
{
	char c = gen_cur(s);

	if (c == '"')
		gen_skip_string(s);
	else if (c == '{' || c == '[')
		gen_skip_container(s);
	else
		gen_skip_scalar(s);
}

static unsigned gen_hex4(struct gen_scan *s)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = gen_cur(s);

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (unsigned)((c | 0x20) - 'a' + 10);
		gen_advance(s);
	}
	return v;
}

static void gen_put_utf8(struct gen_buf *b, unsigned cp)
{
	if (cp < 0x80) {
		gen_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		gen_buf_putc(b, (char)(0xc0 | (cp >> 6)));
		gen_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		gen_buf_putc(b, (char)(0xe0 | (cp >> 12)));
		gen_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		gen_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		gen_buf_putc(b, (char)(0xf0 | (cp >> 18)));
		gen_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		gen_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		gen_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* \uXXXX, combining a UTF-16 surrogate pair the way jansson does. */
static void gen_read_unicode(struct gen_scan *s, struct gen_buf *out)
{
	unsigned cp = gen_hex4(s), lo;

	if (cp >= 0xd800 && cp < 0xdc00 && gen_cur(s) == '\\' && s->p + 1 < s->end &&
	    s->p[1] == 'u') {
		gen_advance(s);
		gen_advance(s);
		lo = gen_hex4(s);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	gen_put_utf8(out, cp);
}

static void gen_read_escape(struct gen_scan *s, struct gen_buf *out)
{
	static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
	char c = gen_cur(s);
	const char *k = c ? strchr(from, c) : NULL;

	gen_advance(s);
	if (c == 'u')
		gen_read_unicode(s, out);
	else
		gen_buf_putc(out, k ? to[k - from] : c);
}

/* Decodes the string at the cursor (a key) for comparison. */
static void gen_read_string(struct gen_scan *s, struct gen_buf *out)
{
	gen_buf_putn(out, "", 0);
	gen_advance(s);
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\') {
			gen_advance(s);
			gen_read_escape(s, out);
			continue;
		}
		gen_buf_putc(out, *s->p);
		gen_advance(s);
	}
	gen_advance(s);
}

/* After a value inside a container: true when another element follows. */
static bool gen_next_elem(struct gen_scan *s)
{
	gen_skip_ws(s);
	if (gen_cur(s) != ',')
		return false;
	gen_advance(s);
	gen_skip_ws(s);
	return true;
}

/* Moves to the value (or key) of member `key`; false if there is none. */
static bool gen_find_key(struct gen_scan *s, const char *key, bool want_key)
{
	struct gen_buf k;
	struct gen_scan at;
	bool hit;

	gen_buf_init(&k);
	for (gen_advance(s), gen_skip_ws(s); gen_cur(s) == '"'; gen_next_elem(s)) {
		at = *s;
		k.len = 0;
		gen_read_string(s, &k);
		hit = strcmp(gen_buf_str(&k), key) == 0;
		gen_skip_ws(s);
		gen_advance(s); /* the ':' */
		gen_skip_ws(s);
		if (hit) {
			if (want_key)
				*s = at;
			gen_buf_free(&k);
			return true;
		}
		gen_skip_value(s);
	}
	gen_buf_free(&k);
	return false;
}

static bool gen_find_index(struct gen_scan *s, size_t index)
{
	size_t i;

	gen_advance(s);
	gen_skip_ws(s);
	for (i = 0; i < index; i++) {
		gen_skip_value(s);
		if (!gen_next_elem(s))
			return false;
	}
	return gen_cur(s) != ']' && s->p < s->end;
}

static bool gen_step(struct gen_scan *s, const struct gen_path_step *st, bool want_key)
{
	struct gen_scan save = *s;
	bool ok;

	if (st->key != NULL)
		ok = gen_cur(s) == '{' && gen_find_key(s, st->key, want_key);
	else
		ok = gen_cur(s) == '[' && gen_find_index(s, st->index);
	if (!ok)
		*s = save;
	return ok;
}

struct gen_pos gen_locate(const char *text, size_t len, const struct gen_path *path, bool want_key)
{
	struct gen_scan s = {.p = text, .end = text + len, .base = text, .pos = {1, 1, 0}};
	size_t i;

	gen_skip_ws(&s);
	for (i = 0; i < path->depth; i++)
		if (!gen_step(&s, &path->step[i], want_key && i + 1 == path->depth))
			break;
	return s.pos;
}
