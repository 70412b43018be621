/* SPDX-License-Identifier: MIT */
/*
 * gen_out.h - writing the generated file.
 *
 * Output goes to a temporary file next to the destination and is renamed
 * over it only when complete, so a failed run never leaves a half-written
 * (or stale-looking fresh) .c file for a build system to pick up.  What may
 * be replaced, and how the temporary is made, is the runtime's logic for
 * APIPROF_OUTPUT (common/files/apiprof_file.h): a device or FIFO is written as
 * it is, a directory refused.  The writer counts lines because `#line`
 * directives that switch back from the spec to the generated file must
 * name the right line.
 */
#ifndef GEN_OUT_H
#define GEN_OUT_H

#include <stdio.h>

struct apiprof_file;

struct gen_out {
	FILE *f;
	const char *path;          /* the destination */
	const char *name;          /* what `#line` calls it: path unless set */
	struct apiprof_file *file; /* the file being written */
	int err;                   /* the first write error, 0 if none */
	unsigned long line;        /* the line the next character lands on */
};

int gen_out_open(struct gen_out *o, const char *path);
void gen_out_printf(struct gen_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gen_out_puts(struct gen_out *o, const char *s);
/* Renames the file into place; on failure (or after gen_out_abort) nothing
 * is left behind, and a file that was there stays as it was. */
int gen_out_commit(struct gen_out *o);
void gen_out_abort(struct gen_out *o);

#endif /* GEN_OUT_H */
