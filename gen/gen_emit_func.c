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
 * One file of gen/wrap/ prints each shape of wrapper: gen_wrap_timed.c the
 * plain one (the fast path inline), gen_wrap_acct.c the way out of a call
 * that counted, with the bytes, failures and errno a declaring function
 * adds, gen_wrap_noreturn.c a noreturn function's, gen_wrap_slow.c the
 * out-of-line half.  This file builds the function's context (struct
 * gen_fn, gen_wrap.h) and prints the rest: the types, the stub, the
 * getter, the signature and the pieces every shape shares.
 *
 * The wrapper's own locals are named apiprof_* because spec identifiers
 * may not use that prefix, so they can never shadow a parameter.  The
 * typedef and the wrapper's signature are put under `#line SPEC`: a type
 * the headers do not know, or a prototype that disagrees with theirs, is
 * reported by the compiler at the spec entry that caused it.
 */
#include <string.h>

#include "gen_wrap.h"

/* RET + declarator; a return type with parentheses or brackets (a
 * function pointer) goes through a typedef rather than C's inside-out
 * declarator syntax, for the sake of whoever reads the output. */
void gen_fn_decl(const struct gen_fn *e, const char *declarator, struct spec_buf *out)
{
	if (e->ret_typedef)
		spec_buf_printf(out, "apiprof_ret_%s %s", e->f->cname, declarator);
	else
		spec_ctype_format(e->f->ret, declarator, out);
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
	gen_wrap_slow_params(e);
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
void gen_emit_at_spec(const struct gen_fn *e, const char *text)
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
void gen_emit_call(const struct gen_fn *e, const char *indent, bool slow)
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

/* The end of a path: va_end in the wrapper (`va`) of a function with a
 * v-twin, and the return; an explicit one for void, inside a block. */
void gen_emit_return(const struct gen_fn *e, bool va, bool block)
{
	const char *indent = block ? "\t\t" : "\t";

	if (va && e->f->vtwin)
		gen_out_printf(e->o, "%sva_end(apiprof_ap);\n", indent);
	if (e->returns)
		gen_out_printf(e->o, "%sreturn apiprof_r;\n", indent);
	else if (block)
		gen_out_printf(e->o, "%sreturn;\n", indent);
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

/* The end of a wrapper's head, after the shape's own locals: a variadic
 * function's va_list, the extra arguments read, a v-twin's va_start. */
void gen_emit_varargs(const struct gen_fn *e)
{
	if (e->f->variadic)
		gen_out_puts(e->o, "\tva_list apiprof_ap;\n");
	gen_out_puts(e->o, "\n");
	if (e->f->nextra)
		gen_emit_extra(e);
	if (e->f->vtwin)
		gen_out_printf(e->o, "\tva_start(apiprof_ap, %s);\n", spec_buf_str(&e->last));
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
		gen_wrap_slow(&e);
	gen_emit_signature(&e);
	if (f->noreturn)
		gen_wrap_noreturn(&e);
	else
		gen_wrap_timed(&e);
	gen_emit_symver(&e);
	gen_fn_fini(&e);
}
