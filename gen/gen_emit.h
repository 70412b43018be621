/* SPDX-License-Identifier: MIT */
/*
 * gen_emit.h - printing the C interposer for a validated spec.
 *
 * gen_emit.c writes the file prologue and the tables the runtime reads,
 * gen_emit_func.c the per-function code, with one file of gen/wrap/ per
 * shape of wrapper (see specs/README.md for the shape of both).
 */
#ifndef GEN_EMIT_H
#define GEN_EMIT_H

#include "spec_buf.h"
#include "gen_out.h"
#include "spec.h"

void gen_emit(const struct spec *s, struct gen_out *o);
/* The version script exporting exactly the wrappers. */
void gen_vscript(const struct spec *s, struct gen_out *o);

/* Internal to gen_emit*.c. */
void gen_emit_func_types(const struct spec *s, const struct spec_func *f, struct gen_out *o);
void gen_emit_func(const struct spec *s, const struct spec_func *f, struct gen_out *o);
void gen_emit_cstr(struct spec_buf *b, const char *s);
void gen_emit_comment_text(struct spec_buf *b, const char *s);
void gen_emit_line(struct gen_out *o, unsigned long line, const char *file);

#endif /* GEN_EMIT_H */
