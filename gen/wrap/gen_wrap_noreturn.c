// SPDX-License-Identifier: MIT
/*
 * gen_wrap_noreturn.c - the wrapper of a noreturn function: counted,
 * never timed.
 */
#include "gen_wrap.h"

/* Counted, never timed: there is no return to stop a clock at. */
void gen_emit_noreturn_body(const struct gen_fn *e)
{
	gen_out_printf(e->o, "\tapiprof_count_noreturn(&apiprof_self.api, APIPROF_ROW_%s);\n",
	               e->row);
	gen_out_printf(e->o, "\tapiprof_f(%s);\n", spec_buf_str(&e->args));
	gen_out_puts(e->o, "\t__builtin_unreachable();\n}\n");
}
