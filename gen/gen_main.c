// SPDX-License-Identifier: MIT
/*
 * gen_main.c - the apiprof-gen command line.
 *
 *   apiprof-gen SPEC.json -o OUT.c          generate a shim
 *   apiprof-gen --check SPEC.json           validate only
 *   apiprof-gen --version-script SPEC.json -o OUT.map   the shim's linker script
 *   apiprof-gen build SPEC.json [-o LIB.so] [-I DIR]... [-E | --preprocessed SHIM.i]
 *   apiprof-gen import HEADER.h --library SONAME ...   a spec from a header (imp_main.c)
 *
 * Exit status: 0 success, 1 invalid spec or I/O error, 2 usage error,
 * otherwise the compiler's status for `build`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_build.h"
#include "imp.h"

#ifndef APIPROF_VERSION
#define APIPROF_VERSION "unknown"
#endif

enum gen_mode { GEN_MODE_GENERATE, GEN_MODE_CHECK, GEN_MODE_BUILD, GEN_MODE_VSCRIPT };

struct gen_cli {
	enum gen_mode mode;
	const char *spec;
	const char *out;
	const char **inc;
	size_t ninc;
	int preprocess;           /* build -E */
	const char *preprocessed; /* build --preprocessed FILE */
};

static const char gen_usage[] =
        "usage: apiprof-gen SPEC.json -o OUT.c\n"
        "       apiprof-gen --check SPEC.json\n"
        "       apiprof-gen --version-script SPEC.json -o OUT.map\n"
        "       apiprof-gen build SPEC.json [-o libapiprof-API.so] [-I DIR]...\n"
        "                         [-E | --preprocessed SHIM.i]\n"
        "       apiprof-gen import HEADER.h [-I DIR]... [-D MACRO]... --library SONAME\n"
        "                          [--prefix PREFIX | --functions F1,F2,...] [--api NAME]\n"
        "                          [-o SPEC.json] [--verbose]\n"
        "       apiprof-gen --version | --help\n"
        "\n"
        "Generates the C source of an LD_PRELOAD shim that profiles the functions\n"
        "listed in SPEC.json (see specs/README.md), checks a spec, writes the linker\n"
        "version script that exports exactly its wrappers, or generates and compiles\n"
        "the shim into a shared library in one step, or imports a spec from a header.\n";

static int gen_usage_error(const char *fmt, const char *arg)
{
	fputs("apiprof-gen: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'apiprof-gen --help'.\n", stderr);
	return 2;
}

/* The value of -o / -I, given as "-o X" or "-oX". */
static const char *gen_optarg(int argc, char **argv, int *i)
{
	if (argv[*i][2] != '\0')
		return argv[*i] + 2;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

/* build's -E and --preprocessed FILE; 1 for any other option. */
static int gen_parse_build_opt(struct gen_cli *c, int argc, char **argv, int *i)
{
	if (c->mode != GEN_MODE_BUILD)
		return 1;
	if (strcmp(argv[*i], "-E") == 0) {
		c->preprocess = 1;
		return 0;
	}
	if (strcmp(argv[*i], "--preprocessed") != 0)
		return 1;
	if (*i + 1 >= argc)
		return gen_usage_error("option '%s' needs an argument", argv[*i]);
	c->preprocessed = argv[++*i];
	return 0;
}

static int gen_parse_opt(struct gen_cli *c, int argc, char **argv, int *i)
{
	char *a = argv[*i];
	int rc = gen_parse_build_opt(c, argc, argv, i);

	if (rc != 1)
		return rc;

	if (strcmp(a, "--check") == 0 && c->mode == GEN_MODE_GENERATE) {
		c->mode = GEN_MODE_CHECK;
		return 0;
	}
	if (strcmp(a, "--version-script") == 0 && c->mode == GEN_MODE_GENERATE) {
		c->mode = GEN_MODE_VSCRIPT;
		return 0;
	}
	if (a[1] != 'o' && (a[1] != 'I' || c->mode != GEN_MODE_BUILD))
		return gen_usage_error("unknown option '%s'", a);
	const char *v = gen_optarg(argc, argv, i);
	if (v == NULL)
		return gen_usage_error("option '%s' needs an argument", a);
	if (a[1] == 'o')
		c->out = v;
	else
		c->inc[c->ninc++] = v;
	return 0;
}

static int gen_parse_args(struct gen_cli *c, int argc, char **argv)
{
	int i = 1;
	bool dashdash = false;

	if (argc > 1 && strcmp(argv[1], "build") == 0) {
		c->mode = GEN_MODE_BUILD;
		i = 2;
	}
	c->inc = calloc((size_t)argc, sizeof *c->inc);
	if (c->inc == NULL)
		return 1;
	for (; i < argc; i++) {
		if (!dashdash && strcmp(argv[i], "--") == 0) {
			dashdash = true;
		} else if (!dashdash && argv[i][0] == '-' && argv[i][1] != '\0') {
			int rc = gen_parse_opt(c, argc, argv, &i);

			if (rc != 0)
				return rc;
		} else if (c->spec == NULL) {
			c->spec = argv[i];
		} else {
			return gen_usage_error("unexpected argument '%s'", argv[i]);
		}
	}
	if (c->spec == NULL)
		return gen_usage_error("%s", "no spec given");
	if (c->mode == GEN_MODE_GENERATE && c->out == NULL)
		return gen_usage_error("%s", "no output given (-o OUT.c)");
	if (c->mode == GEN_MODE_VSCRIPT && c->out == NULL)
		return gen_usage_error("%s", "no output given (-o OUT.map)");
	if (c->preprocess && (c->out == NULL || c->preprocessed != NULL))
		return gen_usage_error("%s", "-E writes to -o OUT.i and takes no --preprocessed");
	if (c->mode == GEN_MODE_CHECK && c->out != NULL)
		return gen_usage_error("%s", "--check writes nothing; drop -o");
	return 0;
}

static int gen_run_cli(const struct gen_cli *c)
{
	struct gen_build_opts bo = {.out = c->out,
	                            .inc = c->inc,
	                            .ninc = c->ninc,
	                            .preprocess = c->preprocess,
	                            .preprocessed = c->preprocessed};
	struct spec *s = spec_load(c->spec);
	int rc = 0;

	if (s == NULL)
		return 1;
	if (c->mode == GEN_MODE_GENERATE)
		rc = gen_generate(s, c->out, NULL) < 0 ? 1 : 0;
	else if (c->mode == GEN_MODE_VSCRIPT)
		rc = gen_generate_vscript(s, c->out) < 0 ? 1 : 0;
	else if (c->mode == GEN_MODE_BUILD)
		rc = gen_build(s, &bo);
	spec_free(s);
	return rc;
}

int main(int argc, char **argv)
{
	struct gen_cli c = {0};

	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		fputs(gen_usage, stdout);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("apiprof-gen %s (spec format %d)\n", APIPROF_VERSION, SPEC_VERSION);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "import") == 0)
		return imp_main(argc - 1, argv + 1);
	int rc = gen_parse_args(&c, argc, argv);
	if (rc == 0)
		rc = gen_run_cli(&c);
	free(c.inc);
	return rc;
}
