// SPDX-License-Identifier: MIT
/*
 * spec_diag.c - printing located errors.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "spec_diag.h"

#define SPEC_QUOTE_MAX 48 /* characters of a spec string shown in a message */

const char *spec_quote(struct spec_quoted *q, const char *s)
{
	size_t o = 0;

	q->s[o++] = '"';
	for (size_t i = 0; s[i] != '\0' && o + 8 < sizeof q->s; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == SPEC_QUOTE_MAX) {
			o += (size_t)snprintf(q->s + o, sizeof q->s - o, "...");
			break;
		}
		if (c == '"' || c == '\\')
			o += (size_t)snprintf(q->s + o, sizeof q->s - o, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(q->s + o, sizeof q->s - o, "\\x%02x", c);
		else
			q->s[o++] = (char)c; /* UTF-8 passes through: it is printable */
	}
	q->s[o++] = '"';
	q->s[o] = '\0';
	return q->s;
}

static enum spec_mute muted;

void spec_diag_mute(enum spec_mute what)
{
	muted = what;
}

static void spec_vdiag(const char *path, struct spec_pos pos, const char *fmt, va_list ap)
{
	char msg[512];

	if (muted == SPEC_MUTE_ALL)
		return;

	vsnprintf(msg, sizeof msg, fmt, ap);
	/* Messages may embed jansson's text, which quotes the input. */
	for (size_t i = 0; msg[i] != '\0'; i++)
		if ((unsigned char)msg[i] < 0x20)
			msg[i] = ' ';
	fprintf(stderr, "%s:%d:%d: %s\n", path, pos.line, pos.col > 0 ? pos.col : 1, msg);
}

void spec_diag_at(const char *path, int line, int col, const char *fmt, ...)
{
	struct spec_pos pos = {.line = line, .col = col};
	va_list ap;

	va_start(ap, fmt);
	spec_vdiag(path, pos, fmt, ap);
	va_end(ap);
}

void spec_note_at(const char *path, int line, int col, const char *fmt, ...)
{
	struct spec_pos pos = {.line = line, .col = col};
	va_list ap;

	if (muted != SPEC_MUTE_NONE)
		return;
	va_start(ap, fmt);
	spec_vdiag(path, pos, fmt, ap);
	va_end(ap);
}

int spec_err(struct spec_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vdiag(c->path, spec_locate(c->text, c->len, &c->at, false), fmt, ap);
	va_end(ap);
	return -1;
}

int spec_err_key(struct spec_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vdiag(c->path, spec_locate(c->text, c->len, &c->at, true), fmt, ap);
	va_end(ap);
	return -1;
}

int spec_err_pos(struct spec_ctx *c, struct spec_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	spec_vdiag(c->path, pos, fmt, ap);
	va_end(ap);
	return -1;
}

/* True when the source of the string at `pos` spells its first `n` bytes
 * literally (no escapes, ASCII), so byte offsets are column offsets. */
static bool spec_literal_prefix(const struct spec_ctx *c, struct spec_pos pos, size_t n)
{
	size_t start = pos.byte + 1;

	if (pos.byte >= c->len || c->text[pos.byte] != '"' || start + n > c->len)
		return false;
	for (size_t i = start; i < start + n; i++)
		if (c->text[i] == '\\' || c->text[i] == '"' || (unsigned char)c->text[i] >= 0x80)
			return false;
	return true;
}

int spec_err_in(struct spec_ctx *c, size_t offset, const char *fmt, ...)
{
	struct spec_pos pos = spec_locate(c->text, c->len, &c->at, false);
	va_list ap;

	if (spec_literal_prefix(c, pos, offset))
		pos.col += 1 + (int)offset;
	va_start(ap, fmt);
	spec_vdiag(c->path, pos, fmt, ap);
	va_end(ap);
	return -1;
}
