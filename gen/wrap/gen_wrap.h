/* SPDX-License-Identifier: MIT */
/*
 * gen_wrap.h - the wrapper templates of one function, one file per shape,
 * and the function they are printed for (struct gen_fn, built by
 * gen_emit_func.c).
 */
#ifndef GEN_WRAP_H
#define GEN_WRAP_H

#include <stdbool.h>

#include "gen_emit.h"

struct gen_fn {
	const struct spec *s;
	const struct spec_func *f;
	struct gen_out *o;
	struct spec_buf params; /* of the wrapper */
	struct spec_buf real;   /* of the real function (the v-twin's) */
	struct spec_buf args;   /* what the wrapper passes on */
	struct spec_buf last;   /* the last named parameter, for va_start */
	struct spec_buf slow;   /* of apiprof_slow_NAME: what `args` names */
	const char *row;        /* the cname of the function whose row it counts into */
	bool returns;           /* non-void */
	bool ret_typedef;       /* RET is spelled through apiprof_ret_NAME */
};

/* gen_emit_func.c: the pieces every shape prints */
void gen_fn_decl(const struct gen_fn *e, const char *declarator, struct spec_buf *out);
void gen_emit_at_spec(const struct gen_fn *e, const char *text);
void gen_emit_varargs(const struct gen_fn *e);
void gen_emit_call(const struct gen_fn *e, const char *indent, bool slow);
void gen_emit_return(const struct gen_fn *e, bool va, bool block);

/* gen_wrap_timed.c: the plain wrapper, and its timed block */
void gen_wrap_timed(const struct gen_fn *e);
void gen_wrap_timed_block(const struct gen_fn *e, bool va);

/* gen_wrap_acct.c: the end of a call that counted, with what a function
 * that declares bytes, failures or errno counts */
bool gen_acct_any(const struct gen_fn *e);
void gen_emit_leave(const struct gen_fn *e, const char *indent, const char *leave);

/* gen_wrap_noreturn.c: the wrapper of a noreturn function */
void gen_wrap_noreturn(const struct gen_fn *e);

/* gen_wrap_slow.c: apiprof_slow_NAME, the out-of-line half; its
 * parameters, written into e->slow */
void gen_wrap_slow_params(struct gen_fn *e);
void gen_wrap_slow(const struct gen_fn *e);

#endif /* GEN_WRAP_H */
