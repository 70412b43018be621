/* SPDX-License-Identifier: MIT */
/*
 * apiprof_loader_calls.h - the functions the dynamic loader itself calls
 * through whatever defines them (ld.so's malloc after relocation, libc's
 * dlerror).  A lookup made from inside one of them would find it
 * unresolved and half the loader's state updated, so a shim's constructor
 * always resolves them, even where the spec's library is absent: the
 * runtime's lookup (apiprof_api.c) and the constructor the generator
 * writes (gen_emit.c) both ask this list.
 */
#ifndef APIPROF_LOADER_CALLS_H
#define APIPROF_LOADER_CALLS_H

#include <stdbool.h>
#include <string.h>

static inline bool apiprof_loader_calls(const char *symbol)
{
	static const char *const names[] = {"malloc", "calloc", "realloc", "free"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(symbol, names[i]) == 0)
			return true;
	return false;
}

#endif /* APIPROF_LOADER_CALLS_H */
