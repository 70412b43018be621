// SPDX-License-Identifier: MIT
/*
 * spec_locate.c - a minimal JSON scanner that finds a value's line:column.
 *
 * It runs only on text jansson has accepted, but still never reads past
 * the end: a mismatch between the two parsers must cost a less precise
 * position, not a crash.
 */
#include <string.h>

#include "spec_buf.h"
#include "spec_locate.h"

struct spec_scan {
	const char *p;
	const char *end;
	struct spec_pos pos;
	const char *base;
};

void spec_path_key(struct spec_path *p, const char *key)
{
	if (p->depth < SPEC_PATH_MAX)
		p->step[p->depth++] = (struct spec_path_step){.key = key};
}

void spec_path_index(struct spec_path *p, size_t index)
{
	if (p->depth < SPEC_PATH_MAX)
		p->step[p->depth++] = (struct spec_path_step){.index = index};
}

void spec_path_pop(struct spec_path *p)
{
	if (p->depth > 0)
		p->depth--;
}

static void spec_advance(struct spec_scan *s)
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

static char spec_cur(const struct spec_scan *s)
{
	return s->p < s->end ? *s->p : '\0';
}

static void spec_skip_ws(struct spec_scan *s)
{
	while (s->p < s->end && strchr(" \t\r\n", *s->p) != NULL && *s->p != '\0')
		spec_advance(s);
}

static void spec_skip_string(struct spec_scan *s)
{
	spec_advance(s);
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\')
			spec_advance(s);
		spec_advance(s);
	}
	spec_advance(s);
}

static void spec_skip_scalar(struct spec_scan *s)
{
	while (s->p < s->end && *s->p != '\0' && strchr(",:}] \t\r\n", *s->p) == NULL)
		spec_advance(s);
}

/* Counts brackets outside strings rather than recursing, so a deeply
 * nested document costs no stack. */
static void spec_skip_container(struct spec_scan *s)
{
	size_t depth = 0;

	while (s->p < s->end) {
		char c = *s->p;

		if (c == '"') {
			spec_skip_string(s);
			continue;
		}
		spec_advance(s);
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return;
	}
}

static void spec_skip_value(struct spec_scan *s)
{
	char c = spec_cur(s);

	if (c == '"')
		spec_skip_string(s);
	else if (c == '{' || c == '[')
		spec_skip_container(s);
	else
		spec_skip_scalar(s);
}

static unsigned spec_hex4(struct spec_scan *s)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = spec_cur(s);

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (unsigned)((c | 0x20) - 'a' + 10);
		spec_advance(s);
	}
	return v;
}

static void spec_put_utf8(struct spec_buf *b, unsigned cp)
{
	if (cp < 0x80) {
		spec_buf_putc(b, (char)cp);
	} else if (cp < 0x800) {
		spec_buf_putc(b, (char)(0xc0 | (cp >> 6)));
		spec_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		spec_buf_putc(b, (char)(0xe0 | (cp >> 12)));
		spec_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		spec_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		spec_buf_putc(b, (char)(0xf0 | (cp >> 18)));
		spec_buf_putc(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		spec_buf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		spec_buf_putc(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* \uXXXX, combining a UTF-16 surrogate pair the way jansson does. */
static void spec_read_unicode(struct spec_scan *s, struct spec_buf *out)
{
	unsigned cp = spec_hex4(s);

	if (cp >= 0xd800 && cp < 0xdc00 && spec_cur(s) == '\\' && s->p + 1 < s->end &&
	    s->p[1] == 'u') {
		spec_advance(s);
		spec_advance(s);
		unsigned lo = spec_hex4(s);
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	spec_put_utf8(out, cp);
}

static void spec_read_escape(struct spec_scan *s, struct spec_buf *out)
{
	static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
	char c = spec_cur(s);
	const char *k = c ? strchr(from, c) : NULL;

	spec_advance(s);
	if (c == 'u')
		spec_read_unicode(s, out);
	else
		spec_buf_putc(out, k ? to[k - from] : c);
}

/* Decodes the string at the cursor (a key) for comparison. */
static void spec_read_string(struct spec_scan *s, struct spec_buf *out)
{
	spec_buf_putn(out, "", 0);
	spec_advance(s);
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\') {
			spec_advance(s);
			spec_read_escape(s, out);
			continue;
		}
		spec_buf_putc(out, *s->p);
		spec_advance(s);
	}
	spec_advance(s);
}

/* After a value inside a container: true when another element follows. */
static bool spec_next_elem(struct spec_scan *s)
{
	spec_skip_ws(s);
	if (spec_cur(s) != ',')
		return false;
	spec_advance(s);
	spec_skip_ws(s);
	return true;
}

/* Moves to the value (or key) of member `key`; false if there is none. */
static bool spec_find_key(struct spec_scan *s, const char *key, bool want_key)
{
	struct spec_buf k;

	spec_buf_init(&k);
	for (spec_advance(s), spec_skip_ws(s); spec_cur(s) == '"'; spec_next_elem(s)) {
		struct spec_scan at = *s;
		k.len = 0;
		spec_read_string(s, &k);
		bool hit = strcmp(spec_buf_str(&k), key) == 0;
		spec_skip_ws(s);
		spec_advance(s); /* the ':' */
		spec_skip_ws(s);
		if (hit) {
			if (want_key)
				*s = at;
			spec_buf_free(&k);
			return true;
		}
		spec_skip_value(s);
	}
	spec_buf_free(&k);
	return false;
}

static bool spec_find_index(struct spec_scan *s, size_t index)
{
	spec_advance(s);
	spec_skip_ws(s);
	for (size_t i = 0; i < index; i++) {
		spec_skip_value(s);
		if (!spec_next_elem(s))
			return false;
	}
	return spec_cur(s) != ']' && s->p < s->end;
}

static bool spec_step(struct spec_scan *s, const struct spec_path_step *st, bool want_key)
{
	struct spec_scan save = *s;
	bool ok;

	if (st->key != NULL)
		ok = spec_cur(s) == '{' && spec_find_key(s, st->key, want_key);
	else
		ok = spec_cur(s) == '[' && spec_find_index(s, st->index);
	if (!ok)
		*s = save;
	return ok;
}

struct spec_pos spec_locate(const char *text, size_t len, const struct spec_path *path,
                            bool want_key)
{
	struct spec_scan s = {.p = text, .end = text + len, .base = text, .pos = {1, 1, 0}};

	spec_skip_ws(&s);
	for (size_t i = 0; i < path->depth; i++)
		if (!spec_step(&s, &path->step[i], want_key && i + 1 == path->depth))
			break;
	return s.pos;
}
