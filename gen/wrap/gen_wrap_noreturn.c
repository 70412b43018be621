// SPDX-License-Identifier: MIT
/*
 * gen_wrap_noreturn.c - the wrapper of a noreturn function: counted,
 * never timed.
 */
#include "gen_wrap.h"

/* Counted, never timed: there is no return to stop a clock at.  Resolved
 * in the wrapper, which has no out-of-line half. */
void gen_wrap_noreturn(const struct gen_fn *e)
{
	const char *n = e->f->cname;

	gen_out_printf(e->o, "{\n\tapiprof_fn_%s apiprof_f = apiprof_get_%s();\n", n, n);
	gen_emit_varargs(e);
	gen_out_printf(e->o, "\tapiprof_count_noreturn(&apiprof_self.api, APIPROF_ROW_%s);\n",
	               e->row);
	gen_out_printf(e->o, "\tapiprof_f(%s);\n", spec_buf_str(&e->args));
	gen_out_puts(e->o, "\t__builtin_unreachable();\n}\n");
}
