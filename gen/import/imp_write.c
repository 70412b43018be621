// SPDX-License-Identifier: MIT
/*
 * imp_write.c - the imported spec, written so that it diffs well.
 *
 * Same input, same bytes: functions sorted by name (strcmp), layouts
 * sorted by type name, keys in a fixed order, one function and one
 * layout per line as in the shipped specs, and nothing that varies
 * between machines or runs (no date, no absolute path).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"
#include "spec_ctype.h"
#include "spec_ident.h"
#include "gen_out.h"
#include "imp.h"

/* A JSON string: escapes quotes, backslashes and control characters. */
static void imp_json_str(struct spec_buf *b, const char *s)
{
	spec_buf_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			spec_buf_printf(b, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			spec_buf_printf(b, "\\u%04x", (unsigned)(unsigned char)*s);
		else
			spec_buf_putc(b, *s);
	}
	spec_buf_putc(b, '"');
}

static void imp_json_key(struct spec_buf *b, const char *key, const char *value)
{
	spec_buf_printf(b, ", \"%s\": ", key);
	imp_json_str(b, value);
}

static void imp_write_params(struct spec_buf *b, const struct imp_func *f)
{
	spec_buf_puts(b, ", \"params\": [");
	for (size_t i = 0; i < f->nparams; i++) {
		spec_buf_puts(b, i ? ", {\"type\": " : "{\"type\": ");
		imp_json_str(b, f->params[i].type);
		if (f->params[i].name != NULL)
			imp_json_key(b, "name", f->params[i].name);
		spec_buf_putc(b, '}');
	}
	spec_buf_putc(b, ']');
}

static void imp_write_func(struct spec_buf *b, const struct imp_func *f, bool last)
{
	spec_buf_puts(b, "    {\"name\": ");
	imp_json_str(b, f->name);
	if (!f->unwritable) {
		imp_json_key(b, "returns", f->ret);
		imp_write_params(b, f);
	}
	if (f->vtwin != NULL) {
		spec_buf_puts(b, ", \"variadic\": {\"vtwin\": ");
		imp_json_str(b, f->vtwin);
		spec_buf_putc(b, '}');
	}
	if (f->noreturn)
		spec_buf_puts(b, ", \"noreturn\": true");
	if (f->deprecated)
		spec_buf_puts(b, ", \"deprecated\": true");
	if (f->unsupported != NULL)
		imp_json_key(b, "unsupported", f->unsupported);
	spec_buf_puts(b, last ? "}\n" : "},\n");
}

static int imp_cmp_func(const void *a, const void *b)
{
	return strcmp((*(const struct imp_func *const *)a)->name,
	              (*(const struct imp_func *const *)b)->name);
}

/* An entry of "types": a layout or a typedef's canonical type. */
struct imp_entry {
	const char *name;
	const struct imp_record *r; /* or */
	const struct imp_tdef *t;
};

static int imp_cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct imp_entry *)a)->name, ((const struct imp_entry *)b)->name);
}

static struct imp_record *imp_record_named(const struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nrecords; i++)
		if (strcmp(h->records[i].name, name) == 0)
			return &h->records[i];
	return NULL;
}

static bool imp_tok_is(const struct spec_tok *k, const char *w)
{
	return k->n == strlen(w) && memcmp(k->s, w, k->n) == 0;
}

/* The name dynamic mode looks a typedef or enum up by ("xmlChar", "enum
 * X"), for a type by value; NULL for anything else (a pointer, a builtin,
 * a struct or union, whose layout is found by its spelling). */
static char *imp_type_key(const char *type)
{
	struct spec_ctype_err err;
	struct spec_buf b;
	struct spec_ctype *t = spec_ctype_parse(type, &err);
	bool ok = t != NULL && t->kind == SPEC_CT_BASE;

	spec_buf_init(&b);
	for (size_t i = 0; ok && i < t->ntoks; i++) {
		const struct spec_tok *k = &t->toks[i];
		if (imp_tok_is(k, "struct") || imp_tok_is(k, "union"))
			ok = false;
		else if (imp_tok_is(k, "enum"))
			spec_buf_puts(&b, "enum ");
		else if (!spec_is_keyword(k->s, k->n))
			spec_buf_printf(&b, "%.*s", (int)k->n, k->s);
	}
	spec_ctype_free(t);
	if (!ok || b.len == 0) {
		spec_buf_free(&b);
		return NULL;
	}
	return spec_buf_steal(&b);
}

static void imp_need_tdef(const struct imp_header *h, const char *base, bool *need)
{
	char *key = imp_type_key(base);

	for (size_t i = 0; key != NULL && i < h->ntdefs; i++)
		if (strcmp(h->tdefs[i].name, key) == 0)
			need[i] = true;
	free(key);
}

/* Marks the layout of `type` needed, and those of its members; or the
 * typedef it names. */
static void imp_need(const struct imp_header *h, const char *type, bool *need, bool *need_tdef)
{
	char *base = spec_xstrdup(type);
	char *sp = strstr(base, " [");

	if (sp != NULL) /* an array member: its element */
		*sp = '\0';
	imp_need_tdef(h, base, need_tdef);
	struct imp_record *r = imp_record_named(h, base);
	free(base);
	if (r == NULL || need[r - h->records])
		return;
	need[r - h->records] = true;
	for (size_t i = 0; i < r->nmembers; i++)
		imp_need(h, r->members[i].type, need, need_tdef);
}

static void imp_write_record(struct spec_buf *b, const struct imp_record *r)
{
	spec_buf_printf(b, "{\"kind\": \"%s\", \"members\": [", r->is_union ? "union" : "struct");
	for (size_t i = 0; i < r->nmembers; i++) {
		spec_buf_puts(b, i ? ", {\"type\": " : "{\"type\": ");
		imp_json_str(b, r->members[i].type);
		if (r->members[i].name != NULL)
			imp_json_key(b, "name", r->members[i].name);
		if (r->members[i].bits > 0)
			spec_buf_printf(b, ", \"bits\": %d", r->members[i].bits);
		spec_buf_putc(b, '}');
	}
	spec_buf_puts(b, "]}");
}

static void imp_write_entry(struct spec_buf *b, const struct imp_entry *e, bool last)
{
	spec_buf_puts(b, "    ");
	imp_json_str(b, e->name);
	spec_buf_puts(b, ": ");
	if (e->r != NULL) {
		imp_write_record(b, e->r);
	} else {
		spec_buf_printf(b, "{\"kind\": \"%s\"", e->t->is_enum ? "enum" : "typedef");
		imp_json_key(b, "type", e->t->type);
		spec_buf_putc(b, '}');
	}
	spec_buf_puts(b, last ? "\n" : ",\n");
}

/* The entries the kept functions need, sorted by name. */
static size_t imp_entries(const struct imp_header *h, const struct imp_func *const *kept,
                          size_t nkept, struct imp_entry *es)
{
	bool *need = spec_xcalloc(h->nrecords + 1, sizeof *need);
	bool *need_tdef = spec_xcalloc(h->ntdefs + 1, sizeof *need_tdef);
	size_t n = 0;

	for (size_t i = 0; i < nkept; i++) {
		if (kept[i]->unsupported != NULL)
			continue;
		imp_need(h, kept[i]->ret, need, need_tdef);
		for (size_t j = 0; j < kept[i]->nparams; j++)
			imp_need(h, kept[i]->params[j].type, need, need_tdef);
	}
	for (size_t i = 0; i < h->nrecords; i++) {
		if (need[i] && h->records[i].nmembers == 0)
			imp_warn("warning: the layout of %s cannot be written in a spec: left out",
			         h->records[i].name);
		else if (need[i])
			es[n++] =
			        (struct imp_entry){.name = h->records[i].name, .r = &h->records[i]};
	}
	for (size_t i = 0; i < h->ntdefs; i++)
		if (need_tdef[i])
			es[n++] = (struct imp_entry){.name = h->tdefs[i].name, .t = &h->tdefs[i]};
	qsort(es, n, sizeof *es, imp_cmp_entry);
	free(need);
	free(need_tdef);
	return n;
}

/* What dynamic mode needs of the types the kept functions pass by value. */
static void imp_write_types(struct spec_buf *b, const struct imp_header *h,
                            const struct imp_func *const *kept, size_t nkept)
{
	struct imp_entry *es = spec_xcalloc(h->nrecords + h->ntdefs + 1, sizeof *es);
	size_t n = imp_entries(h, kept, nkept, es);

	if (n > 0)
		spec_buf_puts(b, "  \"types\": {\n");
	for (size_t i = 0; i < n; i++)
		imp_write_entry(b, &es[i], i + 1 == n);
	if (n > 0)
		spec_buf_puts(b, "  },\n");
	free(es);
}

/* "key": [...] on a line, when there is anything to list. */
static void imp_write_strings(struct spec_buf *b, const char *key, const char *const *v, size_t n)
{
	if (n == 0)
		return;
	spec_buf_printf(b, "  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		spec_buf_puts(b, i ? ", " : "");
		imp_json_str(b, v[i]);
	}
	spec_buf_puts(b, "],\n");
}

static void imp_write_top(struct spec_buf *b, const struct imp_opts *o)
{
	spec_buf_puts(b, "{\n  \"apiprof\": 1,\n  \"api\": ");
	imp_json_str(b, o->api);
	spec_buf_puts(b, ",\n  \"library\": ");
	/* A library given as a path is named by its file name. */
	imp_json_str(b, strrchr(o->library, '/') ? strrchr(o->library, '/') + 1 : o->library);
	spec_buf_puts(b, ",\n");
	imp_write_strings(b, "headers", &o->include, 1);
	imp_write_strings(b, "include_dirs", (const char *const *)o->incdirs, o->nincdirs);
	imp_write_strings(b, "defines", o->defines, o->ndefines);
	spec_buf_puts(b, "  \"description\": ");
	imp_json_str(b, o->description);
	spec_buf_puts(b, ",\n");
}

static int imp_emit(const struct imp_opts *o, const char *text)
{
	struct gen_out out;

	if (o->out == NULL) {
		if (fputs(text, stdout) >= 0 && fflush(stdout) == 0)
			return 0;
		imp_warn("cannot write the spec to standard output: %s", strerror(errno));
		return -1;
	}
	if (gen_out_open(&out, o->out) < 0)
		return -1;
	gen_out_puts(&out, text);
	return gen_out_commit(&out);
}

int imp_write(const struct imp_opts *o, const struct imp_header *h)
{
	const struct imp_func **kept = spec_xcalloc(h->nfuncs + 1, sizeof *kept);
	struct spec_buf b;
	size_t n = 0;

	for (size_t i = 0; i < h->nfuncs; i++)
		if (h->funcs[i].kept)
			kept[n++] = &h->funcs[i];
	qsort(kept, n, sizeof *kept, imp_cmp_func);
	spec_buf_init(&b);
	imp_write_top(&b, o);
	imp_write_types(&b, h, kept, n);
	spec_buf_puts(&b, "  \"functions\": [\n");
	for (size_t i = 0; i < n; i++)
		imp_write_func(&b, kept[i], i + 1 == n);
	spec_buf_puts(&b, "  ]\n}\n");
	int rc = imp_emit(o, spec_buf_str(&b));
	spec_buf_free(&b);
	free(kept);
	return rc;
}
