// SPDX-License-Identifier: MIT
/*
 * gen_wrap_slow.c - apiprof_slow_NAME, the out-of-line half: every call the
 * fast path leaves.
 */
#include "gen_wrap.h"

/* apiprof_slow_NAME's parameters: after the named ones (in `slow`
 * already), the va_list or the extra arguments the wrapper read, and the
 * wrapper's stack pointer. */
void gen_wrap_slow_params(struct gen_fn *e)
{
	const struct spec_func *f = e->f;
	struct spec_buf d;

	if (f->vtwin)
		spec_buf_puts(&e->slow, ", va_list apiprof_ap");
	for (size_t i = 0; i < f->nextra; i++) {
		spec_buf_init(&d);
		spec_buf_printf(&d, "apiprof_x%zu", i);
		spec_buf_puts(&e->slow, ", ");
		spec_ctype_format(f->extra[i], spec_buf_str(&d), &e->slow);
		spec_buf_free(&d);
	}
	spec_buf_printf(&e->slow, "%suintptr_t apiprof_sp, uintptr_t apiprof_ret",
	                f->nparams ? ", " : "");
}

/* Everything the fast path leaves: forwarded (nested, runtime busy, no
 * table yet), a new site, sampled mode's timed calls inside another api's
 * call, the monotonic clock.  Out of line, with the wrapper's stack
 * pointer: a longjmp is told from nesting by the frames of the wrappers. */
void gen_wrap_slow(const struct gen_fn *e)
{
	const char *n = e->f->cname;
	struct spec_buf d, b;

	spec_buf_init(&d);
	spec_buf_init(&b);
	spec_buf_printf(&d, "apiprof_slow_%s(%s)", n, spec_buf_str(&e->slow));
	spec_buf_puts(&b, "static __attribute__((noinline)) ");
	gen_fn_decl(e, spec_buf_str(&d), &b);
	spec_buf_putc(&b, '\n');
	gen_emit_at_spec(e, spec_buf_str(&b));
	gen_out_printf(
	        e->o,
	        "{\n\tapiprof_fn_%s apiprof_f = apiprof_get_%s();\n"
	        "\tstruct apiprof_call apiprof_c;\n"
	        "\tunsigned apiprof_route = apiprof_enter_out(&apiprof_self.api, &apiprof_c, "
	        "apiprof_sp, APIPROF_ROW_%s, apiprof_ret);\n\n",
	        n, n, e->row);
	gen_wrap_timed_block(e, false);
	gen_emit_call(e, "\t", false);
	gen_out_printf(e->o,
	               "\tapiprof_leave_other(&apiprof_self.api, &apiprof_c, apiprof_route, "
	               "APIPROF_ROW_%s);\n",
	               e->row);
	if (gen_acct_any(e)) {
		gen_out_puts(e->o, "\tif (apiprof_route != APIPROF_CALL_FORWARD) {\n");
		gen_emit_leave(e, "\t\t", NULL);
		gen_out_puts(e->o, "\t}\n");
	}
	gen_emit_return(e, false, false);
	gen_out_puts(e->o, "}\n\n");
	spec_buf_free(&d);
	spec_buf_free(&b);
}
