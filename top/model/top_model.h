/* SPDX-License-Identifier: MIT */
/*
 * top_model.h - apiprof-top's view of the profiled processes.
 *
 * Pure data and arithmetic: the reader (top_shm.c) feeds validated,
 * sanitized snapshots in; the printers and the UI take rows out.  No I/O
 * here, so every number the viewer shows can be unit-tested.
 */
#ifndef TOP_MODEL_H
#define TOP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "apiprof_abi.h"
#include "apiprof_mode.h" /* struct apiprof_modeval */
#include "top_snap.h"     /* struct top_stat, top_snap, top_func */
#include "top_title.h"    /* TOP_TITLE_LEN */

#define TOP_MAX_CELLS  65536u /* (thread, function) pairs kept per process */
#define TOP_FOLDED_TID 0u

/* Whether a cell's self time is known: its thread's tree is there, every
 * node of it on a path held, and no call of it "not recorded" (made
 * inside a call the bounded tree had no node for, whose function's time
 * then has children no node shows).  Cells summed take the larger. */
enum top_self { TOP_SELF_NONE = 0, TOP_SELF_KNOWN, TOP_SELF_UNKNOWN };

struct top_cell {
	uint32_t tid;
	uint32_t func;
	uint32_t flags;
	char comm[TOP_COMM_LEN];
	uint64_t tick;
	uint64_t acct_tick;  /* of the latest APIPROF_REC_ACCT record, in cur.acct */
	uint64_t sites_tick; /* of the latest APIPROF_REC_SITES record, in sites */
	struct top_sites sites;
	uint64_t siteq_tick; /* of the latest APIPROF_REC_SITEQ record, in siteq */
	struct top_siteq siteq;
	struct top_sites sites_last;          /* sites at the previous refresh */
	uint64_t sites_iv[APIPROF_SITES + 1]; /* sites[k]'s calls in the interval */
	/* Since the start: the time of the calls made inside this thread's
	 * calls of the function (the children of its nodes in the thread's
	 * calling-context tree, and their other paths), summed at each
	 * refresh (top_calls_tree.c), and whether that makes its self time
	 * known. */
	double child_ns;
	enum top_self self;
	struct top_stat cur;     /* latest snapshot */
	struct top_stat last;    /* cur at the previous refresh */
	struct top_stat iv;      /* cur - last, computed at the latest refresh */
	struct top_stat base;    /* cur when the user last reset */
	uint64_t inflight_since; /* flags has APIPROF_REC_INFLIGHT: the call in progress began then
	                          */
	/* The call in progress (top_inflight.c): how long it had run at its
	 * latest snapshot (-1: none), the ticks of it accounted for in the
	 * intervals so far, those of them not charged yet (an interval gets
	 * at most its wall time), and what the latest interval's charge
	 * changed (negative once the call is over and its time is in the
	 * statistics). */
	double inflight_ns;
	uint64_t inflight_charged;
	double inflight_carry;
	double inflight_iv_ns;
};

enum top_state { TOP_RUNNING = 0, TOP_ENDED, TOP_STALE };

/* A mode as the segment shows it (issue 37), validated by
 * apiprof_mode_shown: known false for a word that is not a mode (shown
 * "?", never guessed); an api's level NONE: the process's. */
struct top_mode {
	struct apiprof_modeval v;
	bool known;
};

struct top_proc {
	int pid;
	uint64_t starttime;
	char comm[TOP_COMM_LEN];
	char title[TOP_TITLE_LEN]; /* its command line as it rewrote it; "" unknown */
	int ppid;                  /* its parent as the viewer's /proc shows it; 0 unknown */
	uint32_t mode;             /* enum apiprof_proc_mode: shim or dyn */
	struct top_mode steer;     /* the process's mode: off, count, ... */
	struct top_mode api_steer[APIPROF_SHM_APIS]; /* api id k's own at [k] */
	uint32_t sample;
	bool untimed; /* APIPROF_SHM_UNTIMED: some calls counted and not timed */
	uint32_t clock;
	uint32_t interval_ms;
	uint64_t tick_hz;
	uint64_t tick0;    /* the clock's tick at mono0_ns: where the process's ticks start */
	uint64_t mono0_ns; /* CLOCK_MONOTONIC at the runtime's start */
	uint64_t start_realtime_ns;
	enum top_state state;
	bool no_ring; /* the runtime could not give the ring its pages: no numbers */
	/* The process did not answer the first look's request for a flush in
	 * time (top_watch.c): what it did just before may be missing. */
	bool unflushed;
	uint64_t dropped;  /* producer side, from the header */
	uint64_t lost;     /* reader side: slots overwritten or in flight */
	uint64_t overflow; /* snapshots ignored because TOP_MAX_CELLS was reached */

	struct top_func *funcs;
	uint32_t nfuncs;
	struct top_tree *trees; /* per thread (top_tree.c) */
	size_t ntrees;
	struct top_cell *cells; /* in order of appearance */
	size_t ncells;
	size_t capcells;
	uint32_t *index; /* open addressing on (tid, func): cell index + 1, 0 = empty */
	size_t capindex; /* a power of two, at least twice ncells */

	bool refreshed;         /* at least one refresh done */
	uint64_t last_mono_ns;  /* viewer clock at the previous refresh */
	uint64_t iv_wall_ns;    /* wall time covered by the cells' iv */
	uint64_t ended_mono_ns; /* viewer clock when the end was noticed */
};

/* The row's values, in the order they are displayed; top_cols.c says how
 * each is titled, sorted and printed. */
enum top_col {
	TOP_COL_TID = 0,
	TOP_COL_THREAD,
	TOP_COL_API,
	TOP_COL_FUNC,
	TOP_COL_CALLS_IV,
	TOP_COL_RATE,
	TOP_COL_TIME_IV,
	TOP_COL_PCT,
	TOP_COL_AVG,
	TOP_COL_P50,
	TOP_COL_P99,
	TOP_COL_MAX,
	TOP_COL_CALLS,
	TOP_COL_INSIDE,
	TOP_COL_SELF,
	/* Shown only when a row of the view declares bytes or failures. */
	TOP_COL_BYTES_RATE,
	TOP_COL_BYTES_P50,
	TOP_COL_FAIL_RATE,
	TOP_COL_ERRNO,
	TOP_COL_COUNT
};

/* Processes summed into one table per function (top_ptree.c). */
enum top_group { TOP_GROUP_NONE = 0, TOP_GROUP_TREE, TOP_GROUP_COMM, TOP_GROUP_COUNT };

struct top_view {
	bool aggregate; /* one row per function, summed over threads */
	enum top_group group;
	enum top_col sort;
	bool reverse;       /* invert the column's natural order */
	const char *filter; /* substring of api, function or thread; NULL = all */
	/* avg, p50, p99 and sizes since the start, not of the interval: the
	 * text table of -b, as APIPROF_SUMMARY has them (apiprof_stat.h) */
	bool since_start;
};

/* One displayed line.  Times in ns; negative means "not available". */
struct top_row {
	uint32_t tid;
	const char *thread;
	const char *api;
	const char *func;
	uint32_t fflags;
	uint32_t fidx;       /* the function's index in the process's table */
	uint64_t calls;      /* cumulative since the process started */
	uint64_t calls_iv;   /* in the latest interval */
	uint64_t calls_base; /* since the last reset */
	double total_ns;     /* cumulative */
	/* total_ns minus the time of the profiled calls made inside (of
	 * other apis), cumulative, from the call tree; -1: not known (no
	 * tree, or calls not recorded in it: enum top_self) */
	double self_ns;
	double iv_ns;
	double base_ns;
	double rate; /* calls per second in the interval */
	double pct;  /* iv_ns as a share of the interval's wall time, % */
	double avg_ns;
	double p50_ns;
	double p99_ns;
	double max_ns;
	double min_ns;
	bool estimated; /* sampled timing: time figures are extrapolated */
	/* A call of the function in progress (the longest, summed over
	 * threads): how long it has run, -1 for none; inflight_bound when that is
	 * only a lower bound (the call's start is not known). */
	double inflight_ns;
	bool inflight_bound;
	/* What the function declares (fflags & APIPROF_FUNC_ACCT), else 0. */
	uint64_t bytes;    /* cumulative */
	double bytes_rate; /* bytes per second in the interval */
	double bytes_p50;  /* call sizes, in the interval (else since the reset); -1: none */
	double bytes_p99;
	uint64_t failures; /* cumulative */
	double fail_rate;  /* failed calls per second in the interval */
	int top_errno; /* the commonest errno slot in the interval (else since the reset), -1: none
	                */
	uint64_t errnos[APIPROF_ERRNO_SLOTS]; /* cumulative, by slot */
};

/* Whether p's times are estimates from its timed calls: it samples, or
 * some of its calls were counted and not timed (count mode). */
static inline bool top_proc_estimates(const struct top_proc *p)
{
	return p->sample > 1 || p->untimed;
}

void top_proc_init(struct top_proc *p, int pid, uint64_t starttime);
void top_proc_free(struct top_proc *p);
int top_proc_set_funcs(struct top_proc *p, const struct top_func *f, uint32_t n);
/* The tick of the snapshot the model holds for (tid, func), 0 if none. */
uint64_t top_proc_cell_tick(const struct top_proc *p, uint32_t tid, uint32_t func);
int top_proc_snap(struct top_proc *p, const struct top_snap *s);
/* A snapshot the reader found: kept (top_proc_snap) only when newer than
 * the one held for its (thread, function), where none counts as tick 0.
 * 1 when kept, 0 when superseded, -1 when TOP_MAX_CELLS is reached. */
int top_proc_offer(struct top_proc *p, const struct top_snap *s);
void top_proc_refresh(struct top_proc *p, uint64_t mono_ns, uint64_t real_ns);
void top_proc_reset(struct top_proc *p);
bool top_proc_expired(const struct top_proc *p, uint64_t mono_ns, uint64_t linger_ns);
const char *top_state_name(enum top_state s);
/* What a process's title adds when its runtime has no ring, or did not
 * answer the first look's request for a flush: "" or a note starting with
 * two spaces. */
const char *top_ring_note(const struct top_proc *p);
/* The process's time in its apis over the interval, as a share of the
 * interval's wall time, % (summed over threads: can exceed 100). */
double top_proc_share(const struct top_proc *p);

/* An api of a process: its name (in the function table), and whether its
 * library is loaded (not every function says APIPROF_FUNC_UNLOADED). */
struct top_api {
	const char *name;
	uint32_t nfuncs;
	bool loaded;
	uint32_t id; /* its functions' api_id (0: not known) */
};
/* The apis of p's function table, in order of first appearance, into *out
 * (malloc'ed); -1 when out of memory. */
int top_proc_apis(const struct top_proc *p, struct top_api **out);
/* What a process's title adds for the apis whose library was never
 * loaded: "" or "  zstd: library never loaded" and so on, cut to cap. */
void top_unloaded_note(const struct top_proc *p, char *buf, size_t cap);
/* The cell of (tid, func), made (all zero) when p has none; NULL when
 * TOP_MAX_CELLS is reached or out of memory.  For top_group_build. */
struct top_cell *top_proc_cell(struct top_proc *p, uint32_t tid, uint32_t func);
/* d += s: bytes, failures, the size histogram and errno counts (a cell
 * has them when its acct_tick is not 0).  For top_group_build too. */
void top_acct_add(struct top_acct *d, const struct top_acct *s);

double top_ticks_ns(double ticks, uint64_t hz);
/* The time of calls, timed of which took ticks, estimated as the
 * runtime's summary does when p samples (apiprof_stat.h), in ns. */
double top_proc_time_ns(const struct top_proc *p, uint64_t ticks, uint64_t calls, uint64_t timed);
/* For top_rows.c: a - b, or 0 when a counter went backwards; d = a - b
 * of a cell's statistics (min and max are a's); the time of s's calls. */
uint64_t top_sat_sub(uint64_t a, uint64_t b);
void top_stat_sub(struct top_stat *d, const struct top_stat *a, const struct top_stat *b,
                  bool acct);
double top_stat_time_ns(const struct top_proc *p, const struct top_stat *s);
/* In top_calls.c: each cell's calls by site in the interval, and (from
 * top_calls_tree.c) its child_ns and self from p's trees. */
void top_calls_refresh(struct top_proc *p);
void top_calls_tree_refresh(struct top_proc *p);
/* The cell of (tid, func), NULL when none. */
struct top_cell *top_proc_cell_find(const struct top_proc *p, uint32_t tid, uint32_t func);
/* p50 and p99 in ns of site k of c since the start, from the quantiles
 * of the same snapshot as its sites; false when they did not come. */
bool top_site_quantiles(const struct top_proc *p, const struct top_cell *c, uint32_t k, double *p50,
                        double *p99);
/* In top_inflight.c: the calls in progress of a cell at a refresh, as its
 * latest snapshot saw them, and what they add to the interval. */
void top_inflight_refresh(const struct top_proc *p, struct top_cell *c);

size_t top_rows_build(const struct top_proc *p, const struct top_view *v, struct top_row **out);
/* In top_sort.c: by the column's natural order (top_cols.c), inverted on
 * request, ties by api, function, tid. */
void top_rows_sort(struct top_row *rows, size_t n, enum top_col col, bool reverse);
bool top_row_match(const struct top_row *r, const char *filter);

#endif /* TOP_MODEL_H */
