// SPDX-License-Identifier: MIT
/*
 * imp_util.c - the importer's small shared helpers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp.h"

/* Warnings go to stderr, one line each, so the spec on stdout (or -o)
 * stays clean and a CI log shows what the header and library disagree on. */
void imp_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("apiprof-gen: import: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int imp_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void imp_func_free(struct imp_func *f)
{
	for (size_t i = 0; i < f->nparams; i++) {
		free(f->params[i].type);
		free(f->params[i].name);
	}
	free(f->params);
	free(f->name);
	free(f->ret);
	free(f->where);
	free(f->unsupported);
}

static void imp_record_free(struct imp_record *r)
{
	for (size_t i = 0; i < r->nmembers; i++) {
		free(r->members[i].type);
		free(r->members[i].name);
	}
	free(r->members);
	free(r->name);
}

void imp_header_free(struct imp_header *h)
{
	for (size_t i = 0; i < h->nfuncs; i++)
		imp_func_free(&h->funcs[i]);
	for (size_t i = 0; i < h->nrecords; i++)
		imp_record_free(&h->records[i]);
	for (size_t i = 0; i < h->ntdefs; i++) {
		free(h->tdefs[i].name);
		free(h->tdefs[i].type);
	}
	free(h->tdefs);
	for (size_t i = 0; i < h->nmacros; i++) {
		free(h->macros[i].name);
		free(h->macros[i].target);
	}
	free(h->funcs);
	free(h->records);
	free(h->macros);
}

void imp_exports_free(struct imp_exports *x)
{
	for (size_t i = 0; i < x->nsyms; i++) {
		free(x->syms[i].name);
		free(x->syms[i].version);
		free(x->syms[i].old);
	}
	free(x->syms);
	free(x->path);
}
