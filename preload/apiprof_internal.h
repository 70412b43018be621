/* SPDX-License-Identifier: MIT */
/* apiprof_internal.h - the runtime's private interfaces (not for shims). */
#ifndef APIPROF_INTERNAL_H
#define APIPROF_INTERNAL_H

#include <cpuid.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apiprof_ringbuf.h"
#include "apiprof_atomic.h"
#include "apiprof_shim.h"

#define APIPROF_HIDDEN __attribute__((visibility("hidden")))

/* --- configuration (apiprof_env.c) ------------------------------------ */
struct apiprof_config {
	uint32_t interval_ms; /* APIPROF_INTERVAL_MS, 0 = no flusher thread */
	uint32_t keyframe;    /* APIPROF_KEYFRAME: a full snapshot every N flushes */
	uint32_t ring_order;  /* log2 of APIPROF_RING_RECORDS */
	uint32_t func_cap;    /* APIPROF_MAX_FUNCS */
	uint32_t keep_exited; /* APIPROF_KEEP_EXITED: exited threads kept one by one */
	int clock;            /* APIPROF_CLOCK: enum apiprof_clock, 0 = automatic */
	uint32_t sample;      /* APIPROF_SAMPLE: time about one call in N (0, 1: all) */
	uint32_t node_cap;    /* APIPROF_MAX_NODES: the call tree's nodes per thread */
	bool summary;         /* APIPROF_SUMMARY=1 */
	bool shm;             /* APIPROF_SHM=0 turns the live segment off */
	bool keep_shm;        /* APIPROF_KEEP_SHM=1: do not unlink at exit */
	bool quiet;           /* APIPROF_QUIET=1 (apiprof-run -q): no hints, no notes */
	uint32_t hints_pid;   /* APIPROF_HINTS_PID: who speaks for the run (0: each) */
	char output[4096];    /* APIPROF_OUTPUT, "" = none */
};
APIPROF_HIDDEN extern struct apiprof_config apiprof_cfg;
APIPROF_HIDDEN void apiprof_env_load(struct apiprof_config *cfg);
APIPROF_HIDDEN void apiprof_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The program's stderr as it was at start-up, kept on a private duplicate:
 * warnings and the summary go there only (apiprof_env.c). */
APIPROF_HIDDEN void apiprof_err_init(void);
APIPROF_HIDDEN int apiprof_err_write(const void *buf, size_t len);

/* --- clock (apiprof_clock.c) ------------------------------------------ */
APIPROF_HIDDEN extern int apiprof_clock_tsc;   /* 1: rdtsc, 0: CLOCK_MONOTONIC */
APIPROF_HIDDEN extern uint32_t apiprof_sample; /* 0, or time one call in N */
APIPROF_HIDDEN extern uint32_t apiprof_timing; /* APIPROF_MODE_*, copied to each thread */

/* A timestamp for the runtime's own use, in the process's clock. */
static inline uint64_t apiprof_now(void)
{
	return apiprof_clock_tsc ? __rdtsc() : apiprof_clock_mono();
}

APIPROF_HIDDEN void apiprof_clock_init(int wanted);
APIPROF_HIDDEN uint64_t apiprof_clock_hz(void);
APIPROF_HIDDEN uint64_t apiprof_clock_tick0(void);
APIPROF_HIDDEN uint64_t apiprof_clock_mono0(void);
APIPROF_HIDDEN double apiprof_ticks_to_ns(uint64_t ticks);

/* --- memory (apiprof_arena.c): lock-free, zeroed, never freed --------- */
APIPROF_HIDDEN void *apiprof_arena_alloc(size_t size);

/* --- apis (apiprof_api.c) --------------------------------------------- */
APIPROF_HIDDEN struct apiprof_api *apiprof_api_get(uint32_t id);
APIPROF_HIDDEN uint32_t apiprof_api_count(void); /* ids are 1..count */
APIPROF_HIDDEN struct apiprof_tab *apiprof_api_folded(uint32_t id);
APIPROF_HIDDEN struct apiprof_tab *apiprof_api_in_use(const struct apiprof_api *api, uint32_t id);
APIPROF_HIDDEN void apiprof_api_publish(struct apiprof_api *api, uint32_t id);
APIPROF_HIDDEN void apiprof_api_after_fork(void);

/* --- statistics tables (apiprof_tab.c) --------------------------------- */
/* Tables of n rows (struct apiprof_tab, apiprof_shim.h): a table of
 * api's rows, with acct areas for those with APIPROF_FUNC_ACCT flags. */
APIPROF_HIDDEN struct apiprof_tab *apiprof_tab_alloc(const struct apiprof_api *api);

/* A table's hist_xor (apiprof_hist_bucket_lz): 63 on a CPU with LZCNT
 * (CPUID 0x80000001 ECX bit 5), 0 on one that runs it as BSR.  Asked
 * once per table, which is made once per thread and api. */
static inline uint64_t apiprof_cpu_hist_xor(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid(0x80000001u, &a, &b, &c, &d) == 0)
		return 0;
	return (c & bit_LZCNT) ? 63 : 0;
}
APIPROF_HIDDEN void apiprof_tab_init(struct apiprof_tab *tab, uint32_t n);
APIPROF_HIDDEN void apiprof_tab_read(struct apiprof_fstat *dst, struct apiprof_tab *tab,
                                     uint32_t i);
/* Row i of a table into a ring record's statistics (calls .. hist). */
APIPROF_HIDDEN void apiprof_tab_read_rec(struct apiprof_rec_times *dst, struct apiprof_tab *tab,
                                         uint32_t i);
/* Row i's bytes and failures (dst->acct false when it has none), and the
 * same into a ring slot (only for a row that has them). */
APIPROF_HIDDEN void apiprof_tab_read_acct(struct apiprof_fstat *dst, struct apiprof_tab *tab,
                                          uint32_t i);
APIPROF_HIDDEN void apiprof_tab_read_xrec(struct apiprof_rec_acct *dst, struct apiprof_tab *tab,
                                          uint32_t i);
/* Adds row i of src into row i of dst (sampled: the process samples). */
APIPROF_HIDDEN void apiprof_tab_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i,
                                     bool sampled);
/* The count of a histogram of tab (a row's own or one of its sites'),
 * with the bucket the owner has noted but not yet counted if it is there
 * (apiprof_tab_due_in: that bucket, else -1). */
APIPROF_HIDDEN uint64_t apiprof_tab_hist_timed(struct apiprof_tab *tab, const uint64_t *hist);
APIPROF_HIDDEN int apiprof_tab_due_in(struct apiprof_tab *tab, const uint64_t *hist);

/* --- call sites and the call tree (apiprof_sites.c) -------------------- */
/* Row i's calls by site into a ring slot's entries and calls, with the
 * run in progress (not for an api's folded totals, which have none);
 * false when its owner kept changing it. */
APIPROF_HIDDEN bool apiprof_tab_read_srec(struct apiprof_rec_sites *dst, struct apiprof_tab *tab,
                                          uint32_t i, bool sampled, bool folded);
/* A timed call of row idx of tab about to start from another site (or
 * parent) than the run in progress, whose key is key: the run ends, and
 * one of key begins with this call.  Only the out-of-line way in calls
 * it (apiprof_slow.c): the inline one sends such a call there. */
APIPROF_HIDDEN void apiprof_site_switch(struct apiprof_tab *tab, uint32_t idx, uint64_t key);
APIPROF_HIDDEN void apiprof_sites_fold(struct apiprof_tab *dst, struct apiprof_tab *src, uint32_t i,
                                       bool sampled);
APIPROF_HIDDEN void apiprof_sites_init(struct apiprof_tab *tab, uint32_t i);
/* Row i's run, reset, is a call in progress that a fork child inherited
 * (apiprof_cct_forked): its calls count in the call tree's root's other
 * paths (APIPROF_CCT_OVF | 0) until the row's next switch, which every
 * next call of it makes. */
APIPROF_HIDDEN void apiprof_sites_inherited(struct apiprof_tab *tab, uint32_t i);
/* Counts the owner's call of row i that a jump or a throw abandons (no
 * time) in the run it was made in: the parked run when it was one of
 * that run's (APIPROF_CALL_PARKED), else the run in progress. */
APIPROF_HIDDEN void apiprof_sites_abandoned(struct apiprof_tab *tab, uint32_t i);
/* Adds the histograms of row i's sites, with the bucket noted but not yet
 * counted where it is in one of them, into hist. */
APIPROF_HIDDEN void apiprof_sites_hist_add(uint64_t *hist, struct apiprof_tab *tab, uint32_t i);
/* p50 and p99, in ticks, of the calls of row i's entry of the site of
 * key (other: "(other callers)") from its histogram (scratch:
 * APIPROF_HIST_BUCKETS words for its copy), within the row's extremes;
 * false when the entry has no histogram or no timed call in it. */
APIPROF_HIDDEN bool apiprof_site_quantiles(struct apiprof_tab *tab, uint32_t i, uint64_t key,
                                           bool other, uint64_t *scratch, uint64_t q[2]);
/* Row i's quantiles by site into a ring slot (APIPROF_REC_SITEQ), for the
 * entries of sites (a copy of its sites record; NULL: none), with scratch
 * as above. */
APIPROF_HIDDEN void apiprof_tab_read_qrec(struct apiprof_rec_siteq *dst, struct apiprof_tab *tab,
                                          uint32_t i, const struct apiprof_rec_sites *sites,
                                          uint64_t *scratch);
/* The key of the run in progress of the row whose call is parent (a node
 * of this thread's call tree, a run key's parent part: the row of the
 * node's function, apiprof_cct.c), 0 if none. */
APIPROF_HIDDEN uint64_t apiprof_parent_run_key(uint32_t parent);

/* --- lookups beyond RTLD_NEXT (apiprof_lookup.c) ----------------------- */
APIPROF_HIDDEN void *apiprof_lookup_in_library(const struct apiprof_api *api, uint32_t idx);
APIPROF_HIDDEN void *apiprof_api_redirect(const char *name, void *p);
/* The spec's library if loaded (a handle to dlclose), or NULL. */
APIPROF_HIDDEN void *apiprof_library_open(const struct apiprof_api *api);
/* A generated shim's real-function pointers, one per symbol; NULL for an
 * api built at run time (dynamic mode). */
APIPROF_HIDDEN void **apiprof_api_reals(const struct apiprof_api *api);
/* The api whose wrapper dlsym(RTLD_DEFAULT, name) would find, standing
 * for nothing (its library is not loaded), or NULL. */
APIPROF_HIDDEN struct apiprof_api *apiprof_api_absent(const char *name);
/* Leaves the dlerror state as a successful call does (apiprof_dl.c). */
APIPROF_HIDDEN void apiprof_dl_clear_error(void);
/* After a dlclose unloaded something: drops the cached real functions that
 * pointed into it (apiprof_unload.c). */
APIPROF_HIDDEN void apiprof_unload_forget(uint64_t adds_before);
APIPROF_HIDDEN void apiprof_unload_counts(uint64_t *adds, uint64_t *subs);

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

/* --- threads (apiprof_thread.c) --------------------------------------- */
enum apiprof_thread_state {
	APIPROF_T_FREE = 0,
	APIPROF_T_LIVE,
	APIPROF_T_EXITING, /* writing its last snapshot; the flusher keeps off */
	APIPROF_T_EXITED,  /* stats kept for the outputs until folded */
	APIPROF_T_FOLDING, /* being folded into the per-api totals */
};

/* What the flusher's own passes keep of a row's latest APIPROF_REC_SITEQ
 * record (apiprof_flush.c siteq_due): the timed calls of the sites it
 * went with, its ring position, and the entry's gen then (a reset entry,
 * a fork child's too, has another: its marks are no longer its own). */
struct apiprof_qmark {
	uint64_t timed;
	uint64_t pos;
	uint32_t gen;
	uint32_t set;
};

struct apiprof_thread {
	struct apiprof_thread *next;      /* registry list: entries are never removed */
	struct apiprof_thread *free_next; /* free stack, under the registry lock */
	uint32_t state;                   /* enum apiprof_thread_state, atomic */
	uint32_t gen;                     /* odd while the entry is being reset */
	uint32_t tid;                     /* identity: written only while gen is odd */
	uint32_t snap_seq;
	uint32_t exit_rounds;
	union {
		char comm[APIPROF_COMM_MAX];
		uint64_t comm_w[APIPROF_COMM_MAX / 8]; /* for whole-word atomic copies */
	};
	/* The thread's name as read again later (apiprof_thread_rename): the
	 * program may rename its threads after their first call.  Written
	 * under name_lock, with name_seq odd meanwhile; valid while name_gen
	 * is gen. */
	uint32_t name_lock;
	uint32_t name_seq;
	uint32_t name_gen;
	uint32_t reserved0;
	uint64_t name_w[APIPROF_COMM_MAX / 8];
	uint64_t start_tick;
	uint64_t exit_tick;
	struct apiprof_tab *tab[APIPROF_MAX_APIS];
	/* calls at the flusher's last snapshot, one word per row, then each
	 * row's struct apiprof_qmark */
	uint64_t *shadow[APIPROF_MAX_APIS];
	/* The latest call of each api entered out of line: its stack address
	 * and row, the row of an abandoned call whose frame word says
	 * APIPROF_FRAME_SLOW (apiprof_slow.c).  The owning thread's only. */
	uintptr_t slow_frame[APIPROF_MAX_APIS];
	uint32_t slow_row[APIPROF_MAX_APIS];
	/* Each api's call in progress that the inline way in entered, as the
	 * latest exception thrown on the thread found it: its stack address
	 * (0: none) and row, for the catch that abandons it (apiprof_unwind.c).
	 * The owning thread's only. */
	uintptr_t thrown_frame[APIPROF_MAX_APIS];
	uint32_t thrown_row[APIPROF_MAX_APIS];
	uintptr_t thrown_sp; /* the lowest thrower's since the latest catch, 0: none */
	/* The thread's TLS block, which the flusher reads (apiprof_inflight.c),
	 * and the flusher's own view of each api's call in progress. */
	struct apiprof_tls_block *blk;
	struct apiprof_inflight *inflight[APIPROF_MAX_APIS];
	/* The thread's calling-context tree (apiprof_cct.c), made at its
	 * first switch of run; kept, emptied, when the entry is reused. */
	struct apiprof_cct *cct;
};

APIPROF_HIDDEN struct apiprof_thread *apiprof_thread_first(void);
APIPROF_HIDDEN uint32_t apiprof_thread_identity(const struct apiprof_thread *th, char *comm);
/* Reads a live thread's name again (/proc), off its own way: true when it
 * changed, and its identity says the new one from now on. */
APIPROF_HIDDEN bool apiprof_thread_rename(struct apiprof_thread *th);
APIPROF_HIDDEN void apiprof_thread_rename_all(void); /* at the end of the image */
APIPROF_HIDDEN void apiprof_thread_init(void);
APIPROF_HIDDEN void apiprof_thread_after_fork(void);

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

/* --- wrappers by address (apiprof_wrappers.c) -------------------------- */
/* apiprof's own code in the runtime and api's shim, as api is registered. */
APIPROF_HIDDEN void apiprof_wrappers_add(const struct apiprof_api *api);
/* Where api's wrappers lie, worked out once, with its first thread table. */
APIPROF_HIDDEN void apiprof_wrappers_ranges(const struct apiprof_api *api, uint32_t id);
/* The row of api id whose wrapper's code holds a, a return address found
 * on a stack, or UINT32_MAX.  No lock, no loader call. */
APIPROF_HIDDEN uint32_t apiprof_wrappers_row(uint32_t id, uintptr_t a);
/* The row of a call of api id entered inline, whose frame word is frame:
 * the first word below it, down to low, that apiprof_wrappers_row knows,
 * or UINT32_MAX. */
APIPROF_HIDDEN uint32_t apiprof_wrappers_below(uint32_t id, uintptr_t frame, uintptr_t low);
/* Whether a lies in the code of apiprof's runtime or of a shim. */
APIPROF_HIDDEN bool apiprof_wrappers_ours(uintptr_t a);
/* An address outside [apiprof_ours_lo, apiprof_ours_hi) is none of it. */
APIPROF_HIDDEN extern uintptr_t apiprof_ours_lo, apiprof_ours_hi;
static inline bool apiprof_maybe_ours(uintptr_t a)
{
	return a > apiprof_read_once(&apiprof_ours_lo) && a < apiprof_read_once(&apiprof_ours_hi);
}

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

/* --- flushing (apiprof_flush.c) --------------------------------------- */
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
/* Requests to the flusher, without a signal (apiprof_flush.c): stop for a
 * call that needs the process single-threaded (true: stopped, start it
 * again after), and finish the image for a fatal signal's handler. */
APIPROF_HIDDEN void apiprof_flusher_forget(void); /* in a fork child */
APIPROF_HIDDEN bool apiprof_flusher_running(void);
APIPROF_HIDDEN bool apiprof_flusher_stop(void);
APIPROF_HIDDEN bool apiprof_flusher_finish(void);
/* The flusher thread's stack, in the runtime's .bss (apiprof_flush.c). */
#define APIPROF_FLUSHER_STACK (256u * 1024u)

/* --- outputs at exit (apiprof_output.c) ------------------------------- */
APIPROF_HIDDEN void apiprof_output_json(const char *pattern, bool before_exec);
APIPROF_HIDDEN void apiprof_output_summary(void); /* on apiprof_err_write */

/* --- per-thread state (apiprof_tls.c) --------------------------------- */
/* A thread's block: the hot state first, then the runtime's own.  Aligned
 * to a cache line, so that the hot state's first line is one line (see
 * struct apiprof_tls); the whole block is 1024 bytes, which still fits the
 * surplus glibc keeps for libapiprof-tls.so's initial-exec copy. */
struct apiprof_tls_block {
	struct apiprof_tls hot;
	struct apiprof_thread *self; /* NULL, the thread's entry, or retired */
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct apiprof_tls, api[3]) == 64, "apis 1 and 2 share the first line");
_Static_assert(sizeof(struct apiprof_tls_block) == 1024, "the block stays 1024 bytes");

APIPROF_HIDDEN extern int apiprof_tls_state;     /* 0 undecided, 1 usable, -1 none */
APIPROF_HIDDEN extern intptr_t apiprof_tls_off;  /* of every thread's block from its %fs */
APIPROF_HIDDEN bool apiprof_tls_use_own(void);   /* from start(): no lock, no allocation */
APIPROF_HIDDEN bool apiprof_tls_use_spare(void); /* from the constructor: dlopen()s */

/* The thread pointer: the x86-64 TLS ABI keeps its own value at %fs:0. */
static inline char *apiprof_tp(void)
{
	char *p;

	__asm__("mov %%fs:0, %0" : "=r"(p));
	return p;
}

/* True once the per-thread state has a home; nothing touches it before.
 * Not instrumented by ASan: it is the first thing the hooks ask, and ASan's
 * own start-up calls dlsym (apiprof_dl.c) before its shadow memory exists. */
__attribute__((no_sanitize_address)) static inline bool apiprof_tls_ok(void)
{
	return apiprof_load_acquire(&apiprof_tls_state) > 0;
}

/* The calling thread's block; only when apiprof_tls_ok(). */
static inline struct apiprof_tls_block *apiprof_tls_block(void)
{
	return (struct apiprof_tls_block *)(apiprof_tp() + apiprof_tls_off);
}

static inline struct apiprof_tls *apiprof_tls_self(void)
{
	return &apiprof_tls_block()->hot;
}

/* --- the out-of-line hot path (apiprof_slow.c) ------------------------ */
APIPROF_HIDDEN void apiprof_sample_draw(struct apiprof_tls *t);
/* Ends the call in progress of api id on this thread, which a jump has
 * abandoned: counted in row `row` with no time (not counted when the row
 * is UINT32_MAX, or not the api's), the frame word idle again.  Returns
 * the call it was made in (what the thread's `cur` goes back to when it
 * was the outermost call abandoned), 0 when it is not known. */
APIPROF_HIDDEN uint64_t apiprof_abandon(struct apiprof_tls *t, uint32_t id, uint32_t row);
APIPROF_HIDDEN void apiprof_cur_after_abandon(struct apiprof_tls *t, uint64_t parent);
/* An unwinding that leaves calls in progress behind (a longjmp, a C++
 * exception): which frames it leaves, and the row each abandoned call
 * counts in (UINT32_MAX: not counted); ctx is the unwinder's own. */
struct apiprof_unwinding {
	bool (*left)(const struct apiprof_unwinding *u, uintptr_t frame);
	uint32_t (*row)(const struct apiprof_unwinding *u, struct apiprof_tls *t, uint32_t id,
	                uintptr_t frame);
	uintptr_t from, to; /* the stack pointers it goes from and to */
	void *ctx;
};
/* Ends every call of this thread that u leaves (apiprof_abandon); the
 * thread's innermost call becomes the one the outermost of them (the
 * highest frame: stacks grow down) was made in.  Under the busy guard. */
APIPROF_HIDDEN void apiprof_abandon_unwound(struct apiprof_tls *t,
                                            const struct apiprof_unwinding *u);
/* The row of the call in progress of api id, when it was entered out of
 * line, else UINT32_MAX. */
APIPROF_HIDDEN uint32_t apiprof_slow_row(struct apiprof_tls *t, uint32_t id);
/* Whether this thread runs on its alternate signal stack while the stack
 * address `frame` lies off it (a system call, errno kept). */
APIPROF_HIDDEN bool apiprof_handler_off_frame(uintptr_t frame);

/* --- the runtime's own interposers (apiprof_hooks.c) ------------------- */
/* The definition of name that follows the runtime's (dlsym(RTLD_NEXT)),
 * looked up with the thread busy, so that nothing the lookup calls is
 * counted.  Every hook of the runtime finds its real function this way. */
APIPROF_HIDDEN void *apiprof_hook_next(const char *name);
APIPROF_HIDDEN void apiprof_hook_store(void *slot, void *p);
/* Registers the image's end at quick_exit(); from the constructor. */
APIPROF_HIDDEN void apiprof_hooks_init(void);

/* Resolves the real function into slot once; returns it or NULL. */
#define APIPROF_REAL(slot, name)                                                                   \
	(apiprof_read_once(&(slot))                                                                \
	         ? (slot)                                                                          \
	         : (apiprof_hook_store(&(slot), apiprof_hook_next(name)), (slot)))

/* --- lifecycle (apiprof_init.c) --------------------------------------- */
APIPROF_HIDDEN bool apiprof_ready(void);
APIPROF_HIDDEN extern int apiprof_init_done;

/* True once the runtime has started; unlike apiprof_ready, never starts
 * it.  Pairs with the release store at the end of start-up. */
static inline bool apiprof_started(void)
{
	return apiprof_load_acquire(&apiprof_init_done) != 0;
}
enum apiprof_end { APIPROF_END_EXIT, APIPROF_END_EXEC };
APIPROF_HIDDEN uint64_t apiprof_finish(enum apiprof_end how);
/* The thread whose exit() (the runtime's destructor) ends the image, 0
 * if none: its exit JSON may load libdw to name call sites
 * (apiprof_addr.c); another thread's end at the same time (a signal,
 * _exit) may not. */
APIPROF_HIDDEN extern uint32_t apiprof_end_by_exit;
APIPROF_HIDDEN void apiprof_resume(uint64_t busy);
APIPROF_HIDDEN uint32_t apiprof_gettid(void);

/* --- fatal signals (apiprof_signal.c) --------------------------------- */
/* Catches SIGTERM, SIGINT, SIGHUP and SIGQUIT left at their default, so a
 * program they kill still writes its outputs; from the constructor. */
APIPROF_HIDDEN void apiprof_signal_init(void);
/* Blocks every signal but a fault's and glibc's own on this thread while
 * the runtime starts (returns the mask to restore), so that a handler's
 * calls never find start-up's busy guard: they come after. */
APIPROF_HIDDEN uint64_t apiprof_signal_hold(void);
APIPROF_HIDDEN void apiprof_signal_release(uint64_t old);
/* The end of the image happens once: apiprof_finish claims it (false: it
 * is some other thread's), marks it done, and a failed exec reopens it. */
APIPROF_HIDDEN bool apiprof_end_claim(void);
APIPROF_HIDDEN void apiprof_end_done(void);
APIPROF_HIDDEN void apiprof_end_reopen(void);
APIPROF_HIDDEN void apiprof_end_after_fork(void);

/* Marks this thread as running runtime code, so that whatever the runtime
 * calls (malloc, write, mmap ...) passes straight through any shim.  Nests:
 * leave() restores what enter() found. */
static inline uint64_t apiprof_busy_enter(void)
{
	if (!apiprof_tls_ok())
		return APIPROF_GUARD_BUSY; /* nothing is counted anyway */
	struct apiprof_tls *t = apiprof_tls_self();
	uint64_t old = t->guard & APIPROF_GUARD_BUSY;
	t->guard |= APIPROF_GUARD_BUSY;
	return old;
}

static inline void apiprof_busy_leave(uint64_t old)
{
	if (!old)
		apiprof_tls_self()->guard &= ~APIPROF_GUARD_BUSY;
}

/* True when this thread's calls are not the program's to count. */
static inline bool apiprof_busy(void)
{
	return !apiprof_tls_ok() || (apiprof_tls_self()->guard & APIPROF_GUARD_BUSY);
}

#endif /* APIPROF_INTERNAL_H */
