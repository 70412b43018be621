// SPDX-License-Identifier: MIT
/*
 * gen_wrap_timed.c - the plain wrapper: the fast path inline (a call timed
 * in full, a parked run's call, a call counted in sampled mode, a nested
 * call forwarded with a tail jump), and the timed block the out-of-line
 * half shares.
 */
#include "gen_wrap.h"

/* A call timed in full, in `how`: the clock is started after the last
 * branch on the way in, and the call returns from inside the block. */
void gen_wrap_timed_block(const struct gen_fn *e, bool va)
{
	gen_out_printf(e->o,
	               "\tif (apiprof_likely(apiprof_route == APIPROF_CALL_TIMED)) {\n"
	               "\t\tapiprof_start(&apiprof_self.api, &apiprof_c, APIPROF_ROW_%s);\n",
	               e->row);
	gen_emit_call(e, "\t\t", false);
	gen_emit_leave(e, "\t\t", "apiprof_leave");
	gen_emit_return(e, va, true);
	gen_out_puts(e->o, "\t}\n");
}

/* A call of its row's parked run (callers that take turns), timed
 * inline where it is (apiprof_shim.h apiprof_start_parked): the wrapper
 * only, the out-of-line way in never says it. */
static void gen_emit_parked(const struct gen_fn *e)
{
	gen_out_printf(e->o,
	               "\tif (apiprof_route == APIPROF_CALL_PARKED) {\n"
	               "\t\tapiprof_start_parked(&apiprof_self.api, &apiprof_c, %zu);\n",
	               e->f->row);
	gen_emit_call(e, "\t\t", false);
	gen_emit_leave(e, "\t\t", "apiprof_leave_parked");
	gen_emit_return(e, true, true);
	gen_out_puts(e->o, "\t}\n");
}

/* A call nested in one of its api in progress, forwarded uncounted with
 * a tail jump (apiprof_shim.h apiprof_nested): a callback that calls the
 * function again then takes no more stack a level than bare.  A function
 * with a v-twin keeps the wrapper's frame, where its va_list lives, and
 * saves only the out-of-line one. */
static void gen_emit_nested(const struct gen_fn *e)
{
	gen_out_puts(e->o, "\tif (apiprof_route == APIPROF_CALL_FORWARD ||\n"
	                   "\t    (apiprof_f != NULL && apiprof_nested(&apiprof_self.api))) {\n");
	gen_emit_call(e, "\t\t", false);
	gen_emit_return(e, true, true);
	gen_out_puts(e->o, "\t}\n");
}

/* The wrapper's head.  Not yet resolved, a call goes out of line and is
 * resolved there: the wrapper then never calls out with its arguments
 * live, so it needs no stack frame to keep them in. */
static void gen_wrap_timed_head(const struct gen_fn *e)
{
	const char *n = e->f->cname;

	gen_out_printf(e->o,
	               "{\n\tapiprof_fn_%s apiprof_f = "
	               "__atomic_load_n(&apiprof_self.real_%s, __ATOMIC_RELAXED);\n",
	               n, n);
	gen_out_puts(e->o, "\tstruct apiprof_call apiprof_c;\n\tunsigned apiprof_route;\n");
	gen_emit_varargs(e);
}

/* The fast path inline: timed, or counted in sampled mode. */
void gen_wrap_timed(const struct gen_fn *e)
{
	gen_wrap_timed_head(e);
	/* apiprof_shim.h apiprof_enter_acct says why the two differ */
	gen_out_printf(
	        e->o,
	        "\tapiprof_route = apiprof_likely(apiprof_f != NULL)\n"
	        "\t\t\t      ? apiprof_enter%s(&apiprof_self.api, &apiprof_c, APIPROF_ROW_%s, "
	        "apiprof_caller())\n"
	        "\t\t\t      : APIPROF_CALL_OUT;\n",
	        gen_acct_any(e) ? "_acct" : "", e->row);
	gen_wrap_timed_block(e, true);
	gen_emit_parked(e);
	gen_out_puts(e->o, "\tif (apiprof_likely(apiprof_route == APIPROF_CALL_COUNTED)) {\n");
	gen_emit_call(e, "\t\t", false);
	gen_emit_leave(e, "\t\t", "apiprof_leave_counted");
	gen_emit_return(e, true, true);
	gen_out_puts(e->o, "\t}\n");
	gen_emit_nested(e);
	gen_emit_call(e, "\t", true);
	gen_emit_return(e, true, false);
	gen_out_puts(e->o, "}\n");
}
