/* SPDX-License-Identifier: MIT */
/*
 * top_symmaps.h - one reading of a process's /proc/PID/maps for the
 * address resolver (top_sym.c): every mapping, in address order, with its
 * file's path, and a hash of the file mappings that tells a change.  One
 * reading answers all the addresses of a refresh: a process with tens of
 * thousands of mappings and hundreds of JIT call sites is read once, not
 * once per address.
 */
#ifndef TOP_SYMMAPS_H
#define TOP_SYMMAPS_H

#include <stddef.h>
#include <stdint.h>

#define TOP_SYMMAPS_NOPATH UINT32_MAX

struct top_symmap {
	uint64_t start, end, pgoff;
	uint32_t path; /* offset in names, TOP_SYMMAPS_NOPATH: no file */
};

struct top_symmaps {
	struct top_symmap *v;
	size_t n, cap;
	char *names; /* paths, each '\0'-ended; a mapping's repeats the last */
	size_t len, room;
	uint64_t hash; /* of the file mappings' lines */
};

/* Reads /proc/PID/maps afresh into m: 0, or -1 (m then holds nothing). */
int top_symmaps_read(struct top_symmaps *m, int pid);

/* The mapping holding addr, or NULL. */
const struct top_symmap *top_symmaps_find(const struct top_symmaps *m, uint64_t addr);

/* Its file's path as the maps print it, "" for none. */
const char *top_symmaps_path(const struct top_symmaps *m, const struct top_symmap *e);

void top_symmaps_free(struct top_symmaps *m);

#endif /* TOP_SYMMAPS_H */
