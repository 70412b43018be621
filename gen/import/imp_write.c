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

static int imp_cmp_record(const void *a, const void *b)
{
	return strcmp((*(const struct imp_record *const *)a)->name,
	              (*(const struct imp_record *const *)b)->name);
}

static struct imp_record *imp_record_named(const struct imp_header *h, const char *name)
{
	for (size_t i = 0; i < h->nrecords; i++)
		if (strcmp(h->records[i].name, name) == 0)
			return &h->records[i];
	return NULL;
}

/* Marks the layout of `type` needed, and those of its members. */
static void imp_need(const struct imp_header *h, const char *type, bool *need)
{
	char *base = spec_xstrdup(type);
	char *sp = strstr(base, " [");

	if (sp != NULL) /* an array member: its element */
		*sp = '\0';
	struct imp_record *r = imp_record_named(h, base);
	free(base);
	if (r == NULL || need[r - h->records])
		return;
	need[r - h->records] = true;
	for (size_t i = 0; i < r->nmembers; i++)
		imp_need(h, r->members[i].type, need);
}

static void imp_write_record(struct spec_buf *b, const struct imp_record *r, bool last)
{
	spec_buf_puts(b, "    ");
	imp_json_str(b, r->name);
	spec_buf_printf(b, ": {\"kind\": \"%s\", \"members\": [", r->is_union ? "union" : "struct");
	for (size_t i = 0; i < r->nmembers; i++) {
		spec_buf_puts(b, i ? ", {\"type\": " : "{\"type\": ");
		imp_json_str(b, r->members[i].type);
		if (r->members[i].name != NULL)
			imp_json_key(b, "name", r->members[i].name);
		if (r->members[i].bits > 0)
			spec_buf_printf(b, ", \"bits\": %d", r->members[i].bits);
		spec_buf_putc(b, '}');
	}
	spec_buf_puts(b, last ? "]}\n" : "]},\n");
}

/* The layouts the kept functions pass by value, sorted by name. */
static void imp_write_types(struct spec_buf *b, const struct imp_header *h,
                            const struct imp_func *const *kept, size_t nkept)
{
	bool *need = spec_xcalloc(h->nrecords + 1, sizeof *need);
	const struct imp_record **rs = spec_xcalloc(h->nrecords + 1, sizeof *rs);
	size_t n = 0;

	for (size_t i = 0; i < nkept; i++) {
		if (kept[i]->unsupported != NULL)
			continue;
		imp_need(h, kept[i]->ret, need);
		for (size_t j = 0; j < kept[i]->nparams; j++)
			imp_need(h, kept[i]->params[j].type, need);
	}
	for (size_t i = 0; i < h->nrecords; i++) {
		if (need[i] && h->records[i].nmembers == 0)
			imp_warn("warning: the layout of %s cannot be written in a spec: left out",
			         h->records[i].name);
		else if (need[i])
			rs[n++] = &h->records[i];
	}
	qsort(rs, n, sizeof *rs, imp_cmp_record);
	if (n > 0)
		spec_buf_puts(b, "  \"types\": {\n");
	for (size_t i = 0; i < n; i++)
		imp_write_record(b, rs[i], i + 1 == n);
	if (n > 0)
		spec_buf_puts(b, "  },\n");
	free(rs);
	free(need);
}

static void imp_write_top(struct spec_buf *b, const struct imp_opts *o)
{
	spec_buf_puts(b, "{\n  \"apiprof\": 1,\n  \"api\": ");
	imp_json_str(b, o->api);
	spec_buf_puts(b, ",\n  \"library\": ");
	/* A library given as a path is named by its file name. */
	imp_json_str(b, strrchr(o->library, '/') ? strrchr(o->library, '/') + 1 : o->library);
	spec_buf_puts(b, ",\n  \"headers\": [");
	imp_json_str(b, o->include);
	spec_buf_puts(b, "],\n  \"description\": ");
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
