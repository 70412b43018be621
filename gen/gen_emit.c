// SPDX-License-Identifier: MIT
/*
 * gen_emit.c - the prologue and tables of a generated shim.
 */
#include <string.h>

#include "apiprof_loader_calls.h"
#include "gen_emit.h"

/* A C string literal for any bytes: the spec path comes from the command
 * line, not through the spec's allow-lists.  Octal escapes are always
 * three digits so a following digit cannot extend them; '?' is escaped
 * against trigraphs. */
void gen_emit_cstr(struct spec_buf *b, const char *s)
{
	spec_buf_putc(b, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\' || c == '?')
			spec_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			spec_buf_printf(b, "\\%03o", c);
		else
			spec_buf_putc(b, (char)c);
	}
	spec_buf_putc(b, '"');
}

/* Text inside a comment: no '*' or '/' pairs that would end it or nest
 * one (-Wcomment), no backslash or control character to splice lines. */
void gen_emit_comment_text(struct spec_buf *b, const char *s)
{
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		spec_buf_putc(b, c < 0x20 || c == 0x7f || c == '*' || c == '\\' ? '?' : (char)c);
	}
}

/* `#line` maps the following lines to `file`; spec entries use it so a
 * compile error in a wrapper names the spec line that produced it. */
void gen_emit_line(struct gen_out *o, unsigned long line, const char *file)
{
	struct spec_buf b;

	spec_buf_init(&b);
	gen_emit_cstr(&b, file);
	gen_out_printf(o, "#line %lu %s\n", line, spec_buf_str(&b));
	spec_buf_free(&b);
}

static bool gen_any_noreturn(const struct spec *s)
{
	for (size_t i = 0; i < s->nfuncs; i++)
		if (s->funcs[i].noreturn)
			return true;
	return false;
}

static bool gen_func_uses_bool(const struct spec_func *f)
{
	if (f->ret->uses_bool)
		return true;
	for (size_t i = 0; i < f->nparams; i++)
		if (f->params[i].type->uses_bool)
			return true;
	for (size_t i = 0; i < f->nextra; i++)
		if (f->extra[i]->uses_bool)
			return true;
	return false;
}

static bool gen_any_bool(const struct spec *s)
{
	for (size_t i = 0; i < s->nfuncs; i++)
		if (gen_func_uses_bool(&s->funcs[i]))
			return true;
	for (size_t i = 0; i < s->naliases; i++)
		if (gen_func_uses_bool(&s->aliases[i]))
			return true;
	return false;
}

static void gen_emit_prologue(const struct spec *s, struct gen_out *o)
{
	struct spec_buf b;

	spec_buf_init(&b);
	gen_emit_comment_text(&b, s->path);
	gen_out_printf(o, "/* generated from %s \u2014 do not edit */\n", spec_buf_str(&b));
	spec_buf_free(&b);
	/* The spec's "defines" first, as -D would: allow-listed to an
	 * identifier and one token (spec_check_define). */
	for (size_t i = 0; i < s->ndefines; i++) {
		const char *d = s->defines[i], *eq = strchr(d, '=');
		const char *v = eq ? eq + 1 : "1";
		gen_out_printf(o, "#define %.*s%s%s\n", (int)strcspn(d, "="), d, *v ? " " : "", v);
	}
	gen_out_puts(o, "#ifndef _GNU_SOURCE\n#define _GNU_SOURCE 1\n#endif\n");
	gen_out_puts(o, "#include <stdarg.h>\n");
	if (gen_any_bool(s))
		gen_out_puts(o, "#include <stdbool.h>\n");
	gen_out_puts(o, "#include <stddef.h>\n#include <stdint.h>\n");
	if (gen_any_noreturn(s))
		gen_out_puts(o, "#include <stdlib.h>\n");
	gen_out_puts(o, "\n");
	for (size_t i = 0; i < s->nheaders; i++)
		gen_out_printf(o, "#include <%s>\n", s->headers[i]);
	gen_out_puts(o, s->nheaders ? "\n#include \"apiprof_shim.h\"\n\n"
	                            : "#include \"apiprof_shim.h\"\n\n");
}

/* The symbol tables run over the rows and then the aliases. */
static const struct spec_func *gen_sym_at(const struct spec *s, size_t i)
{
	return i < s->nfuncs ? &s->funcs[i] : &s->aliases[i - s->nfuncs];
}

/* The names of the rows and of the symbols, which the wrappers and the
 * table use instead of bare numbers: APIPROF_ROW_<name> is the statistics
 * row of function <name>, APIPROF_SYM_<name> its symbol (or an alias's),
 * the same number for a function's own. */
static void gen_emit_names(const struct spec *s, struct gen_out *o)
{
	gen_out_puts(o, "/* The rows by name, then the symbols (the rows' own, then the aliases). */\n"
	                "enum {\n");
	for (size_t i = 0; i < s->nfuncs; i++)
		gen_out_printf(o, "\tAPIPROF_ROW_%s = %zu,\n", s->funcs[i].cname, i);
	for (size_t i = 0; i < s->nfuncs + s->naliases; i++)
		gen_out_printf(o, "\tAPIPROF_SYM_%s = %zu,\n", gen_sym_at(s, i)->cname, i);
	gen_out_puts(o, "};\n\n");
}

/* One of a row's APIPROF_FUNC_* flags, after `sep` when it is set; the
 * separator of the next. */
static const char *gen_emit_flag(struct gen_out *o, const char *sep, bool set, const char *flag)
{
	if (!set)
		return sep;
	gen_out_printf(o, "%sAPIPROF_FUNC_%s", sep, flag);
	return " | ";
}

static void gen_emit_flags(const struct spec_func *f, struct gen_out *o)
{
	const char *sep = ", .flags = ";

	sep = gen_emit_flag(o, sep, f->noreturn, "NORETURN");
	sep = gen_emit_flag(o, sep, f->acct.bytes, "BYTES");
	sep = gen_emit_flag(o, sep, f->acct.fails, "FAILS");
	gen_emit_flag(o, sep, f->acct.err_no, "ERRNO");
}

/* One row of the table per symbol (struct apiprof_sym): what is looked
 * up (the v-twin for a function forwarded as a va_list) and its version,
 * its row's display name and flags, its wrapper's linker name and own
 * address (gen_emit_entries), and the row it counts into.  Every string
 * is allow-listed or an identifier: safe inside quotes as it is. */
static void gen_emit_syms(const struct spec *s, struct gen_out *o)
{
	gen_out_printf(o, "static uint32_t apiprof_missing_warned[%zu];\n",
	               s->nfuncs + s->naliases);
	gen_out_puts(o, "/* One row per symbol, the rows' own and then the aliases'. */\n"
	                "static const struct apiprof_sym apiprof_syms[] = {\n");
	for (size_t i = 0; i < s->nfuncs + s->naliases; i++) {
		const struct spec_func *f = gen_sym_at(s, i), *row = &s->funcs[f->row];

		gen_out_printf(o, "\t[APIPROF_SYM_%s] = {.symbol = \"%s\"", f->cname, f->lookup);
		if (f->version != NULL)
			gen_out_printf(o, ", .version = \"%s\"", f->version);
		gen_out_printf(o, ", .display = \"%s\", .wrapper = \"%s\", .entry = apiprof_at_%zu",
		               row->name, f->symbol, i);
		gen_out_printf(o, ", .row = APIPROF_ROW_%s", row->cname);
		gen_emit_flags(row, o);
		gen_out_puts(o, "},\n");
	}
	gen_out_puts(o, "};\n");
}

/* The wrappers' own addresses, per symbol, for the runtime to tell a
 * return address into one (apiprof_wrappers.c).  Through hidden symbols
 * set to each wrapper's address, which the linker binds in this object:
 * the exported name itself may be bound to another object's definition
 * (an allocator or a second shim preloaded first). */
static void gen_emit_entries(const struct spec *s, struct gen_out *o)
{
	size_t n = s->nfuncs + s->naliases;

	for (size_t i = 0; i < n; i++) {
		const struct spec_func *f = gen_sym_at(s, i);

		/* a versioned one's name is the one .symver exports it from */
		bool v = f->symver != SPEC_SYMVER_NONE;

		gen_out_printf(
		        o,
		        "__asm__(\".hidden apiprof_at_%zu\\n\\t.set apiprof_at_%zu, %s%s%s\");\n",
		        i, i, v ? "apiprof_wrap_" : "\\\"", v ? f->cname : f->symbol,
		        v ? "" : "\\\"");
		gen_out_printf(
		        o,
		        "extern char apiprof_at_%zu[] __attribute__((visibility(\"hidden\")));\n",
		        i);
	}
	gen_out_puts(o, "extern char __stop_apiprof_wrappers[] "
	                "__attribute__((visibility(\"hidden\")));\n");
}

/* The api and, right after it, the pointers to the real functions, in the
 * spec's order: a call reads tls and slot from the api's last line, which
 * also holds the first five pointers (apiprof_shim.h), so the first five
 * functions of a spec cost one line of the shim's data, not two. */
static void gen_emit_api(const struct spec *s, struct gen_out *o)
{
	struct spec_buf path;

	spec_buf_init(&path);
	gen_emit_cstr(&path, s->path);
	gen_out_puts(o, "\nstatic struct {\n\tstruct apiprof_api api;\n");
	for (size_t i = 0; i < s->nfuncs; i++)
		gen_out_printf(o, "\tapiprof_fn_%s real_%s;\n", s->funcs[i].cname,
		               s->funcs[i].cname);
	for (size_t i = 0; i < s->naliases; i++)
		gen_out_printf(o, "\tapiprof_fn_%s real_%s;\n", s->aliases[i].cname,
		               s->aliases[i].cname);
	gen_out_printf(o,
	               "} apiprof_self __attribute__((aligned(64))) = {.api = {\n"
	               "\t.abi = APIPROF_SHIM_ABI,\n"
	               "\t.name = \"%s\",\n"
	               "\t.library = \"%s\",\n"
	               "\t.spec = %s,\n"
	               "\t.nfuncs = %zu,\n"
	               "\t.func_base = APIPROF_FUNC_UNSET,\n"
	               "\t.nsyms = %zu,\n"
	               "\t.syms = apiprof_syms,\n"
	               "\t.missing_warned = apiprof_missing_warned,\n"
	               "\t.entries_end = __stop_apiprof_wrappers,\n"
	               "}};\n",
	               s->api, s->library, spec_buf_str(&path), s->nfuncs, s->nfuncs + s->naliases);
	spec_buf_free(&path);
}

/* The lookups of the constructor: every symbol's (all), or only those of
 * the functions the loader itself calls. */
static size_t gen_emit_gets(const struct spec *s, struct gen_out *o, bool all)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfuncs + s->naliases; i++) {
		const struct spec_func *f = gen_sym_at(s, i);

		if (!all && !apiprof_loader_calls(f->lookup))
			continue;
		if (o != NULL)
			gen_out_printf(o, "\t\t(void)apiprof_get_%s();\n", f->cname);
		n++;
	}
	return n;
}

/* Registers the api and resolves every real function while the program
 * has not started yet.  Lazy resolution alone would first run inside
 * whatever calls a wrapper first, and that may be glibc's own dlsym or
 * dlerror code (which allocates and frees through the malloc shim): a
 * lookup from in there re-enters dlerror state that is half updated.
 * What is not found now is not final (the library may be dlopen()ed
 * later): apiprof_prefetch keeps such NULLs from being cached.  Where the
 * library is absent (apiprof_prefetch_all), only the functions the loader
 * itself calls are looked up, the rest at their first call: a process
 * that never loads it does nothing per function (issue 35.6).
 * apiprof_prefetch_all is weak: a runtime older than it has none, and the
 * shim looks up everything, as it did. */
static void gen_emit_ctor(const struct spec *s, struct gen_out *o)
{
	gen_out_puts(o, "\n#pragma weak apiprof_prefetch_all\n"
	                "__attribute__((constructor)) static void apiprof_shim_init(void)\n"
	                "{\n\tapiprof_register(&apiprof_self.api);\n\tapiprof_prefetch(1);\n"
	                "\tif (!apiprof_prefetch_all ||\n"
	                "\t    apiprof_prefetch_all(&apiprof_self.api, apiprof_next)) {\n");
	gen_emit_gets(s, o, true);
	if (gen_emit_gets(s, NULL, false) > 0) {
		gen_out_puts(o, "\t} else {\n");
		gen_emit_gets(s, o, false);
	}
	gen_out_puts(o, "\t}\n\tapiprof_prefetch(0);\n}\n");
}

void gen_emit(const struct spec *s, struct gen_out *o)
{
	gen_emit_prologue(s, o);
	gen_emit_names(s, o);
	for (size_t i = 0; i < s->nfuncs; i++)
		gen_emit_func_types(s, &s->funcs[i], o);
	for (size_t i = 0; i < s->naliases; i++)
		gen_emit_func_types(s, &s->aliases[i], o);
	gen_emit_entries(s, o);
	gen_emit_syms(s, o);
	gen_emit_api(s, o);
	for (size_t i = 0; i < s->nfuncs; i++)
		gen_emit_func(s, &s->funcs[i], o);
	for (size_t i = 0; i < s->naliases; i++)
		gen_emit_func(s, &s->aliases[i], o);
	gen_emit_ctor(s, o);
}
