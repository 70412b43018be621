// SPDX-License-Identifier: MIT
/*
 * dyn_api.c - the struct apiprof_api of a spec loaded at run time.
 *
 * The same table of symbols a generated shim defines statically (apiprof-gen's
 * "The generated code"), filled from the loaded spec: rows are the
 * functions, symbols the functions' and then the aliases'.  The spec stays
 * loaded for the life of the process, as it owns the strings.
 */
#include "dyn.h"

/* As a generated shim's (gen_emit.c): noreturn, and what it declares. */
static uint32_t dyn_api_flags(const struct spec_func *g)
{
	return (g->noreturn ? APIPROF_FUNC_NORETURN : 0) |
	       (g->acct.bytes != SPEC_BYTES_NONE ? APIPROF_FUNC_BYTES : 0) |
	       (g->acct.fails != SPEC_FAILS_NONE ? APIPROF_FUNC_FAILS : 0) |
	       (g->acct.err_no ? APIPROF_FUNC_ERRNO : 0);
}

/* Symbol g's row of the table: its display and flags are its row's. */
static void fill_sym(struct apiprof_sym *syms, const struct spec *s, const struct spec_func *g)
{
	const struct spec_func *row = &s->funcs[g->row];

	syms[g->sym] = (struct apiprof_sym){.symbol = g->lookup,
	                                    .version = g->version,
	                                    .display = row->name,
	                                    .row = (uint32_t)g->row,
	                                    .flags = dyn_api_flags(row)};
}

struct apiprof_api *dyn_api_new(const struct spec *s)
{
	struct apiprof_api *api = dyn_alloc(sizeof(*api));
	size_t nsyms = s->nfuncs + s->naliases;
	struct apiprof_sym *syms = dyn_alloc(nsyms * sizeof(*syms));

	for (size_t i = 0; i < s->nfuncs; i++)
		fill_sym(syms, s, &s->funcs[i]);
	for (size_t i = 0; i < s->naliases; i++)
		fill_sym(syms, s, &s->aliases[i]);
	api->abi = APIPROF_SHIM_ABI;
	api->name = s->api;
	api->library = s->library;
	api->spec = s->path;
	api->nfuncs = (uint32_t)s->nfuncs;
	api->func_base = APIPROF_FUNC_UNSET;
	api->nsyms = (uint32_t)nsyms;
	api->syms = syms;
	api->missing_warned = dyn_alloc(nsyms * sizeof(uint32_t));
	apiprof_register(api);
	return api;
}
