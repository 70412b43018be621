/* SPDX-License-Identifier: MIT */
/*
 * gen_paths.h - where apiprof-gen and apiprof-run find the other parts:
 * the runtime, the shims, the specs, the headers and the generator.
 */
#ifndef GEN_PATHS_H
#define GEN_PATHS_H

enum gen_part {
	GEN_PART_INCLUDEDIR, /* apiprof_shim.h & co., for `apiprof-gen build` */
	GEN_PART_LIBDIR,     /* libapiprof.so, linked against by a built shim */
	GEN_PART_GEN,        /* apiprof-gen, run by apiprof-run for a spec file */
	GEN_PART_SHIMDIR,    /* the shipped shims, libapiprof-<api>.so */
	GEN_PART_RUNTIME,    /* libapiprof.so.0, first in LD_PRELOAD */
	GEN_PART_DYN_LIB,    /* libapiprof-dyn.so (--dynamic) */
	GEN_PART_DYN_AUDIT,  /* libapiprof-dyn-audit.so (--dynamic) */
	GEN_PART_SPECDIR,    /* the shipped specs, <api>.json */
	GEN_PART_COUNT
};

/* The part's path: its environment variable (APIPROF_INCLUDEDIR,
 * APIPROF_LIBDIR, APIPROF_GEN, APIPROF_SHIMDIR, APIPROF_RUNTIME,
 * APIPROF_DYN_LIB, APIPROF_DYN_AUDIT, APIPROF_SPECDIR) when it is set and
 * not empty, else the built-in place.  Never NULL. */
const char *gen_path(enum gen_part part);

#endif /* GEN_PATHS_H */
