// SPDX-License-Identifier: MIT
/*
 * imp_parse.c - the header's functions and macros, as libclang sees them.
 *
 * The header is compiled by clang as C (gnu11, with the user's -I and
 * -D), so what counts is what a compiler sees after the preprocessor:
 * conditional declarations, attribute macros and typedefs are resolved
 * the way the program's compiler resolved them.  Only declarations in
 * files that are not system headers count as "declared by the header":
 * the header itself and what it includes from its own tree, not the libc
 * headers it pulls in.
 */
#include <clang-c/Index.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"
#include "imp_clang.h"

#define IMP_MAX_ERRORS 10

/* A macro seen before all functions are known: its name and the
 * identifiers that could name the function it expands to. */
struct imp_pending {
	char *name;
	struct spec_buf cands; /* space-separated */
};

struct imp_walk {
	struct imp_header *h;
	CXTranslationUnit tu;
	struct imp_pending *pend;
	size_t npend;
};

static char *imp_where(CXCursor c)
{
	CXFile file;
	unsigned line;
	char buf[32];
	struct spec_buf b;

	clang_getExpansionLocation(clang_getCursorLocation(c), &file, &line, NULL, NULL);
	char *name = imp_string(clang_getFileName(file));
	spec_buf_init(&b);
	snprintf(buf, sizeof buf, ":%u", line);
	spec_buf_puts(&b, name);
	spec_buf_puts(&b, buf);
	free(name);
	return spec_buf_steal(&b);
}

static struct imp_func *imp_func_find(struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nfuncs; i++)
		if (strcmp(h->funcs[i].name, name) == 0)
			return &h->funcs[i];
	return NULL;
}

/* clang names an anonymous type "(unnamed at /path/to/x.h:3:1)": the
 * reason keeps "(unnamed)", so the spec does not depend on where the
 * header was. */
static void imp_anonymize(struct spec_buf *b, const char *s)
{
	const char *at, *close;

	while ((at = strstr(s, " at ")) != NULL && (close = strchr(at, ')')) != NULL) {
		spec_buf_putn(b, s, (size_t)(at - s));
		s = close;
	}
	spec_buf_puts(b, s);
}

/* Marks f unsupported because of a type the grammar cannot write. */
static void imp_check_type(struct imp_func *f, const char *spelling)
{
	struct spec_buf b;

	if (f->unsupported != NULL || imp_type_ok(spelling))
		return;
	spec_buf_init(&b);
	spec_buf_puts(&b, "a type the spec grammar cannot write: ");
	imp_anonymize(&b, spelling);
	f->unsupported = spec_buf_steal(&b);
	f->unwritable = true;
}

static void imp_params(struct imp_walk *w, struct imp_func *f, CXCursor c, int n)
{
	f->params = spec_xcalloc((size_t)n + 1, sizeof *f->params);
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
		f->params[i].type = imp_type_spell(clang_getCursorType(a));
		char *name = imp_string(clang_getCursorSpelling(a));
		f->params[i].name = name[0] != '\0' ? name : NULL;
		if (f->params[i].name == NULL)
			free(name);
		imp_check_type(f, f->params[i].type);
		imp_note_type(w->h, clang_getCursorType(a));
		f->takes_va_list = i == n - 1 && imp_is_va_list(clang_getCursorType(a));
	}
	f->nparams = (size_t)n;
}

static struct imp_func *imp_func_new(struct imp_walk *w, CXCursor c, const char *name)
{
	struct imp_header *h = w->h;
	CXType ft = clang_getCursorType(c), rt = clang_getResultType(ft);
	int n = clang_Cursor_getNumArguments(c);

	h->funcs = spec_xrealloc(h->funcs, h->nfuncs + 1, sizeof *h->funcs);
	struct imp_func *f = &h->funcs[h->nfuncs++];
	memset(f, 0, sizeof *f);
	f->name = spec_xstrdup(name);
	f->where = imp_where(c);
	f->ret = imp_type_spell(rt);
	imp_check_type(f, f->ret);
	imp_note_type(h, rt);
	if (ft.kind == CXType_FunctionNoProto) {
		/* `int f();` says nothing about the parameters. */
		f->unsupported = spec_xstrdup("declared without a prototype");
		n = 0;
	}
	imp_params(w, f, c, n < 0 ? 0 : n);
	f->variadic = clang_Cursor_isVariadic(c) != 0;
	return f;
}

static bool imp_token_is(CXTranslationUnit tu, CXCursor c, const char *const *words)
{
	CXToken *toks = NULL;
	unsigned n = 0;
	bool hit = false;

	clang_tokenize(tu, clang_getCursorExtent(c), &toks, &n);
	for (unsigned i = 0; i < n && !hit; i++) {
		char *s = imp_string(clang_getTokenSpelling(tu, toks[i]));
		for (unsigned j = 0; words[j] != NULL && !hit; j++)
			hit = strcmp(s, words[j]) == 0;
		free(s);
	}
	clang_disposeTokens(tu, toks, n);
	return hit;
}

struct imp_attrs {
	CXTranslationUnit tu;
	bool noreturn;
};

static enum CXChildVisitResult imp_attr(CXCursor c, CXCursor parent, CXClientData data)
{
	static const char *const nr[] = {"_Noreturn", "noreturn", "__noreturn__", NULL};
	struct imp_attrs *a = data;

	(void)parent;
	if (clang_isAttribute(clang_getCursorKind(c)) && imp_token_is(a->tu, c, nr))
		a->noreturn = true;
	return CXChildVisit_Continue;
}

/* GNU noreturn is part of the function type; C11 _Noreturn is an
 * attribute of the declaration, which libclang exposes only as tokens. */
static bool imp_noreturn(struct imp_walk *w, CXCursor c)
{
	struct imp_attrs a = {.tu = w->tu};
	char *t = imp_type_spell(clang_getCursorType(c));

	a.noreturn = strstr(t, "__attribute__((noreturn))") != NULL;
	free(t);
	if (!a.noreturn)
		clang_visitChildren(c, imp_attr, &a);
	return a.noreturn;
}

static void imp_visit_func(struct imp_walk *w, CXCursor c)
{
	char *name = imp_string(clang_getCursorSpelling(c));
	struct imp_func *f = imp_func_find(w->h, name);

	if (f == NULL)
		f = imp_func_new(w, c, name);
	free(name);
	/* Any declaration may add an attribute or make it inline/static. */
	if (clang_Cursor_isFunctionInlined(c) || clang_Cursor_getStorageClass(c) == CX_SC_Static)
		f->skipped = true;
	if (clang_getCursorAvailability(c) == CXAvailability_Deprecated)
		f->deprecated = true;
	if (imp_noreturn(w, c))
		f->noreturn = true;
}

/* Which identifiers of a macro's body could be the function it stands
 * for: in a function-like macro those followed by '(', in an object-like
 * one a body of exactly one identifier (`#define compress z_compress`). */
static void imp_macro_cands(struct imp_walk *w, CXToken *t, unsigned n, bool fnlike,
                            struct spec_buf *out)
{
	unsigned i = 1, depth = 0;

	if (fnlike) {
		for (; i < n; i++) {
			char *s = imp_string(clang_getTokenSpelling(w->tu, t[i]));
			depth += strcmp(s, "(") == 0;
			depth -= strcmp(s, ")") == 0;
			free(s);
			if (depth == 0 && i > 1)
				break;
		}
		i++;
	} else if (n != 2) {
		return;
	}
	for (; i < n; i++) {
		if (clang_getTokenKind(t[i]) != CXToken_Identifier)
			continue;
		char *next = i + 1 < n ? imp_string(clang_getTokenSpelling(w->tu, t[i + 1])) : NULL;
		if (!fnlike || (next != NULL && strcmp(next, "(") == 0)) {
			char *s = imp_string(clang_getTokenSpelling(w->tu, t[i]));
			spec_buf_printf(out, "%s ", s);
			free(s);
		}
		free(next);
	}
}

static void imp_visit_macro(struct imp_walk *w, CXCursor c)
{
	CXToken *toks = NULL;
	unsigned n = 0;

	if (clang_Cursor_isMacroBuiltin(c))
		return;
	clang_tokenize(w->tu, clang_getCursorExtent(c), &toks, &n);
	w->pend = spec_xrealloc(w->pend, w->npend + 1, sizeof *w->pend);
	struct imp_pending *p = &w->pend[w->npend++];
	p->name = imp_string(clang_getCursorSpelling(c));
	spec_buf_init(&p->cands);
	if (n > 0)
		imp_macro_cands(w, toks, n, clang_Cursor_isMacroFunctionLike(c) != 0, &p->cands);
	clang_disposeTokens(w->tu, toks, n);
}

static enum CXChildVisitResult imp_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct imp_walk *w = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (k == CXCursor_FunctionDecl)
		imp_visit_func(w, c);
	else if (k == CXCursor_MacroDefinition)
		imp_visit_macro(w, c);
	return CXChildVisit_Continue;
}

/* A macro over a declared function, unless the macro's name is itself a
 * declared function (zlib's gzgetc: the macro is a fast path of it). */
static void imp_resolve_macro(struct imp_header *h, struct imp_pending *p)
{
	char *save = NULL;

	if (imp_func_find(h, p->name) != NULL || p->cands.len == 0)
		return;
	for (char *tok = strtok_r(p->cands.s, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		if (imp_func_find(h, tok) == NULL)
			continue;
		h->macros = spec_xrealloc(h->macros, h->nmacros + 1, sizeof *h->macros);
		h->macros[h->nmacros].name = spec_xstrdup(p->name);
		h->macros[h->nmacros++].target = spec_xstrdup(tok);
		return;
	}
}

static void imp_resolve_macros(struct imp_walk *w)
{
	for (size_t i = 0; i < w->npend; i++) {
		imp_resolve_macro(w->h, &w->pend[i]);
		free(w->pend[i].name);
		spec_buf_free(&w->pend[i].cands);
	}
	free(w->pend);
}

static int imp_diagnostics(CXTranslationUnit tu)
{
	unsigned n = clang_getNumDiagnostics(tu), errors = 0;

	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error &&
		    errors++ < IMP_MAX_ERRORS) {
			char *msg = imp_string(
			        clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions()));
			fprintf(stderr, "%s\n", msg);
			free(msg);
		}
		clang_disposeDiagnostic(d);
	}
	if (errors == 0)
		return 0;
	fprintf(stderr, "apiprof-gen: import: the header does not compile (%u errors)\n", errors);
	return -1;
}

static CXTranslationUnit imp_compile(CXIndex idx, const struct imp_opts *o)
{
	const char **args = spec_xcalloc(o->ncflags + 4, sizeof *args);
	CXTranslationUnit tu = NULL;
	size_t n = 0;

	args[n++] = "-xc";
	args[n++] = "-std=gnu11";
	/* The generated shim defines it: parse what the shim will compile. */
	args[n++] = "-D_GNU_SOURCE";
	for (size_t i = 0; i < o->ncflags; i++)
		args[n++] = o->cflags[i];
	enum CXErrorCode e =
	        clang_parseTranslationUnit2(idx, o->header, args, (int)n, NULL, 0,
	                                    CXTranslationUnit_DetailedPreprocessingRecord |
	                                            CXTranslationUnit_SkipFunctionBodies,
	                                    &tu);
	free(args);
	if (e != CXError_Success || tu == NULL) {
		fprintf(stderr, "apiprof-gen: import: libclang cannot parse %s (error %d)\n",
		        o->header, (int)e);
		return NULL;
	}
	return tu;
}

int imp_parse(const struct imp_opts *o, struct imp_header *h)
{
	CXIndex idx = clang_createIndex(0, 0);
	struct imp_walk w = {.h = h};
	int rc = -1;

	w.tu = imp_compile(idx, o);
	if (w.tu != NULL && imp_diagnostics(w.tu) == 0) {
		clang_visitChildren(clang_getTranslationUnitCursor(w.tu), imp_visit, &w);
		imp_resolve_macros(&w);
		rc = 0;
	}
	if (w.tu != NULL)
		clang_disposeTranslationUnit(w.tu);
	clang_disposeIndex(idx);
	return rc;
}
