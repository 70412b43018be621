/* SPDX-License-Identifier: MIT */
/* apiprof_publish.h - the publish room's declarations (libraries loaded,
 * calls in progress, ring, segment, flush, flusher, the collector's
 * totals); part of apiprof_internal.h. */
#ifndef APIPROF_PUBLISH_H
#define APIPROF_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apiprof_stats.h"

/* --- whether each api's library was ever loaded (apiprof_loaded.c) ---- */
/* Asks about the apis whose library was not seen yet, off the program's
 * calls (it takes the loader's lock), and marks their function entries
 * in the segment; true when every library has been seen. */
APIPROF_HIDDEN bool apiprof_loaded_check(void);
/* Whether api's library is loaded: asked again only after the loader has
 * added an object (the shim constructor's question, and the check's). */
APIPROF_HIDDEN bool apiprof_loaded_ask(const struct apiprof_api *api);
/* Where a shim constructor's prefetch finds its api's functions. */
enum apiprof_lib {
	APIPROF_LIB_UNKNOWN,   /* not asked: a lookup outside a prefetch */
	APIPROF_LIB_THERE,     /* the spec's library is loaded */
	APIPROF_LIB_ABSENT,    /* it is not, nor is its first function elsewhere */
	APIPROF_LIB_ELSEWHERE, /* it is not, but its first function is */
};
APIPROF_HIDDEN bool apiprof_loaded(uint32_t id);       /* as of the latest check */
APIPROF_HIDDEN void apiprof_loaded_before_close(void); /* the dlclose hook's */
/* At the end of the image: one line per api never loaded, unless the
 * image forked (true in the parent after a fork, false in the child). */
APIPROF_HIDDEN void apiprof_loaded_warn(void);
APIPROF_HIDDEN void apiprof_loaded_forked(bool yes);

/* --- calls in progress (apiprof_inflight.c) -------------------------------- */
/* What the flusher knows of a thread's call of one api in progress: its
 * own state, kept across flushes in the thread's entry. */
struct apiprof_inflight {
	uintptr_t frame; /* the frame word the call was seen with; 0: none */
	uint64_t calls;  /* its row's calls then: a count that moves ends it */
	uint64_t t0;     /* its row's t0 then: a start that moves ends it too */
	uint64_t since;  /* its start, or the first flush that saw it (bound) */
	uint64_t look;   /* when the flusher last looked at this api on the thread */
	uint32_t row;    /* the call's row, UINT32_MAX when none */
	uint32_t gen;    /* the entry's generation: a reused entry starts afresh */
	uint32_t shown;  /* the row last published as in flight + 1, 0: none */
	uint32_t bound;  /* APIPROF_REC_INFLIGHT_BOUND or 0 */
};
/* Looks at th's calls in progress (the flusher's passes only: the state
 * is the flusher's).  Fills inflight[id] for each api; gen is th's. */
APIPROF_HIDDEN void apiprof_inflight_scan(struct apiprof_thread *th, uint32_t gen, uint64_t now);
/* How far below a frame its call's return address may be, in words. */
#define APIPROF_SCAN_WORDS 64

/* --- ring and segment (apiprof_ring.c; the protocol: common/abi/apiprof_ringbuf.h) */
APIPROF_HIDDEN void apiprof_ring_format(void *mem, size_t size, const struct apiprof_ring_geom *g);
APIPROF_HIDDEN void apiprof_ring_limit(const struct apiprof_shm_header *h, uint64_t n);
APIPROF_HIDDEN void apiprof_ring_func_limit(const struct apiprof_shm_header *h, uint32_t n);
APIPROF_HIDDEN uint32_t apiprof_ring_funcs_named(const struct apiprof_shm_header *h);
APIPROF_HIDDEN int apiprof_ring_write(struct apiprof_shm_header *h,
                                      const struct apiprof_shm_rec *r);
/* A record filled in place: reserve, fill all but seq, commit or abandon. */
APIPROF_HIDDEN struct apiprof_shm_rec *apiprof_ring_reserve(struct apiprof_shm_header *h,
                                                            uint64_t *pos);
APIPROF_HIDDEN void apiprof_ring_commit(struct apiprof_shm_rec *s, uint64_t pos);
APIPROF_HIDDEN void apiprof_ring_abandon(struct apiprof_shm_header *h, struct apiprof_shm_rec *s,
                                         uint64_t pos);
APIPROF_HIDDEN int apiprof_ring_add_func(struct apiprof_shm_header *h, uint32_t idx,
                                         const char *api, const char *name, uint32_t flags,
                                         uint32_t api_id);
APIPROF_HIDDEN void apiprof_ring_publish_funcs(struct apiprof_shm_header *h, uint32_t count);
/* Function entry idx's flags, changed after it was published. */
APIPROF_HIDDEN void apiprof_ring_func_flags(struct apiprof_shm_header *h, uint32_t idx,
                                            uint32_t flags);

/* --- the process segment (apiprof_segment.c) -------------------------- */
APIPROF_HIDDEN struct apiprof_shm_header *apiprof_segment(void);
/* The segment if its ring has its pages, else NULL; see ring_reserve. */
APIPROF_HIDDEN struct apiprof_shm_header *apiprof_segment_ring(void);
APIPROF_HIDDEN bool apiprof_segment_ring_reserve(void);
APIPROF_HIDDEN bool apiprof_segment_ring_reserve_at_exit(void);
APIPROF_HIDDEN bool apiprof_segment_ring_reserve_final(uint64_t nrec);
APIPROF_HIDDEN void apiprof_segment_open(void);
APIPROF_HIDDEN void apiprof_segment_close(bool unlink_it, bool left);
APIPROF_HIDDEN void apiprof_segment_after_fork(void);
APIPROF_HIDDEN void apiprof_segment_detach(void); /* apiprof_attach.c's detach */
/* Gives the segment to uid (apiprof_creds.c); 0 or an errno. */
APIPROF_HIDDEN int apiprof_segment_handover(uint32_t uid);
APIPROF_HIDDEN uint32_t apiprof_func_reserve(uint32_t n);
APIPROF_HIDDEN void apiprof_segment_add_api(const struct apiprof_api *api);
/* Sets or clears APIPROF_FUNC_UNLOADED on api's function entries. */
APIPROF_HIDDEN void apiprof_segment_api_unloaded(const struct apiprof_api *api, bool unloaded);
APIPROF_HIDDEN void apiprof_proc_comm(char *comm); /* APIPROF_COMM_MAX bytes */
/* Reads at most cap - 1 bytes of a small file (under /proc) into buf,
 * NUL-terminated; returns their number, or -1. */
APIPROF_HIDDEN ssize_t apiprof_proc_read(const char *path, char *buf, size_t cap);

/* --- flushing (apiprof_flush.c, apiprof_flush_ctl.c) ------------------ */
APIPROF_HIDDEN void apiprof_flush_thread(struct apiprof_thread *th);
APIPROF_HIDDEN void apiprof_flush_folded(void);
APIPROF_HIDDEN void apiprof_flush_all(bool keyframe);
/* At exit: for a reader that can still read; true when the final snapshot
 * is in the ring for a collector (apiprof_final.c), to leave the segment. */
APIPROF_HIDDEN bool apiprof_flush_final(void);

/* --- the final totals for a collector (apiprof_final.c) ---------------- */
APIPROF_HIDDEN bool apiprof_collector_watching(void);
APIPROF_HIDDEN uint64_t apiprof_final_rows(void);
APIPROF_HIDDEN void apiprof_flusher_start(void);
/* Requests to the flusher, without a signal (apiprof_flusher.c): stop for a
 * call that needs the process single-threaded (true: stopped, start it
 * again after), and finish the image for a fatal signal's handler. */
APIPROF_HIDDEN void apiprof_flusher_forget(void); /* in a fork child */
APIPROF_HIDDEN bool apiprof_flusher_running(void);
APIPROF_HIDDEN bool apiprof_flusher_stop(void);
APIPROF_HIDDEN bool apiprof_flusher_finish(void);
/* The flusher thread's stack, in the runtime's .bss (apiprof_flusher.c). */
#define APIPROF_FLUSHER_STACK (256u * 1024u)

#endif /* APIPROF_PUBLISH_H */
