/* SPDX-License-Identifier: MIT */
/* apiprof_stats.h - the stats room's declarations (apis, tables, call
 * sites, threads, wrappers, the out-of-line hot path); part of
 * apiprof_internal.h. */
#ifndef APIPROF_STATS_H
#define APIPROF_STATS_H

#include <cpuid.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apiprof_life.h"

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
APIPROF_HIDDEN bool apiprof_sites_read_srec(struct apiprof_rec_sites *dst, struct apiprof_tab *tab,
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
APIPROF_HIDDEN void apiprof_sites_read_qrec(struct apiprof_rec_siteq *dst, struct apiprof_tab *tab,
                                            uint32_t i, const struct apiprof_rec_sites *sites,
                                            uint64_t *scratch);
/* The key of the run in progress of the row whose call is parent (a node
 * of this thread's call tree, a run key's parent part: the row of the
 * node's function, apiprof_cct.c), 0 if none. */
APIPROF_HIDDEN uint64_t apiprof_parent_run_key(uint32_t parent);

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
	/* An api sampled other than the process (APIPROF_GATE_OWN): the N its
	 * countdown was drawn with and the calls left up to and including
	 * its next timed one (apiprof_slow.c's own_due).  The owner's only. */
	uint32_t own_n[APIPROF_MAX_APIS];
	uint32_t own_left[APIPROF_MAX_APIS];
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

#endif /* APIPROF_STATS_H */
