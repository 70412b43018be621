// SPDX-License-Identifier: MIT
/*
 * dyn_api.c - the struct apiprof_api of a spec loaded at run time.
 *
 * The same tables a generated shim defines statically (apiprof-gen's
 * "The generated code"), filled from the loaded spec: rows are the
 * functions, symbols the functions' and then the aliases'.  The spec stays
 * loaded for the life of the process, as it owns the strings.
 */
#include "dyn.h"

static void fill_sym(struct apiprof_api *api, const struct spec_func *g, const char **symbols,
                     const char **versions)
{
	symbols[g->sym] = g->lookup;
	versions[g->sym] = g->version;
	(void)api;
}

/* As a generated shim's (gen_emit.c): noreturn, and what it declares. */
static uint32_t dyn_api_flags(const struct spec_func *g)
{
	return (g->noreturn ? APIPROF_FUNC_NORETURN : 0) |
	       (g->acct.bytes != SPEC_BYTES_NONE ? APIPROF_FUNC_BYTES : 0) |
	       (g->acct.fails != SPEC_FAILS_NONE ? APIPROF_FUNC_FAILS : 0) |
	       (g->acct.err_no ? APIPROF_FUNC_ERRNO : 0);
}

struct apiprof_api *dyn_api_new(const struct spec *s)
{
	struct apiprof_api *api = dyn_alloc(sizeof(*api));
	size_t nsyms = s->nfuncs + s->naliases;
	const char **symbols = dyn_alloc(nsyms * sizeof(*symbols));
	const char **versions = dyn_alloc(nsyms * sizeof(*versions));
	const char **display = dyn_alloc(s->nfuncs * sizeof(*display));
	uint32_t *flags = dyn_alloc(s->nfuncs * sizeof(*flags));

	for (size_t i = 0; i < s->nfuncs; i++) {
		fill_sym(api, &s->funcs[i], symbols, versions);
		display[i] = s->funcs[i].name;
		flags[i] = dyn_api_flags(&s->funcs[i]);
	}
	for (size_t i = 0; i < s->naliases; i++)
		fill_sym(api, &s->aliases[i], symbols, versions);
	api->abi = APIPROF_SHIM_ABI;
	api->name = s->api;
	api->library = s->library;
	api->spec = s->path;
	api->nfuncs = (uint32_t)s->nfuncs;
	api->func_base = APIPROF_FUNC_UNSET;
	api->nsyms = (uint32_t)nsyms;
	api->symbols = symbols;
	api->versions = versions;
	api->display = display;
	api->flags = flags;
	api->missing_warned = dyn_alloc(nsyms * sizeof(uint32_t));
	apiprof_register(api);
	return api;
}
