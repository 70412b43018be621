/* SPDX-License-Identifier: MIT */
/*
 * top_shm.h - finding, mapping and reading the runtime's segments.
 *
 * Everything in a segment is hostile input (see apiprof_abi.h): the reader
 * validates each read pass against the real size of the mapping and
 * survives the file shrinking under it.  A pass yields what it found to a
 * sink (struct top_seg_sink); what to keep is the sink's business (the
 * model's: top_feed.c).
 */
#ifndef TOP_SHM_H
#define TOP_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "apiprof_abi.h"
#include "apiprof_segname.h"
#include "top_snap.h"

#define TOP_SHM_DIR  "/dev/shm"
#define TOP_PROC_DIR "/proc"
#define TOP_ERR_LEN  160

/* Return values of top_seg_open and top_seg_read besides 0. */
#define TOP_SEG_INVALID  (-1) /* skip the segment; the message says why */
#define TOP_SEG_NOTREADY 1    /* still being created: try again later */
#define TOP_SEG_NOFD     2    /* no file descriptor to be had: try again later */

/* A segment is mapped, and its file closed: a viewer of thousands holds
 * no descriptor for each.  A read pass opens the file again by its path
 * for a moment (the very file mapped, or none), to check its size and
 * pages and to say that it watches. */
struct top_seg {
	int fd; /* during a read pass only; else -1 */
	char *path;
	uint64_t dev, ino; /* of the file mapped */
	uint64_t backed;   /* bytes from the start proven to have pages */
	const unsigned char *map;
	size_t map_size;
	struct apiprof_shm_header hdr; /* copy from the latest read pass */
	uint64_t last_seen;            /* ring position read up to */
	bool attached;                 /* the whole ring was scanned once */
	uint64_t lost;                 /* records lost on the reader side */
	struct top_func *funcs;        /* scratch for the function table */
	uint32_t funcs_cap;
	bool writable; /* opened read-write: can say that it watches */
	bool woken;    /* this read woke the flusher (a runtime without FLUSH_ACK) */
	bool waited;   /* for a woken flusher's first snapshot, once */
	/* The first look's request for a flush (APIPROF_SHM_FLUSH_ACK): made,
	 * its reader_gen, and whether the runtime has answered it. */
	bool asked;
	bool answered;
	bool ask_new; /* asked by this refresh: top_seg_await waits, once */
	uint32_t ask_gen;
	bool named; /* id holds what the file name says (top_seg_openat) */
	struct apiprof_segid id;
	uint32_t owner; /* the file's uid, as opened */
};

/* A segment's name and its process (top_names.c). */
struct top_segname {
	char name[APIPROF_SEGNAME_MAX];
	struct apiprof_segid id; /* parsed from the name */
	int pid;                 /* as /proc shows it (the viewer's namespace); 0: unknown */
	uint64_t starttime;      /* id.starttime */
	uint32_t owner;          /* the file's uid when listed */
	bool ns_seen;            /* /proc shows a process of the segment's pid namespace */
};

/* The segments uid may see (root: everyone's) whose process /proc names;
 * errno 0 when dir was read, else why not (EMFILE: no descriptor). */
size_t top_shm_list(const char *dir, uint32_t uid, struct top_segname **out);
void top_shm_sanitize(char *dst, const char *src, size_t srclen);

/* Each read of a segment tells its runtime to keep flushing for a while:
 * three refresh periods of delay_s, at least 5 s (the default). */
void top_shm_watch_delay(double delay_s);
void top_seg_init(struct top_seg *s);
int top_seg_open(struct top_seg *s, const char *path, char *err, size_t errlen);
int top_seg_openat(struct top_seg *s, int dirfd, const char *name, char *err, size_t errlen);

/* What one read pass yields, in this order: every intact record, newest
 * position first, validated (function index below func_cap) and sanitized;
 * then the function table (func_count entries, covering every record of
 * the pass); then, at the end of a good pass, the header it read and the
 * reader's count of lost records.  funcs returns 0, or -1 when out of
 * memory (the pass fails). */
struct top_seg_sink {
	void *ctx;
	void (*snap)(void *ctx, const struct top_snap *snap);
	int (*funcs)(void *ctx, const struct top_func *funcs, uint32_t n);
	void (*pass)(void *ctx, const struct apiprof_shm_header *h, uint64_t lost);
};

/* Reads what is new in the segment of process pid (as /proc shows it; the
 * name must say the same) into k.  0, TOP_SEG_NOTREADY, or TOP_SEG_INVALID
 * with a one-line reason in err. */
int top_seg_scan(struct top_seg *s, int pid, const struct top_seg_sink *k, char *err,
                 size_t errlen);
void top_seg_close(struct top_seg *s);
/* The first read of a segment whose runtime answers requests asked it for
 * a flush (apiprof_abi.h APIPROF_SHM_FLUSH_ACK): pending until the answer
 * has been seen.  top_seg_await waits for it once, until deadline_ns
 * (CLOCK_MONOTONIC), on a futex, while process pid lives; true once
 * answered: a read after it has everything the process did before the
 * first look.  Later reads notice a late answer. */
bool top_seg_pending(const struct top_seg *s);
bool top_seg_await(struct top_seg *s, int pid, uint64_t deadline_ns);
int top_shm_copy_guarded(void *dst, const void *src, size_t n);
int top_shm_validate(const struct apiprof_shm_header *h, size_t size, char *err, size_t errlen);
/* The header read last says it is the process its name says, shown as pid. */
bool top_shm_names_process(const struct top_seg *s, int pid);

int top_shm_alive(const char *procdir, int pid, uint64_t starttime);
/* The effective uid of process pid of procdir (the Uid line of its
 * status): 0, or -1 when unreadable (errno). */
int top_shm_proc_euid(const char *procdir, int pid, uint32_t *euid);
/* True only when the process of segment `name` (pid in procdir) is proven gone. */
bool top_shm_gone(const char *procdir, const char *name, int pid);
int top_shm_clean(const char *dir, const char *procdir, uint32_t uid, FILE *out);

#endif /* TOP_SHM_H */
