/* SPDX-License-Identifier: MIT */
/*
 * spec_locate.h - where in the spec's source text a JSON value is.
 *
 * jansson reports positions for syntax errors but forgets them once a
 * document is parsed, so semantic errors ("returns" must be a string) are
 * located by re-scanning the (already validated) text along the path of
 * keys and indexes that led to the offending value.
 */
#ifndef SPEC_LOCATE_H
#define SPEC_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#define SPEC_PATH_MAX 8

struct spec_pos {
	int line; /* 1-based */
	int col;  /* 1-based, in characters like jansson's columns */
	size_t byte;
};

struct spec_path_step {
	const char *key; /* NULL: an array index */
	size_t index;
};

struct spec_path {
	size_t depth;
	struct spec_path_step step[SPEC_PATH_MAX];
};

void spec_path_key(struct spec_path *p, const char *key);
void spec_path_index(struct spec_path *p, size_t index);
void spec_path_pop(struct spec_path *p);

/* The position of the value at `path`, or with `want_key` the position of
 * the key naming its last step.  Falls back to the deepest position it
 * could reach, so it always yields something to print. */
struct spec_pos spec_locate(const char *text, size_t len, const struct spec_path *path,
                            bool want_key);

#endif /* SPEC_LOCATE_H */
