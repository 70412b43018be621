// SPDX-License-Identifier: MIT
/*
 * gen_wrap_acct.c - the end of a call that counted, and for a function that
 * declares bytes, failures or errno, what its apiprof_*_acct call adds.
 */
#include "gen_wrap.h"

/* The size of a call's work: "return", a parameter or a product. */
static void gen_acct_size(const struct gen_fn *e, struct spec_buf *b)
{
	const struct spec_acct *a = &e->f->acct;

	if (a->bytes == SPEC_BYTES_RETURN) {
		spec_buf_puts(b, "(uint64_t)apiprof_r");
		return;
	}
	spec_buf_printf(b, "apiprof_size_arg(%s)", e->f->params[a->bparam[0]].name);
	if (a->bytes == SPEC_BYTES_PRODUCT)
		spec_buf_printf(b, " * apiprof_size_arg(%s)", e->f->params[a->bparam[1]].name);
}

/* When apiprof_r says the call failed ("fails"), in C. */
static void gen_acct_failed(const struct gen_fn *e, struct spec_buf *b)
{
	static const char *const cond[] = {
	        [SPEC_FAILS_NEGATIVE] = "apiprof_r < 0",
	        [SPEC_FAILS_NONPOSITIVE] = "apiprof_r <= 0",
	        [SPEC_FAILS_MINUS_ONE] = "apiprof_r == (__typeof__(apiprof_r))-1",
	        [SPEC_FAILS_NULL] = "apiprof_r == NULL",
	        [SPEC_FAILS_NONZERO] = "apiprof_r != 0",
	        [SPEC_FAILS_ZERO] = "apiprof_r == 0",
	};
	const struct spec_acct *a = &e->f->acct;

	if (a->fails != SPEC_FAILS_NOT) {
		spec_buf_puts(b, cond[a->fails]);
		return;
	}
	for (size_t i = 0; i < a->nok; i++)
		spec_buf_printf(b, "%sapiprof_r != (__typeof__(apiprof_r))%lldLL", i ? " && " : "",
		                a->ok[i]);
}

bool gen_acct_any(const struct gen_fn *e)
{
	return e->f->acct.bytes != SPEC_BYTES_NONE || e->f->acct.fails != SPEC_FAILS_NONE;
}

/* After a call that counted, what an apiprof_*_acct call of apiprof_shim.h
 * takes besides the row: a struct apiprof_outcome, whether it failed,
 * whether to count errno (read only then), its size and whether it has
 * one.  "return" bytes of a signed type count only when not negative. */
static void gen_acct_args(const struct gen_fn *e, struct spec_buf *b)
{
	const struct spec_acct *a = &e->f->acct;

	spec_buf_puts(b, ", (struct apiprof_outcome){");
	spec_buf_puts(b, a->fails != SPEC_FAILS_NONE ? ".failed = apiprof_failed" : ".failed = 0");
	spec_buf_puts(b, a->err_no ? ", .err = 1" : ", .err = 0");
	if (a->bytes == SPEC_BYTES_NONE) {
		spec_buf_puts(b, "}");
		return;
	}
	spec_buf_puts(b, ", .n = ");
	gen_acct_size(e, b);
	if (a->bytes == SPEC_BYTES_RETURN)
		spec_buf_puts(b, ", .sized = apiprof_ret_sized((uint64_t)apiprof_r, "
		                 "APIPROF_SIGNED(apiprof_r))}");
	else
		spec_buf_puts(b, ", .sized = 1}");
}

/* The end of a call that counted: `leave` (apiprof_leave,
 * apiprof_leave_counted), or for a function that declares bytes or
 * failures its _acct form, which also counts them; after
 * apiprof_leave_other (`leave` NULL), apiprof_acct_after. */
void gen_emit_leave(const struct gen_fn *e, const char *indent, const char *leave)
{
	struct spec_buf b, cond;

	if (!gen_acct_any(e)) {
		gen_out_printf(e->o, "%s%s(&apiprof_self.api, &apiprof_c, APIPROF_ROW_%s);\n",
		               indent, leave, e->row);
		return;
	}
	spec_buf_init(&b);
	spec_buf_init(&cond);
	gen_acct_args(e, &b);
	if (e->f->acct.fails != SPEC_FAILS_NONE) {
		gen_acct_failed(e, &cond);
		gen_out_printf(e->o, "%s_Bool apiprof_failed = %s;\n", indent, spec_buf_str(&cond));
	}
	if (leave)
		gen_out_printf(e->o,
		               "%s%s_acct(&apiprof_self.api, &apiprof_c, APIPROF_ROW_%s%s);\n",
		               indent, leave, e->row, spec_buf_str(&b));
	else
		gen_out_printf(e->o, "%sapiprof_acct_after(&apiprof_self.api, APIPROF_ROW_%s%s);\n",
		               indent, e->row, spec_buf_str(&b));
	spec_buf_free(&b);
	spec_buf_free(&cond);
}
