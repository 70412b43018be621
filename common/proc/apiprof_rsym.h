/* apiprof_rsym.h: where a symbol lies in another process.
 *
 * Found without touching the process: its /proc/PID/maps names the object
 * (by the mapping's basename), the object's file is read through
 * /proc/PID/root (the process's own view of its files, so a process in
 * another mount namespace is read as it sees them) with libelf, and checked
 * to be the file mapped (device and inode), and its dynamic symbol table
 * gives the symbol's value, which the mapping's load bias turns into an
 * address.  The file is the other process's and is read as untrusted
 * input.  Used by apiprof-ctl (to wake a dormant runtime) and apiprof-run
 * -p (to find the loader's entry points in the process it attaches to). */
#ifndef APIPROF_RSYM_H
#define APIPROF_RSYM_H

#include <stdint.h>
#include <sys/types.h>

/* One loaded object of another process. */
struct apiprof_rsym_obj {
	pid_t pid;
	uint64_t bias; /* what the object's addresses are moved by */
	dev_t dev;     /* the mapped file, from /proc/PID/maps */
	uint64_t ino;
	char path[512]; /* as the process sees it (maps' path) */
};

/* Why a lookup failed: one line, for the user. */
struct apiprof_rsym_err {
	char text[256];
};

/* Finds the object of process pid whose mapped file's basename is name,
 * or begins with name followed by '.' or '-' (so "libc.so" finds
 * "libc.so.6" and "libapiprof.so" finds "libapiprof.so.0").  0, or -errno
 * with e->text set (ENOENT: not loaded). */
int apiprof_rsym_find_obj(pid_t pid, const char *name, struct apiprof_rsym_obj *o,
                          struct apiprof_rsym_err *e);

/* The address in process o->pid of the defined symbol sym of object o (its
 * default version where there are several).  0, or -errno with e->text. */
int apiprof_rsym_lookup(const struct apiprof_rsym_obj *o, const char *sym, uint64_t *addr,
                        struct apiprof_rsym_err *e);

#endif
