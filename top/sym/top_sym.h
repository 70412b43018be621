/* SPDX-License-Identifier: MIT */
/*
 * top_sym.h - code addresses of a live process to module, offset, function
 * and source line, with elfutils' libdwfl (for apiprof-top and the tools
 * that read the exit output; the runtime never links elfutils).
 *
 * The target is untrusted: its mappings, files and DWARF may be anything.
 * Whatever fails gives a "[unknown]" answer, never a crash, and every
 * string in an answer is printable ASCII (anything else is '?').  Only
 * processes whose /proc/PID/maps the caller may read are resolved (same
 * user, or root): the kernel's permission check is the only one; nothing
 * is traced.  A root caller opens a process's files with that process's
 * credentials (top_proccred.h).  Nothing is printed: a file refused or cut
 * short (apiprof_modfile.h) is told to the warning function, if any.  The
 * maps are read once per refresh (top_sym_cache_next).  Not thread-safe:
 * one thread per cache.
 */
#ifndef TOP_SYM_H
#define TOP_SYM_H

#include <stddef.h>
#include <stdint.h>

#define TOP_SYM_PROCS 8    /* processes kept in a cache, least recently used goes */
#define TOP_SYM_PATH  1024 /* longest path kept (longer ones are cut) */
#define TOP_SYM_NAME  512  /* longest function name kept */

enum top_sym_kind {
	TOP_SYM_UNKNOWN, /* no such process, not ours, no mapping there */
	TOP_SYM_ANON,    /* a mapping with no file: JIT code, heap, stack */
	TOP_SYM_MODULE,  /* in a mapped file: module and offset, maybe more */
};

struct top_sym {
	enum top_sym_kind kind;
	char module[TOP_SYM_PATH]; /* the file as the process maps it, "[vdso]" */
	uint64_t offset;           /* in the module: the address its ELF file gives */
	char symbol[TOP_SYM_NAME]; /* the function, "" when unknown (stripped) */
	uint64_t symoff;           /* address - the function's start */
	char file[TOP_SYM_PATH];   /* source file from the debug information, or "" */
	int line;                  /* its line, 0 when unknown */
};

struct top_sym_cache;

typedef void (*top_sym_warn_fn)(void *ctx, const char *msg);

struct top_sym_cache *top_sym_cache_new(void);
void top_sym_cache_free(struct top_sym_cache *c);
/* Where the one line about a module file refused, or a section of it
 * skipped, goes (by default nowhere). */
void top_sym_cache_warn(struct top_sym_cache *c, top_sym_warn_fn fn, void *ctx);
/* A new refresh: addresses no module holds are looked up in the
 * process's maps as read afresh, once for all of them, after this call
 * (until it, the maps read last). */
void top_sym_cache_next(struct top_sym_cache *c);

/* Resolves addr in process pid (as /proc shows it).  starttime (field 22
 * of /proc/PID/stat, as the segment name carries it) tells a reused pid
 * apart; 0 accepts any.  0 with *out filled (module or anon), or -1 with
 * out->kind TOP_SYM_UNKNOWN.  A return address names the instruction
 * after the call: pass addr - 1 to get the call's own line. */
int top_sym_resolve(struct top_sym_cache *c, int pid, uint64_t starttime, uint64_t addr,
                    struct top_sym *out);

/* The last component of a path ("libc.so.6", "sym_prog.c"). */
const char *top_sym_base(const char *path);

/* "function", "module+0xoffset" (no symbol), "[anon]" or "[unknown]",
 * cut to fit buf. */
char *top_sym_label(const struct top_sym *s, char *buf, size_t cap);

#endif /* TOP_SYM_H */
