// SPDX-License-Identifier: MIT
/*
 * gen_load.c - reading a spec and validating its top level.
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

#include "gen_field.h"
#include "gen_ident.h"
#include "gen_load.h"

#define GEN_SPEC_MAX_BYTES (16u << 20)
#define GEN_MAX_FUNCS      4096

static const char *const gen_top_keys[] = {
        "apiprof", "api", "library", "headers", "functions", "description", "types", NULL,
};

/* Whole-file read: the locator needs the text after jansson is done. */
static char *gen_read_fd(int fd, const char *path, size_t *len)
{
	char *buf = gen_xmalloc(GEN_SPEC_MAX_BYTES + 1);
	size_t n = 0;
	ssize_t r = 1;

	while (n <= GEN_SPEC_MAX_BYTES && r > 0) {
		r = read(fd, buf + n, GEN_SPEC_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			r = 1;
		else if (r > 0)
			n += (size_t)r;
	}
	if (r < 0 || n > GEN_SPEC_MAX_BYTES) {
		fprintf(stderr, "apiprof-gen: cannot read %s: %s\n", path,
		        r < 0 ? strerror(errno) : "larger than 16 MiB");
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static bool gen_blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strchr(" \t\r\n", s[i]) == NULL || s[i] == '\0')
			return false;
	return true;
}

static json_t *gen_parse(const struct gen_ctx *c)
{
	json_error_t e;
	json_t *root;

	if (gen_blank(c->text, c->len)) {
		gen_diag_at(c->path, 1, 1, "empty file: expected a JSON object");
		return NULL;
	}
	root = json_loadb(c->text, c->len, JSON_REJECT_DUPLICATES, &e);
	if (root == NULL)
		gen_diag_at(c->path, e.line > 0 ? e.line : 1, e.column, "%s", e.text);
	return root;
}

static int gen_load_version(struct gen_ctx *c, json_t *root)
{
	json_t *v = json_object_get(root, "apiprof");

	if (v == NULL)
		return gen_err(c, "the spec has no \"apiprof\" (the format version, 1)");
	gen_path_key(&c->at, "apiprof");
	if (!json_is_integer(v))
		return gen_pop_rc(c, gen_err(c, "\"apiprof\" must be an integer"));
	if (json_integer_value(v) != GEN_SPEC_VERSION)
		return gen_pop_rc(c, gen_err(c, "unsupported apiprof version %lld",
		                             (long long)json_integer_value(v)));
	return gen_pop_rc(c, 0);
}

static int gen_load_library(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	struct gen_quoted q;
	enum gen_name_err e;

	if (gen_field_str(c, root, "library", "the spec", true, &s->library) < 0)
		return -1;
	e = gen_check_library(s->library);
	if (e == GEN_NAME_OK)
		return 0;
	return GEN_AT_KEY(
	        c, "library",
	        gen_err(c, "\"library\" %s %s", gen_quote(&q, s->library), gen_name_err_str(e)));
}

static int gen_load_header(struct gen_ctx *c, json_t *v, const char **out)
{
	struct gen_quoted q;
	enum gen_name_err e;

	if (!json_is_string(v))
		return gen_err(c, "a header must be a string");
	*out = json_string_value(v);
	e = gen_check_header(*out);
	if (e != GEN_NAME_OK)
		return gen_err(c, "header %s %s", gen_quote(&q, *out), gen_name_err_str(e));
	return 0;
}

static int gen_load_headers(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	json_t *arr;
	size_t i;
	int rc = gen_field_array(c, root, "headers", "the spec", false, &arr);

	if (rc <= 0)
		return rc;
	s->headers = gen_xcalloc(json_array_size(arr), sizeof *s->headers);
	gen_path_key(&c->at, "headers");
	for (i = 0, rc = 0; i < json_array_size(arr) && rc == 0; i++) {
		gen_path_index(&c->at, i);
		rc = gen_pop_rc(c, gen_load_header(c, json_array_get(arr, i), &s->headers[i]));
	}
	s->nheaders = json_array_size(arr);
	return gen_pop_rc(c, rc);
}

static int gen_load_names(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	const char *desc;

	if (gen_check_keys(c, root, gen_top_keys, "the spec") < 0 ||
	    gen_field_str(c, root, "api", "the spec", true, &s->api) < 0 ||
	    GEN_AT_KEY(c, "api", gen_load_ident(c, "\"api\"", s->api, GEN_API_NAME_MAX)) < 0 ||
	    gen_load_library(c, root, s) < 0 || gen_load_headers(c, root, s) < 0)
		return -1;
	/* Free text, never emitted: only its type is checked. */
	return gen_field_str(c, root, "description", "the spec", false, &desc) < 0 ? -1 : 0;
}

/* What the dynamic linker tells apart: SYMBOL, or SYMBOL@VERSION for an
 * old version (a default version SYMBOL@@VERSION competes with the plain
 * name for unversioned references). */
static bool gen_same_export(const struct gen_func *a, const struct gen_func *b)
{
	bool ao = a->symver == GEN_SYMVER_OLD, bo = b->symver == GEN_SYMVER_OLD;

	return strcmp(a->symbol, b->symbol) == 0 && ao == bo &&
	       (!ao || strcmp(a->version, b->version) == 0);
}

static int gen_export_clash(struct gen_ctx *c, const struct gen_spec *s, const struct gen_func *f,
                            const struct gen_func *g)
{
	struct gen_quoted q;

	return gen_err(c, "symbol %s is already exported by %sfunction \"%s\" (%d:%d)",
	               gen_quote(&q, f->symbol), g->alias ? "an alias of " : "",
	               s->funcs[g->row].name, g->pos.line, g->pos.col);
}

int gen_check_export(struct gen_ctx *c, const struct gen_spec *s, const struct gen_func *f)
{
	size_t j;

	for (j = 0; j < s->nfuncs; j++)
		if (&s->funcs[j] != f && gen_same_export(f, &s->funcs[j]))
			return gen_export_clash(c, s, f, &s->funcs[j]);
	for (j = 0; j < s->naliases; j++)
		if (&s->aliases[j] != f && gen_same_export(f, &s->aliases[j]))
			return gen_export_clash(c, s, f, &s->aliases[j]);
	return 0;
}

/* Two functions must not share a name (the C wrapper's name) nor an
 * exported symbol. */
static int gen_check_unique(struct gen_ctx *c, const struct gen_spec *s, size_t i)
{
	const struct gen_func *f = &s->funcs[i], *g;
	struct gen_quoted q;
	size_t j;

	for (j = 0; j < i; j++) {
		g = &s->funcs[j];
		if (strcmp(f->name, g->name) == 0)
			return GEN_AT_KEY(c, "name",
			                  gen_err(c,
			                          "duplicate function %s (first defined at %d:%d)",
			                          gen_quote(&q, f->name), g->pos.line, g->pos.col));
	}
	return GEN_AT_KEY(c, f->symbol != f->name ? "symbol" : "name", gen_check_export(c, s, f));
}

/* Entry i of "functions" becomes the next row, unless it is marked
 * "unsupported": rows are numbered over the functions kept. */
static int gen_load_one(struct gen_ctx *c, json_t *arr, struct gen_spec *s, size_t i)
{
	json_t *fj = json_array_get(arr, i);
	size_t row = s->nfuncs;
	int rc;

	gen_path_index(&c->at, i);
	rc = gen_load_unsupported(c, fj, i);
	if (rc != 0)
		return gen_pop_rc(c, rc < 0 ? -1 : 0);
	rc = gen_load_func(c, fj, i, &s->funcs[row]);
	s->funcs[row].row = s->funcs[row].sym = row;
	s->nfuncs = row + 1;
	if (rc == 0)
		rc = gen_check_unique(c, s, row);
	if (rc == 0)
		rc = gen_load_aliases(c, fj, s, row);
	return gen_pop_rc(c, rc);
}

/* Aliases come after the rows in the symbol tables, and their generated
 * identifiers use the reserved prefix, which no function name can. */
static void gen_number_aliases(struct gen_spec *s)
{
	struct gen_func *a;
	size_t j;

	for (j = 0; j < s->naliases; j++) {
		a = &s->aliases[j];
		a->sym = s->nfuncs + j;
		snprintf(a->cbuf, sizeof a->cbuf, "apiprof_a%zu", j);
		a->cname = a->cbuf;
	}
}

static int gen_load_funcs(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	size_t i, n;
	json_t *arr;

	if (gen_field_array(c, root, "functions", "the spec", true, &arr) < 0)
		return -1;
	n = json_array_size(arr);
	gen_path_key(&c->at, "functions");
	if (n == 0)
		return gen_pop_rc(c, gen_err(c, "\"functions\" must not be empty"));
	if (n > GEN_MAX_FUNCS)
		return gen_pop_rc(c, gen_err(c, "more than %d functions", GEN_MAX_FUNCS));
	s->funcs = gen_xcalloc(n, sizeof *s->funcs);
	for (i = 0; i < n; i++)
		if (gen_load_one(c, arr, s, i) < 0)
			return gen_pop_rc(c, -1);
	if (s->nfuncs == 0)
		return gen_pop_rc(c, gen_err(c, "every function is \"unsupported\": nothing to "
		                                "profile"));
	if (s->nfuncs + s->naliases > GEN_MAX_FUNCS)
		return gen_pop_rc(c,
		                  gen_err(c, "more than %d functions and aliases", GEN_MAX_FUNCS));
	gen_number_aliases(s);
	return gen_pop_rc(c, 0);
}

static int gen_validate(struct gen_ctx *c, json_t *root, struct gen_spec *s)
{
	if (!json_is_object(root))
		return gen_err(c, "the spec must be a JSON object");
	if (gen_load_version(c, root) < 0 || gen_load_names(c, root, s) < 0 ||
	    gen_load_types(c, root, s) < 0)
		return -1;
	return gen_load_funcs(c, root, s);
}

struct gen_spec *gen_spec_load_fd(int fd, const char *path)
{
	struct gen_ctx c = {.path = path};
	struct gen_spec *s;
	char *text = gen_read_fd(fd, path, &c.len);
	json_t *root;

	if (text == NULL)
		return NULL;
	c.text = text;
	root = gen_parse(&c);
	s = gen_xcalloc(1, sizeof *s);
	s->path = path;
	s->json = root;
	if (root == NULL || gen_validate(&c, root, s) < 0) {
		gen_spec_free(s);
		s = NULL;
	}
	free(text);
	return s;
}

/* The command line's spec may be a pipe (`<(...)`): opened as it comes. */
struct gen_spec *gen_spec_load(const char *path)
{
	struct gen_spec *s;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "apiprof-gen: cannot open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	s = gen_spec_load_fd(fd, path);
	close(fd);
	return s;
}

void gen_spec_free(struct gen_spec *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nfuncs; i++)
		gen_func_free(&s->funcs[i]);
	for (i = 0; i < s->naliases; i++)
		gen_func_free(&s->aliases[i]);
	free(s->funcs);
	free(s->aliases);
	free(s->headers);
	gen_types_free(s);
	json_decref(s->json);
	free(s);
}
