/* SPDX-License-Identifier: MIT */
/*
 * gen_locate.h - where in the spec's source text a JSON value is.
 *
 * jansson reports positions for syntax errors but forgets them once a
 * document is parsed, so semantic errors ("returns" must be a string) are
 * located by re-scanning the (already validated) text along the path of
 * keys and indexes that led to the offending value.
 */
#ifndef GEN_LOCATE_H
#define GEN_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

#define GEN_PATH_MAX 8

struct gen_pos {
	int line; /* 1-based */
	int col;  /* 1-based, in characters like jansson's columns */
	size_t byte;
};

struct gen_path_step {
	const char *key; /* NULL: an array index */
	size_t index;
};

struct gen_path {
	size_t depth;
	struct gen_path_step step[GEN_PATH_MAX];
};

void gen_path_key(struct gen_path *p, const char *key);
void gen_path_index(struct gen_path *p, size_t index);
void gen_path_pop(struct gen_path *p);

/* The position of the value at `path`, or with `want_key` the position of
 * the key naming its last step.  Falls back to the deepest position it
 * could reach, so it always yields something to print. */
struct gen_pos gen_locate(const char *text, size_t len, const struct gen_path *path, bool want_key);

#endif /* GEN_LOCATE_H */
