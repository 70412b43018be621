/* SPDX-License-Identifier: MIT */
/*
 * gen_build.h - `apiprof-gen build`: spec to ready-to-preload library.
 */
#ifndef GEN_BUILD_H
#define GEN_BUILD_H

#include <stddef.h>

#include "spec.h"

struct gen_build_opts {
	const char *out;        /* NULL: libapiprof-<api>.so in the cwd */
	const char *const *inc; /* extra -I directories */
	size_t ninc;
};

/* Generates a shim into a temporary directory and compiles it; returns
 * the exit status for the process (the compiler's when it fails). */
int gen_build(const struct spec *s, const struct gen_build_opts *o);

/* Writes the shim for `s` to `path`, all or nothing; 0 or -1. */
int gen_generate(const struct spec *s, const char *path);

/* Writes the shim's linker version script (gen_vscript.c) likewise. */
int gen_generate_vscript(const struct spec *s, const char *path);

#endif /* GEN_BUILD_H */
