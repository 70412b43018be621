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
	int preprocess;           /* -E: write the checked preprocessed source to out */
	const char *preprocessed; /* --preprocessed: compile this, as -E wrote it */
};

/* Generates a shim into a temporary directory, preprocesses it, checks
 * that nobody else could have written any file it read (gen_build_trust.c)
 * and compiles the preprocessed source, so what is compiled is exactly
 * what was checked; returns the exit status for the process (the
 * compiler's when it fails). */
int gen_build(const struct spec *s, const struct gen_build_opts *o);

/* gen_build_trust.c: a spec is code.  The spec, its "include_dirs" and
 * the -I directories must pass apiprof_trust_path; one line and -1 if not. */
int gen_build_trust_spec(const struct spec *s, const struct gen_build_opts *o);
/* Every file the preprocessor entered (the line markers of the
 * preprocessed source at path; a relative name is relative to dir, where
 * it ran) passes apiprof_trust_path; one line and -1 if not. */
int gen_build_trust_read(const struct spec *s, const char *path, const char *dir);
/* The directory searched for the spec's own headers, in dir: a symbolic
 * link to each header the spec lists that is beside the spec, nothing
 * else of the spec's directory; 0 or -1 (with one line). */
int gen_build_spec_headers(const struct spec *s, const char *dir);

/* Writes the shim for `s` to `path`, all or nothing; 0 or -1.  Its
 * `#line` directives call it name (NULL: path). */
int gen_generate(const struct spec *s, const char *path, const char *name);

/* Writes the shim's linker version script (gen_vscript.c) likewise. */
int gen_generate_vscript(const struct spec *s, const char *path);

#endif /* GEN_BUILD_H */
