// SPDX-License-Identifier: MIT
/*
 * spec_load.c - reading a spec and validating its top level.
 *
 * Validation is complete before anything is emitted: the emitter may
 * assume every string it prints passed a grammar or an allow-list.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_field.h"
#include "spec_ident.h"
#include "spec_load.h"

#define SPEC_MAX_BYTES (16u << 20)
#define SPEC_MAX_FUNCS 4096

static const char *const spec_top_keys[] = {
        "apiprof", "api",       "library",     "headers", "include_dirs",
        "defines", "functions", "description", "types",   NULL,
};

/* Whole-file read: the locator needs the text after jansson is done. */
static char *spec_read_fd(int fd, const char *path, size_t *len)
{
	char *buf = spec_xmalloc(SPEC_MAX_BYTES + 1);
	size_t n = 0;
	ssize_t r = 1;

	while (n <= SPEC_MAX_BYTES && r > 0) {
		r = read(fd, buf + n, SPEC_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			r = 1;
		else if (r > 0)
			n += (size_t)r;
	}
	if (r < 0 || n > SPEC_MAX_BYTES) {
		fprintf(stderr, "apiprof-gen: cannot read %s: %s\n", path,
		        r < 0 ? strerror(errno) : "larger than 16 MiB");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static bool spec_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strchr(" \t\r\n", s[i]) == NULL || s[i] == '\0')
			return false;
	return true;
}

static json_t *spec_parse(const struct spec_ctx *c)
{
	json_error_t e;

	if (spec_blank(c->text, c->len)) {
		spec_diag_at(c->path, 1, 1, "empty file: expected a JSON object");
		return NULL;
	}
	json_t *root = json_loadb(c->text, c->len, JSON_REJECT_DUPLICATES, &e);
	if (root == NULL)
		spec_diag_at(c->path, e.line > 0 ? e.line : 1, e.column, "%s", e.text);
	return root;
}

static int spec_load_version(struct spec_ctx *c, json_t *root)
{
	json_t *v = json_object_get(root, "apiprof");

	if (v == NULL)
		return spec_err(c, "the spec has no \"apiprof\" (the format version, 1)");
	spec_path_key(&c->at, "apiprof");
	if (!json_is_integer(v))
		return spec_pop_rc(c, spec_err(c, "\"apiprof\" must be an integer"));
	if (json_integer_value(v) != SPEC_VERSION)
		return spec_pop_rc(c, spec_err(c, "unsupported apiprof version %lld",
		                               (long long)json_integer_value(v)));
	return spec_pop_rc(c, 0);
}

static int spec_load_library(struct spec_ctx *c, json_t *root, struct spec *s)
{
	struct spec_quoted q;

	if (spec_field_str(c, root, "library", "the spec", true, &s->library) < 0)
		return -1;
	enum spec_name_err e = spec_check_library(s->library);
	if (e == SPEC_NAME_OK)
		return 0;
	return SPEC_AT_KEY(
	        c, "library",
	        spec_err(c, "\"library\" %s %s", spec_quote(&q, s->library), spec_name_err_str(e)));
}

/* A top-level array of strings, each passing an allow-list. */
struct spec_strings {
	const char *key, *a_what, *what;
	enum spec_name_err (*check)(const char *);
};

static const struct spec_strings spec_headers = {"headers", "a header", "header",
                                                 spec_check_header};
static const struct spec_strings spec_include_dirs = {"include_dirs", "an include directory",
                                                      "include directory", spec_check_include_dir};
static const struct spec_strings spec_defines = {"defines", "a define", "define",
                                                 spec_check_define};

static int spec_load_string(struct spec_ctx *c, const struct spec_strings *w, json_t *v,
                            const char **out)
{
	struct spec_quoted q;

	if (!json_is_string(v))
		return spec_err(c, "%s must be a string", w->a_what);
	*out = json_string_value(v);
	enum spec_name_err e = w->check(*out);
	if (e != SPEC_NAME_OK)
		return spec_err(c, "%s %s %s", w->what, spec_quote(&q, *out), spec_name_err_str(e));
	return 0;
}

static int spec_load_strings(struct spec_ctx *c, json_t *root, const struct spec_strings *w,
                             const char ***out, size_t *n)
{
	json_t *arr;
	int rc = spec_field_array(c, root, w->key, "the spec", false, &arr);

	if (rc <= 0)
		return rc;
	*out = spec_xcalloc(json_array_size(arr), sizeof **out);
	spec_path_key(&c->at, w->key);
	rc = 0;
	for (size_t i = 0; i < json_array_size(arr) && rc == 0; i++) {
		spec_path_index(&c->at, i);
		rc = spec_pop_rc(c, spec_load_string(c, w, json_array_get(arr, i), &(*out)[i]));
	}
	*n = json_array_size(arr);
	return spec_pop_rc(c, rc);
}

static int spec_load_names(struct spec_ctx *c, json_t *root, struct spec *s)
{
	const char *desc;

	if (spec_check_keys(c, root, spec_top_keys, "the spec") < 0 ||
	    spec_field_str(c, root, "api", "the spec", true, &s->api) < 0 ||
	    SPEC_AT_KEY(c, "api", spec_load_ident(c, "\"api\"", s->api, SPEC_API_NAME_MAX)) < 0 ||
	    spec_load_library(c, root, s) < 0 ||
	    spec_load_strings(c, root, &spec_headers, &s->headers, &s->nheaders) < 0 ||
	    spec_load_strings(c, root, &spec_include_dirs, &s->include_dirs, &s->ninclude_dirs) <
	            0 ||
	    spec_load_strings(c, root, &spec_defines, &s->defines, &s->ndefines) < 0)
		return -1;
	/* Free text, never emitted: only its type is checked. */
	return spec_field_str(c, root, "description", "the spec", false, &desc) < 0 ? -1 : 0;
}

/* What the dynamic linker tells apart: SYMBOL, or SYMBOL@VERSION for an
 * old version (a default version SYMBOL@@VERSION competes with the plain
 * name for unversioned references). */
static bool spec_same_export(const struct spec_func *a, const struct spec_func *b)
{
	bool ao = a->symver == SPEC_SYMVER_OLD, bo = b->symver == SPEC_SYMVER_OLD;

	return strcmp(a->symbol, b->symbol) == 0 && ao == bo &&
	       (!ao || strcmp(a->version, b->version) == 0);
}

static int spec_export_clash(struct spec_ctx *c, const struct spec *s, const struct spec_func *f,
                             const struct spec_func *g)
{
	struct spec_quoted q;

	return spec_err(c, "symbol %s is already exported by %sfunction \"%s\" (%d:%d)",
	                spec_quote(&q, f->symbol), g->alias ? "an alias of " : "",
	                s->funcs[g->row].name, g->pos.line, g->pos.col);
}

int spec_check_export(struct spec_ctx *c, const struct spec *s, const struct spec_func *f)
{
	for (size_t j = 0; j < s->nfuncs; j++)
		if (&s->funcs[j] != f && spec_same_export(f, &s->funcs[j]))
			return spec_export_clash(c, s, f, &s->funcs[j]);
	for (size_t j = 0; j < s->naliases; j++)
		if (&s->aliases[j] != f && spec_same_export(f, &s->aliases[j]))
			return spec_export_clash(c, s, f, &s->aliases[j]);
	return 0;
}

/* Two functions must not share a name (the C wrapper's name) nor an
 * exported symbol. */
static int spec_check_unique(struct spec_ctx *c, const struct spec *s, size_t i)
{
	const struct spec_func *f = &s->funcs[i];
	struct spec_quoted q;

	for (size_t j = 0; j < i; j++) {
		const struct spec_func *g = &s->funcs[j];
		if (strcmp(f->name, g->name) == 0)
			return SPEC_AT_KEY(
			        c, "name",
			        spec_err(c, "duplicate function %s (first defined at %d:%d)",
			                 spec_quote(&q, f->name), g->pos.line, g->pos.col));
	}
	return SPEC_AT_KEY(c, f->symbol != f->name ? "symbol" : "name", spec_check_export(c, s, f));
}

/* Entry i of "functions" becomes the next row, unless it is marked
 * "unsupported": rows are numbered over the functions kept. */
static int spec_load_one(struct spec_ctx *c, json_t *arr, struct spec *s, size_t i)
{
	json_t *fj = json_array_get(arr, i);
	size_t row = s->nfuncs;

	spec_path_index(&c->at, i);
	int rc = spec_load_unsupported(c, fj, i);
	if (rc != 0)
		return spec_pop_rc(c, rc < 0 ? -1 : 0);
	rc = spec_load_func(c, fj, i, &s->funcs[row]);
	s->funcs[row].row = s->funcs[row].sym = row;
	s->nfuncs = row + 1;
	if (rc == 0)
		rc = spec_check_unique(c, s, row);
	if (rc == 0)
		rc = spec_load_aliases(c, fj, s, row);
	return spec_pop_rc(c, rc);
}

/* Aliases come after the rows in the symbol tables, and their generated
 * identifiers use the reserved prefix, which no function name can. */
static void spec_number_aliases(struct spec *s)
{
	for (size_t j = 0; j < s->naliases; j++) {
		struct spec_func *a = &s->aliases[j];
		a->sym = s->nfuncs + j;
		snprintf(a->cbuf, sizeof a->cbuf, "apiprof_a%zu", j);
		a->cname = a->cbuf;
	}
}

static int spec_load_funcs(struct spec_ctx *c, json_t *root, struct spec *s)
{
	json_t *arr;

	if (spec_field_array(c, root, "functions", "the spec", true, &arr) < 0)
		return -1;
	size_t n = json_array_size(arr);
	spec_path_key(&c->at, "functions");
	if (n == 0)
		return spec_pop_rc(c, spec_err(c, "\"functions\" must not be empty"));
	if (n > SPEC_MAX_FUNCS)
		return spec_pop_rc(c, spec_err(c, "more than %d functions", SPEC_MAX_FUNCS));
	s->funcs = spec_xcalloc(n, sizeof *s->funcs);
	for (size_t i = 0; i < n; i++)
		if (spec_load_one(c, arr, s, i) < 0)
			return spec_pop_rc(c, -1);
	if (s->nfuncs == 0)
		return spec_pop_rc(c, spec_err(c, "every function is \"unsupported\": nothing to "
		                                  "profile"));
	if (s->nfuncs + s->naliases > SPEC_MAX_FUNCS)
		return spec_pop_rc(
		        c, spec_err(c, "more than %d functions and aliases", SPEC_MAX_FUNCS));
	spec_number_aliases(s);
	return spec_pop_rc(c, 0);
}

static int spec_validate(struct spec_ctx *c, json_t *root, struct spec *s)
{
	if (!json_is_object(root))
		return spec_err(c, "the spec must be a JSON object");
	if (spec_load_version(c, root) < 0 || spec_load_names(c, root, s) < 0 ||
	    spec_load_types(c, root, s) < 0)
		return -1;
	return spec_load_funcs(c, root, s);
}

struct spec *spec_load_fd(int fd, const char *path)
{
	struct spec_ctx c = {.path = path};
	char *text = spec_read_fd(fd, path, &c.len);

	if (text == NULL)
		return NULL;
	c.text = text;
	json_t *root = spec_parse(&c);
	struct spec *s = spec_xcalloc(1, sizeof *s);
	s->path = path;
	s->json = root;
	if (root == NULL || spec_validate(&c, root, s) < 0) {
		spec_free(s);
		s = NULL;
	}
	free(text);
	return s;
}

/* The command line's spec may be a pipe (`<(...)`): opened as it comes. */
struct spec *spec_load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "apiprof-gen: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	struct spec *s = spec_load_fd(fd, path);
	close(fd);
	return s;
}

void spec_free(struct spec *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nfuncs; i++)
		spec_func_free(&s->funcs[i]);
	for (size_t i = 0; i < s->naliases; i++)
		spec_func_free(&s->aliases[i]);
	free(s->funcs);
	free(s->aliases);
	free(s->headers);
	free(s->include_dirs);
	free(s->defines);
	spec_types_free(s);
	json_decref(s->json);
	free(s);
}
