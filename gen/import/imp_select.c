// SPDX-License-Identifier: MIT
/*
 * imp_select.c - which of the header's functions go into the spec.
 *
 * A function is kept when the header declares it (not inline, not
 * static), the library exports it, and it passes the filter: --prefix
 * (names starting with it; '' takes everything) or --functions (a list,
 * where a macro's name stands for the function it expands to).  What the
 * header and the library disagree on is reported, one line per kind, in
 * sorted order so that a re-import diffs like the spec does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"
#include "spec_ident.h"
#include "spec.h"
#include "imp.h"

/* The names a filter lets through, as a sorted list of one kind. */
struct imp_list {
	const char **v;
	size_t n;
};

static void imp_list_add(struct imp_list *l, const char *s)
{
	l->v = spec_xrealloc(l->v, l->n + 1, sizeof *l->v);
	l->v[l->n++] = s;
}

/* "what: a, b, c" on one line, sorted; nothing when the list is empty. */
/* The names a warning shows; --verbose shows them all. */
#define IMP_LIST_SHOWN 8

static bool imp_verbose;

/* One line per list: its count, its first names in order, then what to
 * do about it (hint, or NULL), never a line of 900 names. */
static void imp_list_report(struct imp_list *l, const char *what, const char *hint)
{
	struct spec_buf b;
	size_t shown = imp_verbose || l->n <= IMP_LIST_SHOWN ? l->n : IMP_LIST_SHOWN;

	if (l->n > 0) {
		qsort(l->v, l->n, sizeof *l->v, imp_cmp_str);
		spec_buf_init(&b);
		for (size_t i = 0; i < shown; i++)
			spec_buf_printf(&b, "%s%s", i ? ", " : "", l->v[i]);
		if (shown < l->n)
			spec_buf_printf(&b, ", and %zu more (--verbose lists them)", l->n - shown);
		if (hint != NULL)
			spec_buf_printf(&b, "; %s", hint);
		imp_warn("%s (%zu): %s", what, l->n, spec_buf_str(&b));
		spec_buf_free(&b);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static bool imp_in_csv(const char *csv, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = csv; (p = strstr(p, name)) != NULL; p += n)
		if ((p == csv || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static const char *imp_macro_over(const struct imp_header *h, const char *target, const char *csv)
{
	for (size_t i = 0; i < h->nmacros; i++)
		if (strcmp(h->macros[i].target, target) == 0 &&
		    (csv == NULL || imp_in_csv(csv, h->macros[i].name)))
			return h->macros[i].name;
	return NULL;
}

static bool imp_wanted(const struct imp_opts *o, const struct imp_header *h, const char *name)
{
	if (o->functions != NULL)
		return imp_in_csv(o->functions, name) ||
		       imp_macro_over(h, name, o->functions) != NULL;
	return strncmp(name, o->prefix ? o->prefix : "", strlen(o->prefix ? o->prefix : "")) == 0;
}

static const struct imp_func *imp_declared(const struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nfuncs; i++)
		if (strcmp(h->funcs[i].name, name) == 0)
			return &h->funcs[i];
	return NULL;
}

/* printf -> vprintf, sqlite3_mprintf -> sqlite3_vmprintf: a 'v' inserted
 * somewhere in the name. */
static bool imp_v_inserted(const char *name, const char *twin)
{
	size_t n = strlen(name);

	if (strlen(twin) != n + 1)
		return false;
	for (size_t i = 0; i <= n; i++)
		if (twin[i] == 'v' && strncmp(name, twin, i) == 0 &&
		    strcmp(name + i, twin + i + 1) == 0)
			return true;
	return false;
}

/* The twin takes the same named parameters plus a va_list and returns
 * the same type, so the wrapper can hand its `...` over as that va_list. */
static bool imp_is_twin(const struct imp_func *f, const struct imp_func *g)
{
	if (!g->takes_va_list || g->variadic || g->skipped || g->unsupported != NULL ||
	    g->nparams != f->nparams + 1 || strcmp(f->ret, g->ret) != 0 ||
	    !imp_v_inserted(f->name, g->name))
		return false;
	for (size_t i = 0; i < f->nparams; i++)
		if (strcmp(f->params[i].type, g->params[i].type) != 0)
			return false;
	return true;
}

static void imp_find_twin(struct imp_header *h, const struct imp_exports *x, struct imp_func *f)
{
	for (size_t i = 0; i < h->nfuncs; i++) {
		if (imp_is_twin(f, &h->funcs[i]) && imp_export_find(x, h->funcs[i].name) != NULL) {
			f->vtwin = h->funcs[i].name;
			return;
		}
	}
	if (f->unsupported == NULL)
		f->unsupported = spec_xstrdup("variadic without a va_list twin");
}

/* What the generator refuses by name; kept in the spec, marked. */
static void imp_check_name(struct imp_func *f)
{
	const char *why = NULL;

	if (strcmp(f->name, "dlsym") == 0 || strcmp(f->name, "dlvsym") == 0)
		why = "the shim itself calls it";
	else if (spec_check_ident(f->name, SPEC_FUNC_NAME_MAX) != SPEC_NAME_OK)
		why = "its name is longer than 63 characters or reserved";
	if (why != NULL && f->unsupported == NULL)
		f->unsupported = spec_xstrdup(why);
}

static size_t imp_keep(struct imp_header *h, const struct imp_exports *x, struct imp_func *f)
{
	const struct imp_export *e = imp_export_find(x, f->name);

	f->kept = true;
	imp_check_name(f);
	if (f->variadic)
		imp_find_twin(h, x, f);
	if (e->old != NULL)
		imp_warn("note: %s also has the old version %s@%s, which is not profiled", f->name,
		         f->name, e->old);
	return 1;
}

static void imp_report_macros(const struct imp_header *h)
{
	for (size_t i = 0; i < h->nmacros; i++) {
		const struct imp_func *f = imp_declared(h, h->macros[i].target);
		if (f != NULL && f->kept)
			imp_warn("note: %s is a macro over %s: its calls are profiled as %s",
			         h->macros[i].name, f->name, f->name);
	}
}

/* Exported names the filter takes that the header does not declare. */
static void imp_report_undeclared(const struct imp_opts *o, const struct imp_header *h,
                                  const struct imp_exports *x)
{
	struct imp_list l = {0};
	char what[512];

	for (size_t i = 0; i < x->nsyms; i++)
		if (imp_wanted(o, h, x->syms[i].name) && imp_declared(h, x->syms[i].name) == NULL)
			imp_list_add(&l, x->syms[i].name);
	snprintf(what, sizeof what, "warning: exported by %s but not declared in the header",
	         x->path);
	imp_list_report(&l, what,
	                "not profiled; if they belong to the API, import the header that "
	                "declares them, or narrow with --prefix or --functions");
}

static bool imp_is_macro(const struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nmacros; i++)
		if (strcmp(h->macros[i].name, name) == 0)
			return true;
	return false;
}

/* --functions names that are nothing at all: most likely a typo. */
static void imp_report_unknown(const struct imp_opts *o, const struct imp_header *h,
                               const struct imp_exports *x)
{
	struct imp_list l = {0};
	char *save = NULL;

	if (o->functions == NULL)
		return;
	char *csv = spec_xstrdup(o->functions);
	for (char *tok = strtok_r(csv, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (imp_declared(h, tok) == NULL && !imp_is_macro(h, tok) &&
		    imp_export_find(x, tok) == NULL)
			imp_list_add(&l, tok);
	imp_list_report(&l, "warning: --functions names neither declared nor exported", "a typo?");
	free(csv);
}

size_t imp_select(const struct imp_opts *o, struct imp_header *h, const struct imp_exports *x)
{
	struct imp_list unexported = {0}, skipped = {0};
	char what[512];
	size_t kept = 0;

	imp_verbose = o->verbose;
	for (size_t i = 0; i < h->nfuncs; i++) {
		struct imp_func *f = &h->funcs[i];
		if (!imp_wanted(o, h, f->name))
			continue;
		if (f->skipped)
			imp_list_add(&skipped, f->name);
		else if (imp_export_find(x, f->name) == NULL)
			imp_list_add(&unexported, f->name);
		else
			kept += imp_keep(h, x, f);
	}
	imp_list_report(&skipped, "note: inline or static, no exported entry point: skipped", NULL);
	snprintf(what, sizeof what, "warning: declared in the header but not exported by %s",
	         x->path);
	imp_list_report(&unexported, what,
	                "not profiled; is --library the library that defines them?");
	imp_report_undeclared(o, h, x);
	imp_report_unknown(o, h, x);
	imp_report_macros(h);
	return kept;
}
