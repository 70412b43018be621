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

#define TOP_COMM_LEN   (APIPROF_COMM_MAX + 1)
#define TOP_API_LEN    (APIPROF_API_NAME_MAX + 1)
#define TOP_NAME_LEN   (APIPROF_NAME_MAX + 1)
#define TOP_MAX_CELLS  65536u /* (thread, function) pairs kept per process */
#define TOP_FOLDED_TID 0u

/* Cumulative statistics of one (thread, function), as in a ring record. */
struct top_stat {
	uint64_t calls;
	uint64_t ticks; /* time of the timed calls only */
	uint64_t timed;
	uint64_t min; /* UINT64_MAX: no timed call yet */
	uint64_t max;
	uint64_t hist[APIPROF_HIST_BUCKETS];
};

/* One record copied out of the ring, already validated. */
struct top_snap {
	uint32_t tid;
	uint32_t func;
	uint32_t flags;
	char comm[TOP_COMM_LEN];
	uint64_t tick;
	struct top_stat st;
};

struct top_func {
	char api[TOP_API_LEN];
	char name[TOP_NAME_LEN];
	uint32_t flags;
};

struct top_cell {
	uint32_t tid;
	uint32_t func;
	uint32_t flags;
	char comm[TOP_COMM_LEN];
	uint64_t tick;
	struct top_stat cur;  /* latest snapshot */
	struct top_stat last; /* cur at the previous refresh */
	struct top_stat iv;   /* cur - last, computed at the latest refresh */
	struct top_stat base; /* cur when the user last reset */
};

enum top_state { TOP_RUNNING = 0, TOP_ENDED, TOP_STALE };

struct top_proc {
	int pid;
	uint64_t starttime;
	char comm[TOP_COMM_LEN];
	uint32_t mode;
	uint32_t sample;
	uint32_t clock;
	uint32_t interval_ms;
	uint64_t tick_hz;
	uint64_t start_realtime_ns;
	enum top_state state;
	bool no_ring;      /* the runtime could not give the ring its pages: no numbers */
	uint64_t dropped;  /* producer side, from the header */
	uint64_t lost;     /* reader side: slots overwritten or in flight */
	uint64_t overflow; /* snapshots ignored because TOP_MAX_CELLS was reached */

	struct top_func *funcs;
	uint32_t nfuncs;
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

/* Sort keys, in the order the UI cycles through them. */
enum top_col {
	TOP_COL_TID = 0,
	TOP_COL_THREAD,
	TOP_COL_API,
	TOP_COL_FUNC,
	TOP_COL_CALLS_IV,
	TOP_COL_TIME_IV,
	TOP_COL_AVG,
	TOP_COL_P50,
	TOP_COL_P99,
	TOP_COL_MAX,
	TOP_COL_CALLS,
	TOP_COL_COUNT
};

struct top_view {
	bool aggregate; /* one row per function, summed over threads */
	enum top_col sort;
	bool reverse;       /* invert the column's natural order */
	const char *filter; /* substring of api, function or thread; NULL = all */
};

/* One displayed line.  Times in ns; negative means "not available". */
struct top_row {
	uint32_t tid;
	const char *thread;
	const char *api;
	const char *func;
	uint32_t fflags;
	uint64_t calls;      /* cumulative since the process started */
	uint64_t calls_iv;   /* in the latest interval */
	uint64_t calls_base; /* since the last reset */
	double total_ns;     /* cumulative */
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
};

void top_proc_init(struct top_proc *p, int pid, uint64_t starttime);
void top_proc_free(struct top_proc *p);
int top_proc_set_funcs(struct top_proc *p, const struct top_func *f, uint32_t n);
/* The tick of the snapshot the model holds for (tid, func), 0 if none. */
uint64_t top_proc_cell_tick(const struct top_proc *p, uint32_t tid, uint32_t func);
int top_proc_snap(struct top_proc *p, const struct top_snap *s);
void top_proc_refresh(struct top_proc *p, uint64_t mono_ns, uint64_t real_ns);
void top_proc_reset(struct top_proc *p);
bool top_proc_expired(const struct top_proc *p, uint64_t mono_ns, uint64_t linger_ns);
const char *top_state_name(enum top_state s);
/* What a process's title adds when its runtime has no ring: "" or a note
 * starting with two spaces. */
const char *top_ring_note(const struct top_proc *p);

double top_ticks_ns(double ticks, uint64_t hz);
double top_hist_quantile(const uint64_t *hist, double q, uint64_t min, uint64_t max);

size_t top_rows_build(const struct top_proc *p, const struct top_view *v, struct top_row **out);
void top_rows_sort(struct top_row *rows, size_t n, enum top_col col, bool reverse);
bool top_row_match(const struct top_row *r, const char *filter);
const char *top_col_name(enum top_col c);

#endif /* TOP_MODEL_H */
