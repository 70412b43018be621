// SPDX-License-Identifier: MIT
/*
 * imp_main.c - `apiprof-gen import`, the command line and its steps:
 * parse the header, find and read the library, select, write.
 *
 *   apiprof-gen import HEADER.h [-I DIR]... [-D MACRO[=V]]... --library SONAME
 *                      [--prefix PREFIX | --functions F1,F2,...] [--api NAME] [-o SPEC.json]
 *                      [--verbose]
 *
 * Exit status: 0 success, 1 the header, the library or the output failed
 * (or nothing was selected), 2 usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_buf.h"
#include "spec_ident.h"
#include "spec.h"
#include "imp.h"

static const char imp_usage[] =
        "usage: apiprof-gen import HEADER.h [-I DIR]... [-D MACRO]... --library SONAME\n"
        "                          [--prefix PREFIX | --functions F1,F2,...] [--api NAME]\n"
        "                          [-o SPEC.json] [--verbose]\n";

static int imp_usage_error(const char *fmt, const char *arg)
{
	fputs("apiprof-gen: import: ", stderr);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	fputs(imp_usage, stderr);
	return 2;
}

/* The spec records -I and -D for every later build of the shim, checked
 * here as its loader will check them: a directory by its real path, so
 * that the spec means the same from anywhere. */
static int imp_record(struct imp_opts *o, char flag, const char *v)
{
	enum spec_name_err e;

	if (flag == 'D') {
		o->defines[o->ndefines++] = v;
		e = spec_check_define(v);
	} else {
		char *dir = realpath(v, NULL);
		if (dir == NULL) {
			fprintf(stderr, "apiprof-gen: import: -I %s: %s\n", v, strerror(errno));
			return 2;
		}
		o->incdirs[o->nincdirs++] = dir;
		e = spec_check_include_dir(dir);
		v = dir;
	}
	if (e == SPEC_NAME_OK)
		return 0;
	fprintf(stderr, "apiprof-gen: import: -%c '%s' cannot be recorded in a spec: it %s\n", flag,
	        v, spec_name_err_str(e));
	return 2;
}

/* -I and -D become clang arguments as they are ("-IDIR", "-DX=1"). */
static int imp_cflag(struct imp_opts *o, const char *flag, const char *v)
{
	struct spec_buf b;

	if (v == NULL)
		return imp_usage_error("option '%s' needs an argument", flag);
	int rc = imp_record(o, flag[1], v);
	if (rc != 0)
		return rc;
	spec_buf_init(&b);
	spec_buf_printf(&b, "%.2s%s", flag, v);
	o->cflags[o->ncflags++] = spec_buf_steal(&b);
	return 0;
}

static const char **imp_slot(struct imp_opts *o, const char *a)
{
	if (strcmp(a, "--library") == 0)
		return &o->library;
	if (strcmp(a, "--prefix") == 0)
		return &o->prefix;
	if (strcmp(a, "--functions") == 0)
		return &o->functions;
	if (strcmp(a, "--api") == 0)
		return &o->api;
	if (strcmp(a, "-o") == 0)
		return &o->out;
	return NULL;
}

static int imp_opt(struct imp_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	const char **slot;

	if (strcmp(a, "--verbose") == 0)
		return o->verbose = true, 0;
	if ((a[1] == 'I' || a[1] == 'D') && a[2] != '\0')
		return imp_cflag(o, a, a + 2);
	if (strcmp(a, "-I") == 0 || strcmp(a, "-D") == 0)
		return ++*i, imp_cflag(o, a, v);
	if ((slot = imp_slot(o, a)) == NULL)
		return imp_usage_error("unknown option '%s'", a);
	if (v == NULL)
		return imp_usage_error("option '%s' needs an argument", a);
	if (*slot != NULL)
		return imp_usage_error("option '%s' given twice", a);
	*slot = v;
	++*i;
	return 0;
}

static int imp_args(struct imp_opts *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			int rc = imp_opt(o, argc, argv, &i);

			if (rc != 0)
				return rc;
		} else if (o->header == NULL) {
			o->header = argv[i];
		} else {
			return imp_usage_error("unexpected argument '%s'", argv[i]);
		}
	}
	if (o->header == NULL)
		return imp_usage_error("%s", "no header given");
	if (o->library == NULL)
		return imp_usage_error("%s", "no --library SONAME given");
	if (o->prefix != NULL && o->functions != NULL)
		return imp_usage_error("%s", "--prefix and --functions exclude each other");
	if (o->api != NULL && spec_check_ident(o->api, SPEC_API_NAME_MAX) != SPEC_NAME_OK)
		return imp_usage_error("--api '%s' is not a C identifier of at most 31 characters",
		                       o->api);
	return 0;
}

/* The header as the shim includes it: relative to a -I directory or to
 * the standard include directories (multiarch too), else its base name
 * (`apiprof-gen build` adds the spec's directory with -I). */
static const char *imp_include_name(const struct imp_opts *o)
{
	static const char *const sys[] = {"/usr/local/include/", "/usr/include/", NULL};
	const char *h = o->header;

	for (size_t i = 0; i < o->ncflags; i++) {
		size_t n = strlen(o->cflags[i]) - 2;
		if (o->cflags[i][1] == 'I' && strncmp(h, o->cflags[i] + 2, n) == 0 && h[n] == '/')
			return h + n + 1;
	}
	for (size_t i = 0; sys[i] != NULL; i++) {
		if (strncmp(h, sys[i], strlen(sys[i])) != 0)
			continue;
		const char *rest = h + strlen(sys[i]);
		const char *slash = strchr(rest, '/');
		if (slash != NULL && strstr(rest, "-linux-") != NULL &&
		    strstr(rest, "-linux-") < slash)
			return slash + 1;
		return rest;
	}
	return strrchr(h, '/') ? strrchr(h, '/') + 1 : h;
}

/* Default api: the header's base name made an identifier (zlib, sqlite3). */
static char *imp_default_api(const char *include)
{
	const char *base = strrchr(include, '/') ? strrchr(include, '/') + 1 : include;
	char *api = spec_xstrdup(base);
	char *dot = strrchr(api, '.');

	if (dot != NULL)
		*dot = '\0';
	for (char *p = api; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (p > api && *p >= '0' && *p <= '9')))
			*p = '_';
	api[SPEC_API_NAME_MAX < strlen(api) ? SPEC_API_NAME_MAX : strlen(api)] = '\0';
	return api;
}

static char *imp_describe(const struct imp_opts *o)
{
	struct spec_buf b;

	spec_buf_init(&b);
	spec_buf_printf(&b, "Imported by apiprof-gen import from %s and %s", o->include,
	                o->library);
	if (o->functions != NULL)
		spec_buf_printf(&b, " (--functions %s)", o->functions);
	else
		spec_buf_printf(&b, " (--prefix '%s')", o->prefix ? o->prefix : "");
	return spec_buf_steal(&b);
}

static int imp_run(struct imp_opts *o)
{
	struct imp_header h = {0};
	struct imp_exports x = {0};
	char *path = NULL;
	int rc = 1;

	if (imp_parse(o, &h) == 0 && imp_find_library(o->library, &path) == 0 &&
	    imp_read_exports(path, &x) == 0) {
		if (imp_select(o, &h, &x) == 0)
			imp_warn("error: no function is both declared in %s and exported by %s",
			         o->header, x.path);
		else
			rc = imp_write(o, &h) < 0 ? 1 : 0;
	}
	free(path);
	imp_exports_free(&x);
	imp_header_free(&h);
	return rc;
}

int imp_main(int argc, char **argv)
{
	struct imp_opts o = {0};
	char *api = NULL, *desc = NULL;

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(imp_usage, stdout);
		return 0;
	}
	o.cflags = spec_xcalloc((size_t)argc + 1, sizeof *o.cflags);
	o.incdirs = spec_xcalloc((size_t)argc + 1, sizeof *o.incdirs);
	o.defines = spec_xcalloc((size_t)argc + 1, sizeof *o.defines);
	int rc = imp_args(&o, argc, argv);
	if (rc == 0) {
		o.include = imp_include_name(&o);
		if (o.api == NULL)
			o.api = api = imp_default_api(o.include);
		o.description = desc = imp_describe(&o);
		rc = imp_run(&o);
	}
	for (size_t i = 0; i < o.ncflags; i++)
		free((char *)o.cflags[i]);
	free(o.cflags);
	for (size_t i = 0; i < o.nincdirs; i++)
		free(o.incdirs[i]);
	free(o.incdirs);
	free(o.defines);
	free(api);
	free(desc);
	return rc;
}
