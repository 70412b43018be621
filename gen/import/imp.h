/* SPDX-License-Identifier: MIT */
/*
 * imp.h - `apiprof-gen import`: a spec from a real header and a real library.
 *
 *   imp_main.c    command line, and the order of the steps below
 *   imp_parse.c   libclang: the header's functions, macros and records
 *   imp_type.c    libclang types to spec type strings, by-value layouts
 *   imp_elf.c     the library's file and its exported, versioned symbols
 *   imp_select.c  which functions are kept; warnings; v-twins
 *   imp_write.c   the spec, deterministic (sorted, one function a line)
 *
 * Everything the importer writes is later read back by the generator's
 * own validator, so the importer only has to be right, not defensive.
 */
#ifndef IMP_H
#define IMP_H

#include <stdbool.h>
#include <stddef.h>

struct imp_param {
	char *type; /* as the header spells it: "z_streamp", "int (*)(void *, int)" */
	char *name; /* NULL when the declaration has none */
};

struct imp_func {
	char *name;
	char *ret;
	struct imp_param *params;
	size_t nparams;
	char *where; /* "file:line" of the first declaration, for messages */
	bool variadic;
	bool noreturn;
	bool deprecated;
	bool skipped;       /* inline or static: no exported entry point to wrap */
	bool takes_va_list; /* last parameter is a va_list: a v-twin candidate */
	const char *vtwin;  /* set by imp_select */
	char *unsupported;  /* why it cannot be forwarded, or NULL */
	bool unwritable;    /* ... because of a type: the spec leaves out the prototype */
	bool kept;          /* declared, exported and selected */
};

struct imp_member {
	char *type;
	char *name; /* NULL for an unnamed bit-field */
	int bits;
};

/* A struct or union passed by value, keyed by its spelling. */
struct imp_record {
	char *name;
	bool is_union;
	struct imp_member *members;
	size_t nmembers;
};

/* A typedef or enum passed by value, as dynamic mode needs it (it has no
 * header): a typedef name's canonical type, an enum's integer type. */
struct imp_tdef {
	char *name; /* "xmlChar", "enum xmlElementType" */
	char *type; /* "unsigned char", "unsigned int", "struct _xmlDoc *", "void *" */
	bool is_enum;
};

/* `#define deflateInit(s, l) deflateInit_(...)`: name is a macro over target. */
struct imp_macro {
	char *name;
	char *target;
};

struct imp_header {
	struct imp_func *funcs;
	size_t nfuncs;
	struct imp_record *records;
	size_t nrecords;
	struct imp_macro *macros;
	size_t nmacros;
	struct imp_tdef *tdefs;
	size_t ntdefs;
};

struct imp_export {
	char *name;
	char *version; /* its default version (foo@@V), or NULL if unversioned */
	char *old;     /* an old version besides (foo@V), which is not profiled */
	bool current;  /* unversioned or a default version: what new links bind */
};

struct imp_exports {
	char *path;              /* the file the loader found */
	struct imp_export *syms; /* sorted by name */
	size_t nsyms;
};

struct imp_opts {
	const char *header;
	const char **cflags; /* -I DIR and -D MACRO, as clang arguments */
	size_t ncflags;
	char **incdirs; /* the -I DIRs as the spec records them: absolute, real */
	size_t nincdirs;
	const char **defines; /* the -D MACROs, as given */
	size_t ndefines;
	const char *library;
	const char *prefix;      /* NULL: no prefix filter */
	const char *functions;   /* comma-separated list, or NULL */
	const char *api;         /* default: the header's base name */
	const char *out;         /* NULL: stdout */
	const char *include;     /* how the shim #includes the header */
	const char *description; /* the spec's "description" */
	bool verbose;            /* --verbose: every name in a warning's list */
};

/* imp_main.c: `apiprof-gen import ...`; argv[0] is "import". */
int imp_main(int argc, char **argv);

/* imp_parse.c: 0, or -1 after printing why. */
int imp_parse(const struct imp_opts *o, struct imp_header *h);

/* imp_elf.c */
int imp_find_library(const char *soname, char **path);
int imp_read_exports(const char *path, struct imp_exports *x);
const struct imp_export *imp_export_find(const struct imp_exports *x, const char *name);

/* imp_select.c: marks kept functions, finds v-twins, prints warnings.
 * Returns the number of kept functions. */
size_t imp_select(const struct imp_opts *o, struct imp_header *h, const struct imp_exports *x);

/* imp_write.c: the spec on o->out (or stdout). */
int imp_write(const struct imp_opts *o, const struct imp_header *h);

/* imp_util.c */
void imp_header_free(struct imp_header *h);
void imp_exports_free(struct imp_exports *x);
int imp_cmp_str(const void *a, const void *b);
void imp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* IMP_H */
