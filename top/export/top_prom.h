/* SPDX-License-Identifier: MIT */
/*
 * top_prom.h - the exporter's series: the watched processes' numbers
 * summed under Prometheus label sets (docs/FLEET.md names them).
 *
 * By default the series of all processes of one command (comm) are summed,
 * and the sums stay monotonic: a process that ends leaves its final totals
 * in its command's series for the exporter's lifetime.  --per-process adds
 * pid and title, --per-thread tid and thread: such series last as long as
 * the viewer shows their process.  Every exported counter is the largest
 * value it has had, so a reader never sees one go down (a TSC tick rate
 * estimated anew at each flush moves converted times a little).
 *
 * Reads the model (top_watch.h) after each refresh; knows nothing of HTTP
 * or files (top_prom_text.c writes the text, top_export.c serves it).
 */
#ifndef TOP_PROM_H
#define TOP_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top_title.h"
#include "top_watch.h"

/* le = 2^k ns for k below this; later durations are only in +Inf. */
#define TOP_PROM_LE 64

/* The figures of one series. */
struct top_prom_acc {
	uint64_t calls;
	double time_ns[2]; /* [1]: the estimate of sampled processes */
	uint64_t count;    /* timed calls: the histogram's */
	double sum_ns;
	uint64_t le[TOP_PROM_LE]; /* timed calls by le = 2^k ns, not cumulative */
	/* A function whose spec declares them (APIPROF_FUNC_ACCT): bytes
	 * moved, failed calls, and those by errno slot (apiprof_abi.h). */
	uint64_t bytes;
	uint64_t failures;
	uint64_t errnos[APIPROF_ERRNO_SLOTS];
};

/* A (command, api, function) series, or finer with --per-process/thread. */
struct top_prom_series {
	char *labels;                 /* the label set as exported, without braces: the key */
	struct top_prom_acc live;     /* the running processes' now */
	struct top_prom_acc *retired; /* ended processes' final totals; NULL: none */
	struct top_prom_acc shown;    /* exported: le[] cumulative, each the max so far */
	bool timed[2];                /* which time series it has had */
	uint64_t used;                /* the le buckets it has exported */
	uint32_t errnos_used;         /* the errno slots it has exported */
	uint32_t fflags;              /* the function's APIPROF_FUNC_ACCT flags */
	uint64_t gen;                 /* the update that last saw it */
	uint32_t uid;                 /* the user whose process made it: its budget */
};

/* A command: its running processes and the records they dropped. */
struct top_prom_cmd {
	char *labels;
	uint32_t running;
	uint64_t dropped_live, dropped_retired, dropped_shown;
	uint64_t gen;
};

/* A watched process, as the exporter remembers it (key: segment name). */
struct top_prom_proc {
	char *name;
	bool running;
	bool retired; /* its final totals are in the series' retired parts */
	int pid;
	char comm[TOP_COMM_LEN];
	char title[TOP_TITLE_LEN]; /* top_proc's */
	char mode[16];
	const char *clock;
	uint64_t gen;
};

/* The series a user's processes made, against the per-user budget. */
struct top_prom_user {
	uint32_t uid;
	size_t nseries;
	bool full_said; /* refused a series (said once) */
};

/* Bounds of the series: all users', and one user's. */
#define TOP_PROM_MAX_SERIES   65536u
#define TOP_PROM_MAX_PER_USER 16384u

struct top_prom {
	bool per_process;
	bool per_thread;
	void *series; /* tsearch trees, ordered by key */
	void *cmds;
	void *procs;
	size_t nseries;
	size_t max_series, max_per_user; /* TOP_PROM_MAX_SERIES, _PER_USER */
	size_t *pool; /* the series of all tables sharing max_series; NULL: nseries */
	struct top_prom_user *users;
	size_t nusers;
	bool only; /* only the processes of uid (a scraper's view) */
	uint32_t uid;
	uint64_t gen;
};

void top_prom_init(struct top_prom *x, bool per_process, bool per_thread);
void top_prom_free(struct top_prom *x);
/* Takes in the model after a top_watch_refresh.  0, or -1 out of memory
 * (the message printed; what was taken in stays).  A new series past a
 * budget (all users' or its user's) first evicts the oldest series of
 * ended processes only (of that user when it is its budget); when there
 * are none, it is left out (said once per user). */
int top_prom_update(struct top_prom *x, const struct top_watch *w);

/* Visits the records of one table (x->series, x->cmds or x->procs) in
 * the order of their keys. */
void top_prom_each(const void *table, void (*fn)(const void *rec, void *ctx), void *ctx);

/* The le index k (le = 2^k ns) that bounds every duration of tick bucket
 * b ([2^b, 2^(b+1)) ticks) at hz ticks per second; TOP_PROM_LE when
 * beyond the last or hz is unknown. */
int top_prom_le_of(int b, uint64_t hz);

/* Writes a label value of the exposition format into buf (cap bytes):
 * '\' and '"' escaped, bytes outside printable ASCII as '?'. */
void top_prom_escape(char *buf, size_t cap, const char *v);

#endif /* TOP_PROM_H */
