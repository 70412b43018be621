// SPDX-License-Identifier: MIT
/*
 * gen_emit_func.c - the code generated for one function of a spec.
 *
 * For a function NAME at index IDX:
 *
 *	typedef RET (*apiprof_fn_NAME)(PARAMS);     the real function's type
 *	apiprof_self.real_NAME                      its pointer, resolved lazily, once
 *	apiprof_missing_NAME()                      stands in when it does not exist
 *	apiprof_get_NAME()                          resolves on first use
 *	apiprof_slow_NAME(ARGS, sp, ret)            the calls the fast path leaves
 *	RET NAME(PARAMS)                            the exported wrapper
 *
 * The wrapper keeps only the fast path (a call timed in full, or counted in
 * sampled mode) and hands every other call to apiprof_slow_NAME: with no
 * call to make before the real one, it needs to keep nothing across it but
 * the call state, so it saves fewer registers and keeps the arguments where
 * they arrived.  That is about a tenth of what a timed call adds.  A call
 * nested in another of its api, which is not counted, does not go there
 * either: the wrapper jumps to the real function (a tail call), so that a
 * recursion through a callback takes no more stack than bare.
 *
 * The wrapper's own locals are named apiprof_* because spec identifiers
 * may not use that prefix, so they can never shadow a parameter.  The
 * typedef and the wrapper's signature are put under `#line SPEC`: a type
 * the headers do not know, or a prototype that disagrees with theirs, is
 * reported by the compiler at the spec entry that caused it.
 */
#include <string.h>

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

/* RET + declarator; a return type with parentheses or brackets (a
 * function pointer) goes through a typedef rather than C's inside-out
 * declarator syntax, for the sake of whoever reads the output. */
static void gen_fn_decl(const struct gen_fn *e, const char *declarator, struct spec_buf *out)
{
	if (e->ret_typedef)
		spec_buf_printf(out, "apiprof_ret_%s %s", e->f->cname, declarator);
	else
		spec_ctype_format(e->f->ret, declarator, out);
}

/* apiprof_slow_NAME's parameters: after the named ones (in `slow`
 * already), the va_list or the extra arguments the wrapper read, and the
 * wrapper's stack pointer. */
static void gen_fn_slow_params(struct gen_fn *e)
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

static void gen_fn_lists(struct gen_fn *e)
{
	const struct spec_func *f = e->f;

	for (size_t i = 0; i < f->nparams; i++) {
		const char *sep = i ? ", " : "";

		spec_buf_puts(&e->params, sep);
		spec_ctype_format(f->params[i].type, f->params[i].name, &e->params);
		spec_buf_printf(&e->args, "%s%s", sep, f->params[i].name);
	}
	spec_buf_puts(&e->slow, spec_buf_str(&e->params));
	if (f->nparams == 0)
		spec_buf_puts(&e->params, "void");
	else
		spec_buf_puts(&e->last, f->params[f->nparams - 1].name);
	spec_buf_puts(&e->real, spec_buf_str(&e->params));
	if (f->variadic)
		spec_buf_puts(&e->params, ", ...");
	if (f->vtwin) {
		spec_buf_puts(&e->real, ", va_list apiprof_ap");
		spec_buf_puts(&e->args, ", apiprof_ap");
	} else if (f->variadic) {
		spec_buf_puts(&e->real, ", ...");
	}
	for (size_t i = 0; i < f->nextra; i++)
		spec_buf_printf(&e->args, ", apiprof_x%zu", i);
	gen_fn_slow_params(e);
}

static void gen_fn_init(struct gen_fn *e, const struct spec *s, const struct spec_func *f,
                        struct gen_out *o)
{
	memset(e, 0, sizeof *e);
	e->s = s;
	e->f = f;
	e->o = o;
	e->row = s->funcs[f->row].cname;
	e->returns = !e->f->ret->is_void;
	e->ret_typedef = !e->f->ret->simple;
	gen_fn_lists(e);
}

static void gen_fn_fini(struct gen_fn *e)
{
	spec_buf_free(&e->params);
	spec_buf_free(&e->real);
	spec_buf_free(&e->args);
	spec_buf_free(&e->last);
	spec_buf_free(&e->slow);
}

static void gen_emit_origin(const struct gen_fn *e)
{
	struct spec_buf b;

	spec_buf_init(&b);
	gen_emit_comment_text(&b, e->s->path);
	gen_out_printf(e->o, "/* %s:%d:%d: %s%s%s%s */\n", spec_buf_str(&b), e->f->pos.line,
	               e->f->pos.col, e->f->name, e->f->alias ? " (alias " : "",
	               e->f->alias ? e->f->symbol : "", e->f->alias ? ")" : "");
	spec_buf_free(&b);
}

/* Prints `text` (one or more lines) as if it were at the spec entry. */
static void gen_emit_at_spec(const struct gen_fn *e, const char *text)
{
	gen_emit_line(e->o, (unsigned long)e->f->pos.line, e->s->path);
	gen_out_puts(e->o, text);
	gen_emit_line(e->o, e->o->line + 1, e->o->name);
}

static void gen_emit_types(const struct gen_fn *e)
{
	const char *name = e->f->cname;
	struct spec_buf b, d;

	spec_buf_init(&b);
	spec_buf_init(&d);
	if (e->ret_typedef) {
		spec_buf_printf(&d, "apiprof_ret_%s", name);
		spec_buf_puts(&b, "typedef ");
		spec_ctype_format(e->f->ret, spec_buf_str(&d), &b);
		spec_buf_puts(&b, ";\n");
		d.len = 0;
	}
	spec_buf_printf(&d, "(*apiprof_fn_%s)(%s)", name, spec_buf_str(&e->real));
	spec_buf_puts(&b, "typedef ");
	gen_fn_decl(e, spec_buf_str(&d), &b);
	spec_buf_puts(&b, ";\n");
	gen_emit_at_spec(e, spec_buf_str(&b));
	gen_out_puts(e->o, "\n");
	spec_buf_free(&b);
	spec_buf_free(&d);
}

/* What a function that does not exist returns: -1 for signed integers
 * and NULL for pointers, like most C APIs report failure, else zero. */
enum gen_missing {
	GEN_MISS_VOID,
	GEN_MISS_ABORT, /* noreturn: it must not return, and cannot run */
	GEN_MISS_NULL,
	GEN_MISS_MINUS1,
	GEN_MISS_ZERO, /* a zero-initialized static of the return type */
};

static enum gen_missing gen_missing_kind(const struct gen_fn *e)
{
	if (e->f->noreturn)
		return GEN_MISS_ABORT;
	if (!e->returns)
		return GEN_MISS_VOID;
	if (e->f->ret->kind == SPEC_CT_POINTER)
		return GEN_MISS_NULL;
	return e->f->ret->is_signed_int ? GEN_MISS_MINUS1 : GEN_MISS_ZERO;
}

static void gen_emit_missing_return(const struct gen_fn *e, enum gen_missing k)
{
	static const char *const stmt[] = {
	        [GEN_MISS_VOID] = "",
	        [GEN_MISS_ABORT] = "\tabort();\n",
	        [GEN_MISS_NULL] = "\treturn NULL;\n",
	        [GEN_MISS_MINUS1] = "\treturn -1;\n",
	        [GEN_MISS_ZERO] = "\treturn apiprof_zero;\n",
	};

	gen_out_puts(e->o, stmt[k]);
}

static void gen_emit_missing(const struct gen_fn *e)
{
	const struct spec_func *f = e->f;
	enum gen_missing k = gen_missing_kind(e);
	struct spec_buf d, b;

	spec_buf_init(&d);
	spec_buf_init(&b);
	spec_buf_printf(&d, "apiprof_missing_%s(%s)", f->cname, spec_buf_str(&e->real));
	gen_fn_decl(e, spec_buf_str(&d), &b);
	gen_out_printf(e->o, "static %s\n{\n", spec_buf_str(&b));
	if (k == GEN_MISS_ZERO) {
		b.len = 0;
		gen_fn_decl(e, "apiprof_zero", &b);
		gen_out_printf(e->o, "\tstatic %s;\n\n", spec_buf_str(&b));
	}
	for (size_t i = 0; i < f->nparams; i++)
		gen_out_printf(e->o, "\t(void)%s;\n", f->params[i].name);
	if (f->vtwin)
		gen_out_puts(e->o, "\t(void)apiprof_ap;\n");
	gen_out_printf(e->o, "\tapiprof_missing(&apiprof_self.api, APIPROF_SYM_%s);\n", f->cname);
	gen_emit_missing_return(e, k);
	gen_out_puts(e->o, "}\n\n");
	spec_buf_free(&d);
	spec_buf_free(&b);
}

/* The union converts the object pointer dlsym returns to a function
 * pointer without a cast ISO C does not define.  A NULL that comes from
 * the runtime's recursion guard (this very lookup's dlsym called back into
 * the shim, as glibc's dlerror does with free) is not an answer: the call
 * gets the stub this once, and the lookup is made again next time. */
static void gen_emit_getter(const struct gen_fn *e)
{
	const char *n = e->f->cname;

	gen_out_printf(
	        e->o,
	        "static apiprof_fn_%s apiprof_get_%s(void)\n"
	        "{\n"
	        "\tapiprof_fn_%s f = __atomic_load_n(&apiprof_self.real_%s, __ATOMIC_RELAXED);\n"
	        "\tunion {\n\t\tvoid *p;\n\t\tapiprof_fn_%s f;\n\t} u;\n\n"
	        "\tif (apiprof_unlikely(f == NULL)) {\n"
	        "\t\tu.p = apiprof_resolve(&apiprof_self.api, APIPROF_SYM_%s);\n"
	        "\t\tf = u.p != NULL ? u.f : apiprof_missing_%s;\n"
	        "\t\tif (u.p != NULL || !apiprof_resolving())\n"
	        "\t\t\t__atomic_store_n(&apiprof_self.real_%s, f, __ATOMIC_RELAXED);\n"
	        "\t}\n"
	        "\treturn f;\n"
	        "}\n\n",
	        n, n, n, n, n, n, n, n);
}

/* The wrapper's name in C: the exported symbol itself when it is a plain
 * identifier, so the real header's declaration checks it; otherwise (a
 * "symbol" with another display name, a C++ mangled name, a versioned
 * export) an internal name given the linker name with __asm__ or .symver. */
static void gen_emit_signature(const struct gen_fn *e)
{
	const struct spec_func *f = e->f;
	struct spec_buf d, b;

	spec_buf_init(&d);
	spec_buf_init(&b);
	if (f->asm_label)
		spec_buf_printf(&d, "apiprof_wrap_%s(%s)", f->cname, spec_buf_str(&e->params));
	else /* in parentheses: a function-like macro of the name (zlib's
	      * gzgetc) must not expand the definition */
		spec_buf_printf(&d, "(%s)(%s)", f->symbol, spec_buf_str(&e->params));
	spec_buf_printf(&b, "APIPROF_WRAPPER %s", f->noreturn ? "__attribute__((noreturn)) " : "");
	gen_fn_decl(e, spec_buf_str(&d), &b);
	gen_emit_origin(e);
	if (f->asm_label && f->symver == SPEC_SYMVER_NONE)
		gen_out_printf(e->o, "%s __asm__(\"%s\");\n", spec_buf_str(&b), f->symbol);
	spec_buf_putc(&b, '\n');
	gen_emit_at_spec(e, spec_buf_str(&b));
	spec_buf_free(&d);
	spec_buf_free(&b);
}

/* A versioned export: `remove` drops the internal name, so only
 * SYMBOL@VERSION (or @@, the default) is left for the linker to export. */
static void gen_emit_symver(const struct gen_fn *e)
{
	const struct spec_func *f = e->f;

	if (f->symver == SPEC_SYMVER_NONE)
		return;
	gen_out_printf(e->o, "__asm__(\".symver apiprof_wrap_%s, %s%s%s, remove\");\n", f->cname,
	               f->symbol, f->symver == SPEC_SYMVER_DEFAULT ? "@@" : "@", f->version);
}

/* `[RET apiprof_r = ]apiprof_f(ARGS);`, or with `slow`,
 * `[RET apiprof_r = ]apiprof_slow_NAME(ARGS, apiprof_sp(), apiprof_caller());` */
static void gen_emit_call(const struct gen_fn *e, const char *indent, bool slow)
{
	struct spec_buf b;

	spec_buf_init(&b);
	if (e->returns)
		gen_fn_decl(e, "apiprof_r = ", &b);
	if (slow)
		gen_out_printf(e->o, "%s%sapiprof_slow_%s(%s%sapiprof_sp(), apiprof_caller());\n",
		               indent, spec_buf_str(&b), e->f->cname, spec_buf_str(&e->args),
		               e->args.len ? ", " : "");
	else
		gen_out_printf(e->o, "%s%sapiprof_f(%s);\n", indent, spec_buf_str(&b),
		               spec_buf_str(&e->args));
	spec_buf_free(&b);
}

/* Reads the fixed extra arguments of a variadic function ("extra"). */
static void gen_emit_extra(const struct gen_fn *e)
{
	struct spec_buf d, b;

	gen_out_printf(e->o, "\tva_start(apiprof_ap, %s);\n", spec_buf_str(&e->last));
	for (size_t i = 0; i < e->f->nextra; i++) {
		spec_buf_init(&d);
		spec_buf_init(&b);
		spec_buf_printf(&d, "apiprof_x%zu", i);
		spec_ctype_format(e->f->extra[i], spec_buf_str(&d), &b);
		spec_buf_puts(&b, " = va_arg(apiprof_ap, ");
		spec_ctype_format(e->f->extra[i], NULL, &b);
		gen_out_printf(e->o, "\t%s);\n", spec_buf_str(&b));
		spec_buf_free(&d);
		spec_buf_free(&b);
	}
	gen_out_puts(e->o, "\tva_end(apiprof_ap);\n");
}

static void gen_emit_prelude(const struct gen_fn *e)
{
	const char *n = e->f->cname;

	/* Not yet resolved, a call goes out of line and is resolved there: the
	 * wrapper then never calls out with its arguments live, so it needs
	 * no stack frame to keep them in. */
	if (e->f->noreturn)
		gen_out_printf(e->o, "{\n\tapiprof_fn_%s apiprof_f = apiprof_get_%s();\n", n, n);
	else
		gen_out_printf(e->o,
		               "{\n\tapiprof_fn_%s apiprof_f = "
		               "__atomic_load_n(&apiprof_self.real_%s, __ATOMIC_RELAXED);\n",
		               n, n);
	if (!e->f->noreturn)
		gen_out_puts(e->o, "\tstruct apiprof_call apiprof_c;\n\tunsigned apiprof_route;\n");
	if (e->f->variadic)
		gen_out_puts(e->o, "\tva_list apiprof_ap;\n");
	gen_out_puts(e->o, "\n");
	if (e->f->nextra)
		gen_emit_extra(e);
	if (e->f->vtwin)
		gen_out_printf(e->o, "\tva_start(apiprof_ap, %s);\n", spec_buf_str(&e->last));
}

/* Counted, never timed: there is no return to stop a clock at. */
static void gen_emit_noreturn_body(const struct gen_fn *e)
{
	gen_out_printf(e->o, "\tapiprof_count_noreturn(&apiprof_self.api, APIPROF_ROW_%s);\n",
	               e->row);
	gen_out_printf(e->o, "\tapiprof_f(%s);\n", spec_buf_str(&e->args));
	gen_out_puts(e->o, "\t__builtin_unreachable();\n}\n");
}

/* The end of a path: va_end in the wrapper (`va`) of a function with a
 * v-twin, and the return; an explicit one for void, inside a block. */
static void gen_emit_return(const struct gen_fn *e, bool va, bool block)
{
	const char *indent = block ? "\t\t" : "\t";

	if (va && e->f->vtwin)
		gen_out_printf(e->o, "%sva_end(apiprof_ap);\n", indent);
	if (e->returns)
		gen_out_printf(e->o, "%sreturn apiprof_r;\n", indent);
	else if (block)
		gen_out_printf(e->o, "%sreturn;\n", indent);
}

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

static bool gen_acct_any(const struct gen_fn *e)
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
static void gen_emit_leave(const struct gen_fn *e, const char *indent, const char *leave)
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

/* A call timed in full, in `how`: the clock is started after the last
 * branch on the way in, and the call returns from inside the block. */
static void gen_emit_timed(const struct gen_fn *e, bool va)
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

/* Everything the fast path leaves: forwarded (nested, runtime busy, no
 * table yet), a new site, sampled mode's timed calls inside another api's
 * call, the monotonic clock.  Out of line, with the wrapper's stack
 * pointer: a longjmp is told from nesting by the frames of the wrappers. */
static void gen_emit_slow(const struct gen_fn *e)
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
	gen_emit_timed(e, false);
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

/* A call nested in one of its api in progress, forwarded uncounted with
 * a tail jump (apiprof_shim.h apiprof_nested): a callback that calls the
 * function again then takes no more stack a level than bare.  A function
 * with a v-twin keeps the wrapper's frame, where its va_list lives, and
 * saves only the out-of-line one. */
static void gen_emit_nested(const struct gen_fn *e)
{
	gen_out_puts(e->o, "\tif (apiprof_f != NULL && apiprof_nested(&apiprof_self.api)) {\n");
	gen_emit_call(e, "\t\t", false);
	gen_emit_return(e, true, true);
	gen_out_puts(e->o, "\t}\n");
}

/* The fast path inline: timed, or counted in sampled mode. */
static void gen_emit_wrapper_body(const struct gen_fn *e)
{
	gen_emit_prelude(e);
	if (e->f->noreturn) {
		gen_emit_noreturn_body(e);
		return;
	}
	/* apiprof_shim.h apiprof_enter_acct says why the two differ */
	gen_out_printf(
	        e->o,
	        "\tapiprof_route = apiprof_likely(apiprof_f != NULL)\n"
	        "\t\t\t      ? apiprof_enter%s(&apiprof_self.api, &apiprof_c, APIPROF_ROW_%s, "
	        "apiprof_caller())\n"
	        "\t\t\t      : APIPROF_CALL_OUT;\n",
	        gen_acct_any(e) ? "_acct" : "", e->row);
	gen_emit_timed(e, true);
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

void gen_emit_func_types(const struct spec *s, const struct spec_func *f, struct gen_out *o)
{
	struct gen_fn e;

	gen_fn_init(&e, s, f, o);
	gen_emit_origin(&e);
	gen_emit_types(&e);
	gen_fn_fini(&e);
}

void gen_emit_func(const struct spec *s, const struct spec_func *f, struct gen_out *o)
{
	struct gen_fn e;

	gen_fn_init(&e, s, f, o);
	gen_out_puts(o, "\n");
	gen_emit_origin(&e);
	gen_emit_missing(&e);
	gen_emit_getter(&e);
	if (!f->noreturn)
		gen_emit_slow(&e);
	gen_emit_signature(&e);
	gen_emit_wrapper_body(&e);
	gen_emit_symver(&e);
	gen_fn_fini(&e);
}
