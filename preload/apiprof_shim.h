/* SPDX-License-Identifier: MIT */
/*
 * apiprof_shim.h - what a generated shim needs from the runtime.
 *
 * A generated shim defines one `struct apiprof_api` for its spec and, for
 * each function, an exported wrapper shaped like this:
 *
 *	RET fn(ARGS)
 *	{
 *		struct apiprof_call c;
 *		unsigned route = apiprof_enter(&api, &c, IDX, apiprof_caller());
 *		if (apiprof_likely(route == APIPROF_CALL_TIMED)) {
 *			apiprof_start(&api, &c, IDX);    // the clock, after every branch
 *			RET r = real_fn(ARGS);
 *			apiprof_leave(&api, &c, IDX);    // no libc call: errno untouched
 *			return r;
 *		}
 *		if (apiprof_likely(route == APIPROF_CALL_COUNTED)) {
 *			RET r = real_fn(ARGS);           // sampled mode between timed calls
 *			apiprof_leave_counted(&api, &c, IDX);
 *			return r;
 *		}
 *		if (real_fn != NULL && apiprof_nested(&api))
 *			return real_fn(ARGS);            // nested, not counted: a tail jump
 *		return slow_fn(ARGS, apiprof_sp(), apiprof_caller()); // the rest, out of line
 *	}
 *
 * where slow_fn, a static function of the shim, does the same with
 * apiprof_enter_slow and apiprof_leave_other.  A function whose spec
 * declares "bytes" or "fails" calls apiprof_enter_acct and the _acct
 * forms of the apiprof_leave* functions (apiprof_acct_after out of line);
 * the others' wrappers are exactly as above.  The timed path and sampled
 * mode's untimed calls are inline here and touch only the calling
 * thread's own memory: no lock, no syscall, no allocation, no atomic
 * read-modify-write.
 *
 * Every timed call is also the thread's innermost call while it runs
 * (struct apiprof_tls's `cur`), the parent of the profiled calls of other
 * apis made inside it: the call tree.  And a timed call's site (its return
 * address) and parent make a key that the way in compares with the row's
 * run of calls (apiprof_sites.c): the same key costs nothing more, another
 * sends the call out of line, where the run that ends is added to its
 * site's entry.  Sampled mode's untimed calls touch neither, so `cur` is
 * not kept in that mode: its timed calls are timed inline only when the
 * thread has no call in progress, and have no parent then
 * (apiprof_enter_due); the others go out of line, where they find their
 * parent from the frame words (apiprof_slow.c), as one in 64 can afford
 * to.
 *
 * One thing only that the wrapper works out on the way in is kept across
 * the real call: the offset of the thread's slot for the api, in a saved
 * register (not by a declaring function's, apiprof_enter_acct says why).
 * Loading it again from the api on the way out, as the way out of a timed
 * call does everything else (even the first timestamp and the parent,
 * which the way in stores in the row, where the runtime reads how long a
 * call in progress has run), cost sampled mode's untimed call about 0.9
 * ns of its 3 to 5.  The first call of an api on a thread goes out of
 * line (apiprof_thread_attach), which registers the thread and allocates
 * its table; so do calls from a new site and the monotonic clock
 * (apiprof_slow.c).  A call nested in one of its api leaves the fast path
 * too, but the wrapper forwards it itself with a tail jump
 * (apiprof_nested), so that it holds no frame across the real call.
 *
 * The per-thread state is reached through the thread pointer (%fs) and an
 * offset the runtime publishes in the api when it registers it, not through
 * a TLS symbol: a shim then has no TLS of its own, and loads even where no
 * static TLS is left (see apiprof_tls.c).
 */
#ifndef APIPROF_SHIM_H
#define APIPROF_SHIM_H

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#include "apiprof_abi.h"

/* api ids are 1..61 */
#define APIPROF_MAX_APIS 62
/* The bits of a thread's guard word.  A call stays on the full-timing
 * fast path only while the word is 0, which one compare with an
 * immediate tells. */
#define APIPROF_GUARD_BUSY 1ull /* the runtime runs on this thread: forward */
/* Sampled mode: the fast path's compare fails, and the wrapper takes
 * sampled mode's own inline path, which compares with this value. */
#define APIPROF_GUARD_SAMPLE 2ull
/* The thread's calls are not TSC-timed (the monotonic clock): every call
 * then goes out of line, and the fast path never looks at the clock. */
#define APIPROF_GUARD_SLOW 4ull

/* A thread's frame word for an api (struct apiprof_tls_api) when it has
 * its table and is not inside a call of the api.  0 means no table yet,
 * anything else the stack address of the outermost call in progress. */
#define APIPROF_FRAME_IDLE 1u
/* Set in a frame word by the out-of-line way in (apiprof_slow.c), which
 * then keeps the call's row where the runtime can find it: stack
 * addresses are 8-byte aligned, so the inline way in never sets it. */
#define APIPROF_FRAME_SLOW 4u
#define APIPROF_FRAME_TAGS 7u

#define APIPROF_EXPORT __attribute__((visibility("default")))
/* A generated wrapper: exported, and in the shim's one section of
 * wrappers, whose end the linker gives (__stop_apiprof_wrappers): each
 * wrapper's code then runs from its entry to the next wrapper's, or to the
 * section's end, with no symbol table read (apiprof_wrappers.c).  Only
 * the wrappers go there, not their out-of-line halves. */
#define APIPROF_WRAPPER     APIPROF_EXPORT __attribute__((section("apiprof_wrappers")))
#define apiprof_likely(x)   __builtin_expect(!!(x), 1)
#define apiprof_unlikely(x) __builtin_expect(!!(x), 0)

/* Per thread, per function statistics, as a reader sees them (a copy made
 * by apiprof_tab_read).  In memory a table is laid out differently, for
 * the hot path (struct apiprof_tab). */
struct apiprof_fstat {
	uint64_t calls;
	uint64_t ticks;
	uint64_t min_ticks; /* UINT64_MAX until the first timed call */
	uint64_t max_ticks;
	uint64_t timed; /* the sum of hist */
	uint64_t hist[APIPROF_HIST_BUCKETS];
	/* A row with APIPROF_FUNC_ACCT flags (acct true): bytes and failures. */
	_Bool acct;
	uint64_t bytes;
	uint64_t failures;
	uint64_t size_hist[APIPROF_HIST_BUCKETS];
	uint64_t errnos[APIPROF_ERRNO_SLOTS];
};

/* Every statistics table (a thread's for one api, or an api's folded
 * totals) keeps the call counts of all its functions side by side, and the
 * rest of each function's numbers (struct apiprof_row) before them:
 *
 *	[row n-1] ... [row 1] [row 0]   [sink due calls[0] calls[1] ...]
 *	                                 ^ struct apiprof_tab, 64-byte aligned
 *
 * A counted call (sampled mode) then touches one word of a line it shares
 * with the counts of the api's other functions, instead of a line of its
 * own; that line also holds `due`, which a timed call writes anyway.  Only
 * the owning thread writes a table; the runtime reads it with relaxed
 * loads, which is why the writer uses relaxed stores (plain movs on
 * x86-64, no lock prefix) instead of plain assignments: the values are
 * never torn and the program is free of data races in the C11 sense.
 *
 * `due` is the histogram bucket of the thread's latest timed call, which
 * is counted only on the next one (see apiprof_hist_defer): a word offset
 * from `sink`, into a cold row's hist or one of its sites' (struct
 * apiprof_row's hist_off), and 0 (the sink) when none is pending.
 * Readers add the pending bucket themselves. */
struct apiprof_tab {
	uint64_t sink;
	int64_t due;
	struct apiprof_sites *sites; /* row i's call sites: sites[i] (out of line) */
	/* The call tree: the thread's innermost call (struct apiprof_tls's
	 * `cur`) as the api's call in progress found it, put back by its way
	 * out.  One word per thread and api does: a call made inside another
	 * of its api is nested, and neither pushes nor pops. */
	uint64_t parent;
	/* What apiprof_hist_bucket_lz xors its LZCNT result with: set for the
	 * CPU when the table is made, then only read. */
	uint64_t hist_xor;
	uint64_t calls[];
};

/* The sizes and errno values of a row that declares "bytes", "fails" or
 * "errno" (APIPROF_FUNC_ACCT): allocated with the table, after its counts,
 * for those rows only, so the others are no bigger (apiprof_tab.c). */
struct apiprof_acct {
	uint64_t bytes;                           /* sizes of the calls that did not fail */
	uint64_t failures;                        /* calls that failed */
	uint64_t size_hist[APIPROF_HIST_BUCKETS]; /* log2 buckets, as hist */
	uint64_t errnos[APIPROF_ERRNO_SLOTS];     /* failed calls by errno slot */
};

/* A row's calls by call site (see APIPROF_SITES in apiprof_abi.h), kept
 * run by run: the inline way in only compares the site of a call with
 * the row's `last`, the site of the run of calls in progress, and comes
 * out of line (apiprof_site_switch) when it differs, to add the run that
 * ends to its entry.  A run's figures are the row's since the run began
 * (the marks), so a call of the same site as the one before adds nothing.
 *
 * The run before it is kept aside, parked: its key, node, histogram and
 * entry, and its figures so far, which are in neither its entry nor its
 * node yet.  A call of the parked key (callers that take turns, as an
 * interpreter's malloc's do) is timed inline where it is, without a swap
 * (APIPROF_CALL_PARKED): its node is the parked one, its bucket goes to
 * the parked histogram, and its way out adds its figures to the parked
 * run's and to the marks alike, so that the run in progress keeps its
 * own, between an odd and an even gen (apiprof_leave_parked).  Any other
 * key comes out of line, where the parked run is added to its entry and
 * node and the run that ends is parked in its place.  Full timing only:
 * in sampled mode nothing is parked (park_key 0, which no key is).
 *
 * Only the owner writes it; a reader copies it between two equal even
 * values of gen (apiprof_sites.c has both halves).  In full timing a
 * run's timed calls are its calls, and mark_timed is not kept. */
struct apiprof_site_tbl; /* apiprof_sites.c: the entries, from the arena */
struct apiprof_sites {
	uint64_t gen;                    /* odd while the owner writes */
	uint64_t mark_calls, mark_ticks; /* the row's when the run began */
	/* The parked run: its key (0: none), its figures since it began
	 * (in full timing its timed calls are its calls), its node (as
	 * struct apiprof_row's self) and its histogram (as hist_off, never
	 * 0: a parked call's way out counts through it), on the first line,
	 * which a parked call touches; then 1 + its entry (0: "(other
	 * callers)"). */
	uint64_t park_key, park_calls, park_ticks, park_self;
	int64_t park_hoff;
	uint64_t run; /* 1 + the entry of the run in progress, 0: none */
	uint64_t park_run;
	uint64_t mark_timed; /* sampled mode: the row's timed calls when the run began */
	/* An upper bound on the calls of any site that has no entry (the
	 * most calls an evicted entry counted with its error bound; in an
	 * api's folded totals, the sum of its threads'). */
	uint64_t floor;
	/* The row's entries, given on its first switch of site (NULL until
	 * then, or when the arena had no room: every call is then in
	 * "(other callers)"); set once (release), kept by resets. */
	struct apiprof_site_tbl *tbl;
	/* The start (struct apiprof_row's t0) of the parked run's latest
	 * call timed where it is: while the row's t0 is this, that call is
	 * the row's call in progress, which a jump or a throw that abandons
	 * it counts in the parked run (apiprof_sites_abandoned).  Kept by
	 * resets, as t0 is. */
	uint64_t park_t0;
	uint64_t reserved[2];
};

_Static_assert(sizeof(struct apiprof_sites) == 128, "a row's sites are two lines");

/* 9 cache lines: the times in the first, the histogram in the other 8.
 * What a call's way in keeps for its way out shares the times' line,
 * which a timed call writes anyway; acct is NULL unless the row declares
 * bytes or failures. */
struct apiprof_row {
	uint64_t ticks;
	uint64_t min_ticks; /* UINT64_MAX until the first timed call */
	uint64_t max_ticks;
	/* Where this row's timed calls count their duration's bucket: a word
	 * offset from its table's `sink` to a histogram's bucket 0, that of
	 * the site of the run in progress (struct apiprof_sites' hist), or
	 * the row's own hist below when it has none.  Set by the owner's
	 * switch of site (apiprof_sites.c), read by apiprof_hist_defer. */
	int64_t hist_off;
	uint64_t last;             /* the site key of the run in progress, 0: none yet */
	struct apiprof_acct *acct; /* set when the table is made, kept by resets */
	uint64_t self;             /* what `cur` says while its call runs: its run's tree node */
	/* The first timestamp of the row's latest timed call, stored as it
	 * starts (apiprof_start) and read back by its way out: a nested
	 * call never stores it (it goes out of line), and only this thread
	 * writes it.  The flusher tells from it how long a call in progress
	 * has run (apiprof_inflight.c); 0, from a shim older than this field,
	 * means "not known".  Zeroing a table keeps it (apiprof_tab_init). */
	uint64_t t0;
	uint64_t hist[APIPROF_HIST_BUCKETS];
};

#define APIPROF_WORDS_PER_ROW (sizeof(struct apiprof_row) / sizeof(uint64_t))
#define APIPROF_HIST_WORD0    (offsetof(struct apiprof_row, hist) / sizeof(uint64_t))

/* Row i: the i+1-th struct apiprof_row before the table's head. */
static inline struct apiprof_row *apiprof_tab_row(struct apiprof_tab *tab, uint32_t i)
{
	return (struct apiprof_row *)tab - (i + 1);
}

/* A thread's slot for one api (struct apiprof_tls says how it is used). */
struct apiprof_tls_api {
	struct apiprof_tab *tab; /* this thread's table */
	uintptr_t frame;         /* 0, APIPROF_FRAME_IDLE or a stack address (| SLOW) */
};

/* The per-thread hot state: at a fixed offset from the thread pointer in
 * every thread (static TLS), so one %fs-relative access reaches it.  The
 * runtime places it on a cache line of its own (apiprof_internal.h), and
 * the words every call touches come first: the guard word, the countdown,
 * and the slots of apis 1 and 2 share that line, so that a call of a
 * process's first two apis touches one line of TLS, not two. */
struct apiprof_tls {
	uint64_t guard; /* APIPROF_GUARD_*: busy and the thread's mode */
	/* Sampled mode: calls left up to and including the next timed one,
	 * which draws the one after it (apiprof_slow.c).  apiprof_enter
	 * decrements it first and looks at the result; 0 (UINT32_MAX once
	 * decremented) until the thread's first call, which only draws. */
	uint32_t countdown;
	uint32_t rng; /* sampled mode: xorshift32 state, 0 until first used */
	/* Only the outermost call of an api counts (a library function that
	 * calls another of its own api is one call), which the frame word
	 * tells: 0 before the thread has its table, APIPROF_FRAME_IDLE
	 * between calls, and the stack pointer of the outermost call while
	 * one is in progress.  Every call that finds it set goes out of line,
	 * where a call made while that one is in progress is nested in it,
	 * whatever stack it runs on (a signal handler's on an alternate
	 * stack too).  A frame that a longjmp left behind is never found:
	 * the runtime's longjmp hooks end that call as they jump
	 * (apiprof_jmp.c), and a C++ exception's catch ends the calls it
	 * abandons (apiprof_unwind.c); one that they did not see
	 * (setcontext) lies at or below the stack pointer of the next call on its stack,
	 * which takes its place (apiprof_slow.c).  So one compare with IDLE
	 * tells both "has a table" and "not nested", and entering and
	 * leaving are one store each. */
	/* api[0], which no api has, is the innermost call in progress of
	 * any api on the thread (a parent, APIPROF_SITES): the row's `self`
	 * while its outermost call runs, APIPROF_PARENT_NONE when none does,
	 * and 0 before the thread's first table.  On the first line, which
	 * every call reads. */
	union {
		struct apiprof_tls_api api[APIPROF_MAX_APIS];
		uint64_t cur;
	};
	uint16_t mode; /* APIPROF_MODE_*, this thread's copy, set on attach */
	/* The highest id of an api the thread has a table for, and sampled
	 * mode's span of draws (2N - 1): what a timed call of sampled mode
	 * reads on the inline way in (apiprof_enter_due), on a line no other
	 * call touches. */
	uint16_t apis;
	uint32_t span;
};

/* func_base before the api's registration: no reservation yet.  A shim
 * starts with it (gen_emit.c, preload/dyn), and the registration replaces
 * it once, by compare-and-swap (apiprof_register). */
#define APIPROF_FUNC_UNSET 0xffffffffu

/* One per symbol of an api (api->syms): what the runtime reads about
 * it, one row of one table, which a generated shim emits per function
 * (gen_emit.c).  Symbol i < nfuncs is row i's own: its display and
 * flags are the row's.  The ones after it are aliases (open64,
 * __read_chk) whose wrappers count into the row of the function they
 * alias. */
struct apiprof_sym {
	const char *symbol;  /* what is resolved (dlsym) */
	const char *version; /* its version, or NULL */
	const char *display; /* the row's name shown to the user */
	/* The linker name of its wrapper, and its wrapper's own address
	 * (not what its exported name may be bound to), whose code's extent
	 * the runtime looks up once (apiprof_wrappers.c): they tell the row
	 * of a call that a longjmp abandons (apiprof_jmp.c).  NULL in
	 * dynamic mode, which has no wrappers. */
	const char *wrapper;
	const void *entry;
	uint32_t row;   /* the row the wrapper counts into (an alias's is another's) */
	uint32_t flags; /* the row's APIPROF_FUNC_* */
};

/* One per generated shim (per spec).  Static storage in the shim; the
 * runtime fills in `func_base`, then `id`, when the api is first used:
 * func_base is APIPROF_FUNC_UNSET until then and set once, before the id,
 * so that a reader that sees the id sees it (apiprof_register). */
struct apiprof_api {
	uint32_t abi;                   /* APIPROF_SHIM_ABI of the generating header */
	uint32_t id;                    /* 0 until registered, then 1..61 */
	const char *name;               /* "api" of the spec */
	const char *library;            /* "library" of the spec */
	const char *spec;               /* path of the spec, for messages */
	uint32_t nfuncs;                /* statistics rows */
	uint32_t func_base;             /* index of function 0 in the process table */
	const struct apiprof_sym *syms; /* per symbol (nsyms) */
	uint32_t *missing_warned;       /* per symbol, 0 until the missing stub warned */
	/* Entry points resolved (0: as many as rows), the length of syms. */
	uint32_t nsyms;
	uint32_t reserved0;
	/* The end of the shim's section of wrappers (__stop_apiprof_wrappers),
	 * where the last of them in address order ends; NULL in dynamic mode. */
	const void *entries_end;
	/* Up to the line that starts with tls: a generated shim puts the
	 * pointers to its real functions right after the api (gen_emit.c), so
	 * that a call finds the first six of them on the line it reads tls
	 * and slot from. */
	uint64_t reserved[7];
	/* Filled in by the runtime with the id, for the hot path: the offset
	 * of the thread's struct apiprof_tls from the thread pointer, and that
	 * of its slot for this api (apiprof_tls.api[id]), so that the hot path
	 * adds nothing to either.
	 *
	 * Both 0 until registered, which is safe as it stands: offset 0 from
	 * the thread pointer is the TCB's pointer to itself (the x86-64 TLS
	 * ABI), which is neither 0 nor APIPROF_GUARD_SAMPLE as a guard word,
	 * so every call goes out of line.  slot is stored first and tls last
	 * (release), and the hot path loads tls first (acquire): a call that
	 * sees tls set sees slot too.  Every thread that attaches stores the
	 * same two values again before its first call goes on, so none of
	 * them waits on the one that registered the api. */
	uint64_t tls;
	uint64_t slot;
};

_Static_assert(offsetof(struct apiprof_api, tls) % 64 == 0, "tls starts a cache line");
_Static_assert(sizeof(struct apiprof_api) == offsetof(struct apiprof_api, tls) + 16,
               "what follows an api shares the line of tls and slot");

/* 24: one table of symbols (struct apiprof_sym); 23: a call of the parked
 * run timed in the wrapper without a swap (APIPROF_CALL_PARKED), park_t0;
 * 22: func_base starts APIPROF_FUNC_UNSET, set once (apiprof_register);
 * 21: the parked run (struct apiprof_sites, apiprof_unpark); 20: entries_end
 * (the wrappers' section); 19: sampled mode's timed calls inline (struct
 * apiprof_tls's apis and span); 18: the table's hist_xor (LZCNT buckets);
 * 17: sampled mode's untimed calls keep no `cur`; 16: per-site histograms
 * (hist_off); 15: the parent in the table */
#define APIPROF_SHIM_ABI 24u

/* How the hot path times calls.  0, the common case, is the TSC with every
 * call timed: the only case the inline fast path handles by itself. */
#define APIPROF_MODE_MONOTONIC 1u /* clock_gettime(CLOCK_MONOTONIC), a tick is 1 ns */
#define APIPROF_MODE_SAMPLE    2u /* time about one call in APIPROF_SAMPLE */

static inline uint32_t apiprof_api_nsyms(const struct apiprof_api *api)
{
	return api->nsyms ? api->nsyms : api->nfuncs;
}

/* What apiprof_enter decided about a call. */
enum apiprof_route {
	APIPROF_CALL_FORWARD, /* nested, runtime busy, or no table: just forward */
	APIPROF_CALL_TIMED,   /* apiprof_start, the call, apiprof_leave */
	APIPROF_CALL_COUNTED, /* sampled mode between two timed calls */
	APIPROF_CALL_SLOW,    /* the monotonic clock: timed out of line */
	APIPROF_CALL_OUT,     /* apiprof_enter only: ask apiprof_enter_slow */
	/* apiprof_enter only: a timed call of the row's parked run, timed
	 * where it is (apiprof_start_parked, the call, apiprof_leave_parked) */
	APIPROF_CALL_PARKED,
};

/* The state a wrapper carries across the real call: only the start, and
 * that only out of line (inline, the way out reads it from the row). */
struct apiprof_call {
	uint64_t t0; /* 0 for a counted call in slow mode */
	/* Where the thread's slot is (apiprof_slot_of), from the way in to
	 * apiprof_start and the way out, which then need not load it again:
	 * set by apiprof_enter and apiprof_enter_out, never by the runtime.
	 * The one word kept across the real call (see the top of the file),
	 * except by a function that declares bytes (apiprof_enter_acct). */
	uintptr_t slot;
	/* The thread's innermost call when this one is made (its parent),
	 * from the way in to apiprof_start, which makes this call the
	 * innermost; where the thread's struct apiprof_tls is
	 * (apiprof_tls_of) and its table for the api: set with slot. */
	uint64_t parent;
	uintptr_t tls;
	struct apiprof_tab *tab;
};

/* Runtime entry points (exported by libapiprof.so). */
typedef void *(*apiprof_lookup_fn)(const char *symbol, const char *version);
APIPROF_EXPORT struct apiprof_tab *apiprof_thread_attach(struct apiprof_api *api);
APIPROF_EXPORT void *apiprof_resolve_with(struct apiprof_api *api, uint32_t idx,
                                          apiprof_lookup_fn next);
APIPROF_EXPORT void apiprof_missing(struct apiprof_api *api, uint32_t idx);
/* Non-zero while this thread is inside a lookup: a NULL from
 * apiprof_resolve then means "not now", not "missing". */
APIPROF_EXPORT int apiprof_resolving(void);
/* Brackets a shim constructor's eager lookups (their NULLs are not final). */
APIPROF_EXPORT void apiprof_prefetch(int on);
/* Within them: whether to look up every function of api, or (its library
 * absent) only those the loader itself calls (apiprof_loader_calls.h).  A
 * shim declares it weak (gen_emit.c): under an older runtime, without it,
 * the shim looks up every function, as it did. */
APIPROF_EXPORT int apiprof_prefetch_all(struct apiprof_api *api, apiprof_lookup_fn next);
APIPROF_EXPORT void apiprof_register(struct apiprof_api *api);
APIPROF_EXPORT void apiprof_count_noreturn(struct apiprof_api *api, uint32_t idx);
APIPROF_EXPORT void apiprof_set_mode(uint32_t mode); /* enum apiprof_proc_mode */
/* What this process says about the whole run (apiprof_env.c): nothing (a
 * child of the process apiprof-run started), only what is wrong (-q), or
 * hints and notes too. */
enum apiprof_say { APIPROF_SAY_NONE, APIPROF_SAY_ERRORS, APIPROF_SAY_ALL };
APIPROF_EXPORT int apiprof_say(void);

APIPROF_EXPORT uint64_t apiprof_clock_mono(void);

/* dlsym(RTLD_NEXT) searches the objects after the one that *called* it, so
 * the lookup must run from the shim's own code, not from libapiprof.so
 * (which the loader places after the real library).  Hence a static copy
 * in every shim, kept out of line, and the empty asm after the call stops
 * the compiler from turning it into a tail jump, which would make the
 * runtime the caller again. */
static void *apiprof_next(const char *symbol, const char *version)
        __attribute__((noinline, unused));
static void *apiprof_next(const char *symbol, const char *version)
{
	void *p = version ? dlvsym(RTLD_NEXT, symbol, version) : dlsym(RTLD_NEXT, symbol);

	__asm__ volatile("" : : "r"(p) : "memory");
	return p;
}

/* Finds the real function idx of api (NULL when it does not exist), with a
 * recursion guard: dlsym may itself call interposed functions. */
static inline void *apiprof_resolve(struct apiprof_api *api, uint32_t idx)
{
	return apiprof_resolve_with(api, idx, apiprof_next);
}

#define APIPROF_INLINE static inline __attribute__((always_inline))

APIPROF_INLINE uint64_t apiprof_load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

APIPROF_INLINE void apiprof_store(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* *p += v in one instruction without a lock prefix: only the owning thread
 * writes, and an aligned 8-byte add is never seen torn by the flusher.
 * volatile keeps these in program order (see apiprof_leave). */
APIPROF_INLINE void apiprof_add(uint64_t *p, uint64_t v)
{
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(v));
}

/* Where the wrapper returns to: its caller's address right after the
 * call (the PLT stub jumps, so it is the caller's own), a call site.
 * Read where it is used, from the stack, not kept across the real call. */
#define apiprof_caller() ((uintptr_t)__builtin_return_address(0))

/* The stack pointer, to tell a nested call (deeper) from one that an
 * unwinding left behind; one instruction, and it keeps the call state out
 * of memory, which taking an address would not. */
APIPROF_INLINE uintptr_t apiprof_sp(void)
{
	uintptr_t sp;

	__asm__("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* The histogram bucket of d: floor(log2(d)), 0 for d <= 1, so 64 buckets
 * cover every duration and size.  Not with BSR, a slow instruction on
 * some CPUs (this AMD Zen 3: a timed call 1.1 ns faster with LZCNT,
 * bench_driver -t fg): LZCNT gives 63 - the bucket.  A CPU that lacks
 * LZCNT runs the same bytes as BSR (it ignores the F3 prefix), which
 * gives the bucket itself; the table's hist_xor (apiprof_cpu_hist_xor:
 * 63 or 0) makes either one the bucket, so a shim works on every x86-64
 * whatever it was built on. */
APIPROF_INLINE unsigned apiprof_hist_bucket_lz(const struct apiprof_tab *tab, uint64_t d)
{
	uint64_t r;

	__asm__("lzcnt %1, %0" : "=r"(r) : "rm"(d | 1u));
	return (unsigned)(r ^ tab->hist_xor);
}

/* The out-of-line halves of the hot path: a nested or busy call, a
 * thread's first call of an api, sampled mode's timed calls, and every
 * call in slow mode.  apiprof_enter_slow fills in *c and returns an enum
 * apiprof_route, for a call of row idx from stack address sp (the
 * wrapper's); apiprof_leave_slow ends an APIPROF_CALL_SLOW call. */
APIPROF_EXPORT unsigned apiprof_enter_slow(struct apiprof_api *api, struct apiprof_call *c,
                                           uintptr_t sp, uint32_t idx, uintptr_t ret);
APIPROF_EXPORT void apiprof_leave_slow(const struct apiprof_api *api, uint64_t t0, uint32_t idx);

/* Loads, stores and compares of the calling thread's state, at an offset
 * from %fs.  Inline asm rather than GCC's __seg_fs: the sanitizers would
 * check such an access as if the offset were an ordinary address.
 * volatile keeps them in program order, among themselves and with
 * apiprof_add; the stores that mark a call in or out of an api also
 * clobber memory, so the runtime's own view of the block (a plain
 * pointer, apiprof_internal.h) is never stale. */
APIPROF_INLINE uint64_t apiprof_fs_load(uintptr_t off)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(off));
	return v;
}

APIPROF_INLINE uint32_t apiprof_fs_load32(uintptr_t off)
{
	uint32_t v;

	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"(off));
	return v;
}

APIPROF_INLINE void apiprof_fs_store32(uintptr_t off, uint32_t v)
{
	__asm__ volatile("movl %1, %%fs:(%0)" : : "r"(off), "r"(v) : "memory");
}

/* Where the calling thread's struct apiprof_tls is, from %fs, for a
 * registered api (see tls above); its fields are at offsetof from there.
 * Acquire: pairs with the release that stores tls last (apiprof_api.c). */
APIPROF_INLINE uintptr_t apiprof_tls_of(const struct apiprof_api *api)
{
	return (uintptr_t)__atomic_load_n(&api->tls, __ATOMIC_ACQUIRE);
}

/* Where the calling thread's slot for api is, from %fs: loaded by the way
 * in, which keeps it for the way out (struct apiprof_call's slot). */
APIPROF_INLINE uintptr_t apiprof_slot_of(const struct apiprof_api *api)
{
	return (uintptr_t)__atomic_load_n(&api->slot, __ATOMIC_RELAXED);
}

#define APIPROF_TLS_GUARD     offsetof(struct apiprof_tls, guard)
#define APIPROF_TLS_COUNTDOWN offsetof(struct apiprof_tls, countdown)
#define APIPROF_TLS_API       offsetof(struct apiprof_tls, api)
#define APIPROF_TLS_RNG       offsetof(struct apiprof_tls, rng)
#define APIPROF_TLS_APIS      offsetof(struct apiprof_tls, apis)
#define APIPROF_TLS_SPAN      offsetof(struct apiprof_tls, span)
#define APIPROF_SLOT_TAB      offsetof(struct apiprof_tls_api, tab)
#define APIPROF_SLOT_FRAME    offsetof(struct apiprof_tls_api, frame)

/* The thread's guard word (t: its struct apiprof_tls), loaded once and
 * compared in a register with each value the way in knows. */
APIPROF_INLINE uint64_t apiprof_guard(uintptr_t t)
{
	return apiprof_fs_load(t + APIPROF_TLS_GUARD);
}

/* Whether the thread's guard word is v: one compare with the word in
 * memory, v an immediate once inlined. */
APIPROF_INLINE _Bool apiprof_guard_is(uintptr_t t, uint64_t v)
{
	_Bool eq;

	__asm__ volatile("cmpq %2, %%fs:%c3(%1)"
	                 : "=@ccz"(eq)
	                 : "r"(t), "er"(v), "i"(APIPROF_TLS_GUARD));
	return eq;
}

/* Whether the thread's frame word for an api (slot: its slot) is idle:
 * the thread has its table, and no call of the api is in progress. */
APIPROF_INLINE _Bool apiprof_frame_idle(uintptr_t slot)
{
	_Bool eq;

	__asm__ volatile("cmpq %2, %%fs:%c3(%1)"
	                 : "=@ccz"(eq)
	                 : "r"(slot), "er"((uint64_t)APIPROF_FRAME_IDLE), "i"(APIPROF_SLOT_FRAME));
	return eq;
}

/* Marks the call as being inside the api: the stack pointer straight into
 * the frame word, one instruction.  A signal handler that interrupts the
 * way in finds the word idle, makes its own call and leaves it idle
 * again, so nothing is lost by not reading it again here. */
APIPROF_INLINE void apiprof_frame_enter(uintptr_t slot)
{
	__asm__ volatile("movq %%rsp, %%fs:%c1(%0)"
	                 :
	                 : "r"(slot), "i"(APIPROF_SLOT_FRAME)
	                 : "memory");
}

/* Marks the outermost call as done. */
APIPROF_INLINE void apiprof_frame_leave(uintptr_t slot)
{
	__asm__ volatile("movq %1, %%fs:%c2(%0)"
	                 :
	                 : "r"(slot), "i"((uint64_t)APIPROF_FRAME_IDLE), "i"(APIPROF_SLOT_FRAME)
	                 : "memory");
}

/* The thread's table for an api, from its slot. */
APIPROF_INLINE struct apiprof_tab *apiprof_tab_at(uintptr_t slot)
{
	return (struct apiprof_tab *)apiprof_fs_load(slot + APIPROF_SLOT_TAB);
}

#define APIPROF_TLS_CUR offsetof(struct apiprof_tls, cur)

/* The thread's innermost call (t: its struct apiprof_tls), and setting it. */
APIPROF_INLINE uint64_t apiprof_cur(uintptr_t t)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:%c2(%1), %0" : "=r"(v) : "r"(t), "i"(APIPROF_TLS_CUR));
	return v;
}

APIPROF_INLINE void apiprof_cur_set(uintptr_t t, uint64_t v)
{
	__asm__ volatile("movq %1, %%fs:%c2(%0)"
	                 :
	                 : "r"(t), "r"(v), "i"(APIPROF_TLS_CUR)
	                 : "memory");
}

/* Makes the call of row s of table tab the thread's innermost call in
 * progress (a parent of the calls made inside it), keeping `parent`, the
 * one it was made in, for the way out: two stores, one to the table's
 * head line, which the way out writes anyway (its calls), and one to the
 * thread's first line. */
APIPROF_INLINE void apiprof_push(uintptr_t t, struct apiprof_tab *tab, struct apiprof_row *s,
                                 uint64_t parent)
{
	apiprof_store(&tab->parent, parent);
	apiprof_cur_set(t, apiprof_load(&s->self));
}

/* Puts back the call that the api's call in progress was made in. */
APIPROF_INLINE void apiprof_pop(const struct apiprof_api *api, struct apiprof_tab *tab)
{
	apiprof_cur_set(apiprof_tls_of(api), apiprof_load(&tab->parent));
}

/* The thread's countdown (t: its struct apiprof_tls), less one; true
 * when the result is 0 or, taken as signed, negative (countdowns are at
 * most 2N-1 < 2^31, so only 0 comes out negative): the flags of the one
 * instruction, so nothing is loaded or compared again. */
APIPROF_INLINE _Bool apiprof_countdown_dec(uintptr_t t)
{
	_Bool due;

	__asm__ volatile("decl %%fs:%c2(%1)"
	                 : "=@ccle"(due)
	                 : "r"(t), "i"(APIPROF_TLS_COUNTDOWN)
	                 : "memory");
	return due;
}

/* Sampled mode: the call the countdown came down to 0 for is timed out of
 * line (it finds its parent there): the 0 is put back to 1, which the
 * out-of-line way in takes down to 0 again.  A countdown that was 0
 * already (now UINT32_MAX) is left for the way in to draw a new one. */
APIPROF_INLINE void apiprof_countdown_undo(uintptr_t t)
{
	__asm__ volatile("cmpl $0, %%fs:%c1(%0)\n\t"
	                 "jne 1f\n\t"
	                 "movl $1, %%fs:%c1(%0)\n"
	                 "1:"
	                 :
	                 : "r"(t), "i"(APIPROF_TLS_COUNTDOWN)
	                 : "cc", "memory");
}

/* Sampled mode's draws: the next state of a thread's xorshift32 (never 0
 * from a state that is not), and the countdown it gives, uniform in
 * [1, span] (span = 2N - 1, so N on average): a multiply, no division on
 * the way to a timed call.  The runtime draws with them too
 * (apiprof_sample_draw). */
APIPROF_INLINE uint32_t apiprof_xorshift32(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

APIPROF_INLINE uint32_t apiprof_countdown_of(uint32_t x, uint32_t span)
{
	return 1u + (uint32_t)(((uint64_t)x * span) >> 32);
}

/* The countdown after a timed call of sampled mode, drawn by the call
 * itself (t: the thread's struct apiprof_tls): its rng is set from the
 * thread's first table on (apiprof_thread_attach). */
APIPROF_INLINE void apiprof_sample_redraw(uintptr_t t)
{
	uint32_t x = apiprof_xorshift32(apiprof_fs_load32(t + APIPROF_TLS_RNG));

	apiprof_fs_store32(t + APIPROF_TLS_RNG, x);
	apiprof_fs_store32(t + APIPROF_TLS_COUNTDOWN,
	                   apiprof_countdown_of(x, apiprof_fs_load32(t + APIPROF_TLS_SPAN)));
}

/* Whether the thread has a call of any api in progress (t: its struct
 * apiprof_tls): the frame words of the apis it has tables for, which are
 * 0 or IDLE otherwise.  Sampled mode's untimed calls keep no `cur`, so a
 * timed call that finds none has no parent; one that finds one looks for
 * it out of line (apiprof_slow.c). */
APIPROF_INLINE _Bool apiprof_any_in_call(uintptr_t t)
{
	uint32_t n;

	__asm__ volatile("movzwl %%fs:(%1), %0" : "=r"(n) : "r"(t + APIPROF_TLS_APIS));
	for (uint32_t k = 1; k <= n; k++) {
		uintptr_t slot = t + APIPROF_TLS_API + k * sizeof(struct apiprof_tls_api);

		if (apiprof_fs_load(slot + APIPROF_SLOT_FRAME) > APIPROF_FRAME_IDLE)
			return 1;
	}
	return 0;
}

/* The run key of a timed call of row idx from return address ret, made
 * in `parent` (apiprof_sites.c): the inline way in times the calls whose
 * key is the row's run's (`last`), or the parked run's (APIPROF_CALL_PARKED),
 * and leaves the others out of line, where the switch to a new run keeps
 * no register of the wrapper's (its arguments are live).  The parent is
 * kept in c for apiprof_start. */
APIPROF_INLINE uint64_t apiprof_run_key(struct apiprof_call *c, uintptr_t ret, uint64_t parent)
{
	c->tab = apiprof_tab_at(c->slot);
	c->parent = parent;
	return (uint64_t)ret << 16 | parent;
}

/* Whether a call of key continues row idx's run of calls.  A plain load,
 * which the compare takes as its operand: only this thread writes the
 * word. */
APIPROF_INLINE _Bool apiprof_same_run(const struct apiprof_call *c, uint32_t idx, uint64_t key)
{
	return key == apiprof_tab_row(c->tab, idx)->last;
}

APIPROF_INLINE _Bool apiprof_same_site_as(struct apiprof_call *c, uint32_t idx, uintptr_t ret,
                                          uint64_t parent)
{
	return apiprof_same_run(c, idx, apiprof_run_key(c, ret, parent));
}

/* The run key of a timed call from return address ret in full timing,
 * where the parent is the thread's innermost call. */
APIPROF_INLINE uint64_t apiprof_full_key(struct apiprof_call *c, uintptr_t ret)
{
	return apiprof_run_key(c, ret, apiprof_cur(c->tls));
}

/* One figure of a swap of runs (apiprof_unpark): the row's figure now
 * (row) less the run's mark is the run that is parked; the parked run's
 * figure so far goes on, with its mark set back by it.  In asm, as the
 * rest of the swap, so that it takes two registers and the wrapper saves
 * none more for it: its arguments are live, and in C the compiler kept
 * every value of the swap at once (two or four more pushes and pops on
 * every call, not only this one's). */
APIPROF_INLINE void apiprof_park_flip(uint64_t *parked, uint64_t *mark, const uint64_t *row)
{
	uint64_t a, b;

	__asm__ volatile("movq %[row], %[a]\n\t"
	                 "movq %[a], %[b]\n\t"
	                 "subq %[mark], %[b]\n\t"
	                 "subq %[parked], %[a]\n\t"
	                 "movq %[b], %[parked]\n\t"
	                 "movq %[a], %[mark]"
	                 : [a] "=&r"(a), [b] "=&r"(b), [parked] "+m"(*parked), [mark] "+m"(*mark)
	                 : [row] "m"(*row)
	                 : "cc");
}

/* One word of the run in progress (*cur) swapped with the parked run's. */
APIPROF_INLINE void apiprof_park_swap(uint64_t *parked, uint64_t *cur)
{
	uint64_t a, b;

	__asm__ volatile("movq %[parked], %[a]\n\t"
	                 "movq %[cur], %[b]\n\t"
	                 "movq %[a], %[cur]\n\t"
	                 "movq %[b], %[parked]"
	                 : [a] "=&r"(a), [b] "=&r"(b), [parked] "+m"(*parked), [cur] "+m"(*cur));
}

/* Swaps row idx's run in progress with its parked run (struct
 * apiprof_sites p), whose key is key: the run in progress, its figures
 * since its marks, is parked, and the parked one goes on with its marks
 * set back by its figures so far, so that a reader finds every call in
 * one of the two.  Between an odd and an even gen, which the reader's
 * copy checks (apiprof_sites.c); only this thread writes these words,
 * and x86 keeps its stores in order, as volatile asm keeps them in
 * program order.  After the frame word is set: a signal handler's call
 * of the api meanwhile is nested, and forwarded.  For the calls the
 * wrapper does not time where they are (APIPROF_CALL_PARKED): the
 * monotonic clock's (apiprof_site_switch) and dynamic mode's
 * (apiprof_enter_any). */
APIPROF_INLINE void apiprof_unpark(struct apiprof_tab *tab, uint32_t idx, struct apiprof_sites *p)
{
	struct apiprof_row *s = apiprof_tab_row(tab, idx);

	apiprof_add(&p->gen, 1);
	apiprof_park_flip(&p->park_calls, &p->mark_calls, &tab->calls[idx]);
	apiprof_park_flip(&p->park_ticks, &p->mark_ticks, &s->ticks);
	apiprof_park_swap(&p->park_key, &s->last);
	apiprof_park_swap(&p->park_self, &s->self);
	apiprof_park_swap((uint64_t *)&p->park_hoff, (uint64_t *)&s->hist_off);
	apiprof_park_swap(&p->park_run, &p->run);
	apiprof_add(&p->gen, 1);
}

/* Whether the thread's countdown is 0 (after apiprof_countdown_dec): the
 * call it came down to, not a countdown never drawn. */
APIPROF_INLINE _Bool apiprof_countdown_zero(uintptr_t t)
{
	_Bool z;

	__asm__ volatile("cmpl $0, %%fs:%c2(%1)" : "=@ccz"(z) : "r"(t), "i"(APIPROF_TLS_COUNTDOWN));
	return z;
}

/* Sampled mode's timed call, once the countdown has come down to it:
 * inline, as full timing's, when the thread has no call of any api in
 * progress (then it has no parent) and the call continues its row's run.
 * It draws the next countdown before its clock starts.  Anything else
 * puts the countdown back (apiprof_countdown_undo) for the out-of-line
 * way in, which times the call there, finding its parent from the frame
 * words (apiprof_slow.c). */
APIPROF_INLINE unsigned apiprof_enter_due(struct apiprof_call *c, uint32_t idx, uintptr_t ret)
{
	uintptr_t t = c->tls;

	if (apiprof_unlikely(!apiprof_countdown_zero(t) || apiprof_any_in_call(t) ||
	                     !apiprof_same_site_as(c, idx, ret, APIPROF_PARENT_NONE))) {
		apiprof_countdown_undo(t);
		return APIPROF_CALL_OUT;
	}
	apiprof_sample_redraw(t);
	apiprof_frame_enter(c->slot);
	return APIPROF_CALL_TIMED;
}

/* The rest of the way in of a sampled-mode call, once the guard word has
 * said sampled mode: counted inline while the thread is not inside the
 * api and the countdown is not down to the next timed call. */
APIPROF_INLINE unsigned apiprof_enter_sampled(struct apiprof_call *c, uint32_t idx, uintptr_t ret)
{
	if (apiprof_unlikely(!apiprof_frame_idle(c->slot)))
		return APIPROF_CALL_OUT;
	if (apiprof_likely(!apiprof_countdown_dec(c->tls))) {
		apiprof_frame_enter(c->slot);
		return APIPROF_CALL_COUNTED;
	}
	return apiprof_enter_due(c, idx, ret);
}

/* Whether a call of key is one of row idx's parked run (struct
 * apiprof_sites): a plain load, as apiprof_same_run's.  The table is
 * loaded again from the slot, as apiprof_start_parked does. */
APIPROF_INLINE _Bool apiprof_parked_run(const struct apiprof_call *c, uint32_t idx, uint64_t key)
{
	return key == apiprof_tab_at(c->slot)->sites[idx].park_key;
}

/* The rest of the way in of a full-timing call, once the guard word has
 * said full timing: timed inline while the thread is not inside the api
 * and the call continues the row's run of calls from one site, or is one
 * of its parked run's (callers that take turns), which is timed inline
 * too, where it is (APIPROF_CALL_PARKED, apiprof_start_parked). */
APIPROF_INLINE unsigned apiprof_enter_full(struct apiprof_call *c, uint32_t idx, uintptr_t ret)
{
	if (apiprof_unlikely(!apiprof_frame_idle(c->slot)))
		return APIPROF_CALL_OUT;
	uint64_t key = apiprof_full_key(c, ret);
	if (apiprof_likely(apiprof_same_run(c, idx, key))) {
		apiprof_frame_enter(c->slot);
		return APIPROF_CALL_TIMED;
	}
	if (!apiprof_parked_run(c, idx, key))
		return APIPROF_CALL_OUT;
	apiprof_frame_enter(c->slot);
	return APIPROF_CALL_PARKED;
}

/* Decides what a call of row idx from return address ret is (enum
 * apiprof_route) as far as the inline fast path can.  Sampled mode's
 * untimed calls, the cheapest, are tested first and laid out straight
 * through to the real call: one load of the guard word and two compares
 * with it in a register, the api's frame word with IDLE and a decrement.
 * Taking a branch and comparing twice in memory on the way cost them
 * about 1 ns of their 3 to 5 (bench_driver -t fg, two builds of the shim
 * in one process); the timed call, with its two rdtsc, does not notice
 * the branch.  A thread in the default mode with its table and not
 * already inside the api then costs the frame word's compare and the
 * call's site with the run's.  Anything else is APIPROF_CALL_OUT, for
 * apiprof_enter_slow.  *c is the caller's to fill in (apiprof_start). */
APIPROF_INLINE unsigned apiprof_enter(struct apiprof_api *api, struct apiprof_call *c, uint32_t idx,
                                      uintptr_t ret)
{
	uintptr_t t = apiprof_tls_of(api);
	uintptr_t slot = apiprof_slot_of(api);
	uint64_t guard = apiprof_guard(t);

	c->slot = slot;
	c->tls = t;
	if (apiprof_likely(guard == APIPROF_GUARD_SAMPLE))
		return apiprof_enter_sampled(c, idx, ret);
	if (apiprof_unlikely(guard != 0))
		return APIPROF_CALL_OUT;
	return apiprof_enter_full(c, idx, ret);
}

/* Whether a call that the inline way in sent out of line is nested in a
 * call of its api in progress on this thread, on the same stack: the frame
 * word holds the outermost call's stack pointer, which lies at or above
 * the CFA of a wrapper called inside it (cfa: the caller's stack pointer
 * before the call, just above the return address; stacks grow down).  Any
 * stack pointer of this call lies below cfa, so apiprof_slow.c's nested(),
 * given one, says nested too: this decides nothing otherwise, it only
 * decides it sooner.  A nested call is not counted, so its wrapper
 * forwards it with a tail jump to the real function, keeping no frame of
 * its own: a recursion through a callback then takes a level exactly the
 * stack it takes bare.  The rest (a frame below this call's, which an
 * unwinding left behind, or a signal handler's call on an alternate stack)
 * goes out of line as before.  Off the fast path only: loads, no store.
 * An api's offsets never change once published (tls is stored last);
 * before that both are 0, and a thread without its table has its frame
 * word at 0.  The CFA rather than the stack pointer: how far below it the
 * wrapper's stack pointer is depends on the registers each wrapper saves,
 * and a frame that a longjmp left behind, found by a call from the same
 * depth, must not look nested. */
APIPROF_INLINE _Bool apiprof_nested_at(const struct apiprof_api *api, uintptr_t cfa)
{
	uintptr_t t = apiprof_tls_of(api);
	uint64_t frame;

	if (t == 0)
		return 0;
	frame = apiprof_fs_load(apiprof_slot_of(api) + APIPROF_SLOT_FRAME);
	return frame > APIPROF_FRAME_IDLE && (frame & ~(uint64_t)APIPROF_FRAME_TAGS) >= cfa;
}

/* The same in the wrapper itself (a macro, as apiprof_caller).  GCC
 * computes the CFA from the stack pointer; clang keeps a frame pointer in
 * a function that asks for it, which costs its wrappers a push, a move
 * and a pop on every call. */
#define apiprof_nested(api) apiprof_nested_at((api), (uintptr_t)__builtin_dwarf_cfa())

/* apiprof_enter for a function that declares bytes or failures: full
 * timing first, the guard compared in memory, as every wrapper did before
 * sampled mode's test came first.  Its wrapper keeps the size argument in
 * a saved register, and its ways out load the slot's offset again rather
 * than keep it in a second one: measured as issue 24 measures it (half
 * the difference of the twin shims' g - f, bench_driver -t fg, 8
 * interleaved rounds), declaring cost 0.86 ns more than not declaring
 * this way, 1.40 with the plain wrappers' way in and out. */
APIPROF_INLINE unsigned apiprof_enter_acct(struct apiprof_api *api, struct apiprof_call *c,
                                           uint32_t idx, uintptr_t ret)
{
	uintptr_t t = apiprof_tls_of(api);
	uintptr_t slot = apiprof_slot_of(api);

	c->slot = slot;
	c->tls = t;
	if (apiprof_likely(apiprof_guard_is(t, 0)))
		return apiprof_enter_full(c, idx, ret);
	if (apiprof_likely(apiprof_guard_is(t, APIPROF_GUARD_SAMPLE)))
		return apiprof_enter_sampled(c, idx, ret);
	return APIPROF_CALL_OUT;
}

/* The call state after the out-of-line way in (route), which may have
 * given the thread its table just now. */
APIPROF_INLINE void apiprof_call_fill(const struct apiprof_api *api, struct apiprof_call *c,
                                      unsigned route)
{
	c->slot = apiprof_slot_of(api);
	c->tls = apiprof_tls_of(api);
	c->tab = apiprof_tab_at(c->slot);
	if (route == APIPROF_CALL_TIMED)
		c->parent = apiprof_cur(c->tls);
}

/* apiprof_enter, then apiprof_enter_slow where it cannot decide: for a
 * caller with a single body (dynamic mode's handlers).  The slow path fills
 * in a copy of the call state: were the address of the caller's own passed
 * out of line, the compiler would keep it in memory. */
APIPROF_INLINE unsigned apiprof_enter_any(struct apiprof_api *api, struct apiprof_call *c,
                                          uint32_t idx, uintptr_t ret)
{
	struct apiprof_call tmp;
	unsigned route = apiprof_enter(api, c, idx, ret);

	if (apiprof_unlikely(route == APIPROF_CALL_PARKED)) {
		/* one body: the parked run swapped in, and timed as the run */
		apiprof_unpark(c->tab, idx, &c->tab->sites[idx]);
		return APIPROF_CALL_TIMED;
	}
	if (apiprof_likely(route != APIPROF_CALL_OUT))
		return route;
	route = apiprof_enter_slow(api, &tmp, apiprof_sp(), idx, ret);
	c->t0 = tmp.t0;
	apiprof_call_fill(api, c, route);
	return route;
}

/* apiprof_enter_slow for a wrapper's out-of-line half, from stack address
 * sp: fills in the slot as apiprof_enter does (the api may have got it
 * just now, with the thread's first call). */
APIPROF_INLINE unsigned apiprof_enter_out(struct apiprof_api *api, struct apiprof_call *c,
                                          uintptr_t sp, uint32_t idx, uintptr_t ret)
{
	unsigned route = apiprof_enter_slow(api, c, sp, idx, ret);

	apiprof_call_fill(api, c, route);
	return route;
}

/* The first timestamp of an APIPROF_CALL_TIMED call of row idx, read in
 * the wrapper after every branch on the way in: a mispredicted one inside
 * the measured window would bias sampled mode, whose timed calls are the
 * rare ones.  It is also stored in the row, for a reader that wants to
 * know how long a call in progress has run: one store, to a line that
 * the way out writes anyway, and the table's address comes from the
 * thread's slot, on the line the way in has just read. */
APIPROF_INLINE void apiprof_start(const struct apiprof_api *api, struct apiprof_call *c,
                                  uint32_t idx)
{
	struct apiprof_row *s = apiprof_tab_row(c->tab, idx);

	(void)api;
	apiprof_push(c->tls, c->tab, s, c->parent);
	c->t0 = __rdtsc();
	apiprof_store(&s->t0, c->t0);
}

/* apiprof_start of an APIPROF_CALL_PARKED call: the innermost call is
 * the parked run's node, and the start is also the parked run's latest
 * (park_t0: a jump that abandons the call finds it there).  The table
 * and the parent are loaded again (they have not changed): kept from the
 * way in, they made the compiler copy registers on every timed call's
 * way (3 instructions in the malloc shim's free). */
APIPROF_INLINE void apiprof_start_parked(const struct apiprof_api *api, struct apiprof_call *c,
                                         uint32_t idx)
{
	struct apiprof_tab *tab = apiprof_tab_at(c->slot);
	struct apiprof_row *s = apiprof_tab_row(tab, idx);
	struct apiprof_sites *p = &tab->sites[idx];

	(void)api;
	apiprof_store(&tab->parent, apiprof_cur(c->tls));
	apiprof_cur_set(c->tls, apiprof_load(&p->park_self));
	c->t0 = __rdtsc();
	apiprof_store(&s->t0, c->t0);
	apiprof_store(&p->park_t0, c->t0);
}

/* Counts a duration in its histogram bucket.  The increment of a bucket
 * chosen by the duration just measured is a store whose address is known
 * only once the TSC has been read; everything after it on the thread then
 * waits for it, which costs about a quarter of the time of a call.  So the
 * bucket is only noted, and the one noted by the previous timed call is
 * incremented instead: its address comes from a load that is ready long
 * before. */
APIPROF_INLINE void apiprof_hist_defer_at(struct apiprof_tab *tab, const int64_t *hist_off,
                                          uint64_t d)
{
	int64_t due = __atomic_load_n(&tab->due, __ATOMIC_RELAXED);

	apiprof_add(&tab->sink + due, 1);
	/* the row's histogram for the run's site (hist_off): a plain load,
	 * only this thread writes the word */
	__atomic_store_n(&tab->due, *hist_off + (int64_t)apiprof_hist_bucket_lz(tab, d),
	                 __ATOMIC_RELAXED);
}

APIPROF_INLINE void apiprof_hist_defer(struct apiprof_tab *tab, const struct apiprof_row *s,
                                       uint64_t d)
{
	apiprof_hist_defer_at(tab, &s->hist_off, d);
}

/* The rest of a timed call's record. */
APIPROF_INLINE void apiprof_record_time(struct apiprof_row *s, uint64_t d)
{
	apiprof_add(&s->ticks, d);
	if (apiprof_unlikely(d < apiprof_load(&s->min_ticks)))
		apiprof_store(&s->min_ticks, d);
	if (apiprof_unlikely(d > apiprof_load(&s->max_ticks)))
		apiprof_store(&s->max_ticks, d);
}

/* Ends an APIPROF_CALL_TIMED call of row idx of api.  `calls` is added
 * after the times (the adds are volatile
 * asm, so they stay in order, and x86 keeps stores in order): the runtime
 * reads calls first, so a snapshot never has more calls than timed ones.
 * The parent is put back before the frame is idle: a signal handler's
 * call in between is nested in this one or made in its parent. */
APIPROF_INLINE void apiprof_leave(const struct apiprof_api *api, const struct apiprof_call *c,
                                  uint32_t idx)
{
	uint64_t t1 = __rdtsc();
	uintptr_t slot = c->slot;
	struct apiprof_tab *tab = apiprof_tab_at(slot);
	struct apiprof_row *s = apiprof_tab_row(tab, idx);
	/* a plain load, which the subtraction takes as its operand: only
	 * this thread writes the word */
	uint64_t d = t1 - s->t0;

	apiprof_pop(api, tab);
	apiprof_hist_defer(tab, s, d);
	apiprof_record_time(s, d);
	apiprof_add(&tab->calls[idx], 1);
	apiprof_frame_leave(slot);
}

/* The end of an APIPROF_CALL_PARKED call of row idx of the table at
 * slot, as apiprof_leave's: its bucket in the parked run's histogram,
 * and its figures, once they are the row's, added to the parked run's
 * and to the marks alike (the run in progress keeps its own), between
 * an odd and an even gen (the readers' copies check it, apiprof_sites.c);
 * only this thread writes these words, and x86 keeps its stores in
 * order, as volatile asm keeps them in program order.  The table. */
APIPROF_INLINE struct apiprof_tab *apiprof_leave_park(const struct apiprof_api *api, uintptr_t slot,
                                                      uint32_t idx)
{
	uint64_t t1 = __rdtsc();
	struct apiprof_tab *tab = apiprof_tab_at(slot);
	struct apiprof_row *s = apiprof_tab_row(tab, idx);
	struct apiprof_sites *p = &tab->sites[idx];
	uint64_t d = t1 - s->t0; /* as apiprof_leave */

	apiprof_pop(api, tab);
	apiprof_hist_defer_at(tab, &p->park_hoff, d);
	apiprof_add(&p->gen, 1);
	apiprof_record_time(s, d);
	apiprof_add(&tab->calls[idx], 1);
	apiprof_add(&p->mark_ticks, d);
	apiprof_add(&p->mark_calls, 1);
	apiprof_add(&p->park_ticks, d);
	apiprof_add(&p->park_calls, 1);
	apiprof_add(&p->gen, 1);
	apiprof_frame_leave(slot);
	return tab;
}

/* Ends an APIPROF_CALL_PARKED call of row idx of api. */
APIPROF_INLINE void apiprof_leave_parked(const struct apiprof_api *api,
                                         const struct apiprof_call *c, uint32_t idx)
{
	apiprof_leave_park(api, c->slot, idx);
}

/* Ends an APIPROF_CALL_COUNTED call of row idx of api.  Its site is not
 * looked at: sampled mode counts the calls between two timed ones at the
 * site of the first (struct apiprof_shm_site says why that is fair). */
APIPROF_INLINE void apiprof_leave_counted(const struct apiprof_api *api,
                                          const struct apiprof_call *c, uint32_t idx)
{
	uintptr_t slot = c->slot;

	(void)api;
	apiprof_add(&apiprof_tab_at(slot)->calls[idx], 1);
	apiprof_frame_leave(slot);
}

/* A parameter named by "bytes": an integer (a pointer does not convert
 * without a cast, so the compiler refuses a spec that names one). */
APIPROF_INLINE uint64_t apiprof_size_arg(uint64_t n)
{
	return n;
}

/* Whether the type of x is signed, as a constant. */
#define APIPROF_SIGNED(x) ((__typeof__(x))-1 < (__typeof__(x))1)

/* "bytes": "return": whether n, the return value converted to uint64_t,
 * is a size (a negative value of a signed type is none). */
APIPROF_INLINE _Bool apiprof_ret_sized(uint64_t n, _Bool is_signed)
{
	return !is_signed || (int64_t)n >= 0;
}

/* The list's numbers are this system's (the slots count Linux's). */
#define APIPROF_ERRNO_SAME(name, linux_no) _Static_assert(name == linux_no, #name " is " #linux_no);
APIPROF_ERRNO_LIST(APIPROF_ERRNO_SAME)
#undef APIPROF_ERRNO_SAME

/* The slot of errno value e (apiprof_errno_values), 0 for the others. */
#define APIPROF_ERRNO_CASE(name, linux_no)                                                         \
	case name:                                                                                 \
		return APIPROF_ERRNO_SLOT_##name;
APIPROF_INLINE unsigned apiprof_errno_slot(int e)
{
	switch (e) {
		APIPROF_ERRNO_LIST(APIPROF_ERRNO_CASE)
	default:
		return APIPROF_ERRNO_SLOT_OTHER;
	}
}
#undef APIPROF_ERRNO_CASE

/* The bytes and failures of a call (issue 24) into its row s: a failed
 * call, with errno as the real function left it when the function
 * declares "errno" (`err`), or one of n bytes when `sized`.  Only the
 * wrappers of functions that declare them call this, after a call that
 * counted (never a forwarded one), and after the clock; errno is read
 * only when the call failed, and only read. */
/* A failed call's count and errno slot.  Out of line, and reached by a
 * tail call: inline, the errno lookup (a call to libc) made the wrapper
 * keep the row's acct pointer in one more saved register on every call,
 * failed or not (80 against 76 instructions a call in callgrind). */
static void apiprof_acct_failed(struct apiprof_acct *a, _Bool err)
        __attribute__((noinline, cold, unused));
static void apiprof_acct_failed(struct apiprof_acct *a, _Bool err)
{
	apiprof_add(&a->failures, 1);
	if (err)
		apiprof_add(&a->errnos[apiprof_errno_slot(errno)], 1);
}

APIPROF_INLINE void apiprof_acct_add(const struct apiprof_tab *tab, struct apiprof_row *s,
                                     _Bool failed, _Bool err, uint64_t n, _Bool sized)
{
	struct apiprof_acct *a = s->acct;

	if (apiprof_unlikely(failed)) {
		apiprof_acct_failed(a, err);
	} else if (sized) {
		apiprof_add(&a->bytes, n);
		apiprof_add(&a->size_hist[apiprof_hist_bucket_lz(tab, n)], 1);
	}
}

/* apiprof_leave of a function that declares bytes or failures: the same,
 * and apiprof_acct_add on the row it has at hand. */
APIPROF_INLINE void apiprof_leave_acct(const struct apiprof_api *api, const struct apiprof_call *c,
                                       uint32_t idx, _Bool failed, _Bool err, uint64_t n,
                                       _Bool sized)
{
	uint64_t t1 = __rdtsc();
	uintptr_t slot = apiprof_slot_of(api); /* not kept: apiprof_enter_acct */
	struct apiprof_tab *tab = apiprof_tab_at(slot);
	struct apiprof_row *s = apiprof_tab_row(tab, idx);
	uint64_t d = t1 - s->t0; /* as apiprof_leave */

	(void)c;
	apiprof_pop(api, tab);
	apiprof_hist_defer(tab, s, d);
	apiprof_record_time(s, d);
	apiprof_add(&tab->calls[idx], 1);
	apiprof_frame_leave(slot);
	/* Last: nothing is left to keep across the errno lookup of a failure. */
	apiprof_acct_add(tab, s, failed, err, n, sized);
}

/* apiprof_leave_parked of a function that declares bytes or failures. */
APIPROF_INLINE void apiprof_leave_parked_acct(const struct apiprof_api *api,
                                              const struct apiprof_call *c, uint32_t idx,
                                              _Bool failed, _Bool err, uint64_t n, _Bool sized)
{
	/* the slot not kept: apiprof_enter_acct */
	struct apiprof_tab *tab = apiprof_leave_park(api, apiprof_slot_of(api), idx);

	(void)c;
	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), failed, err, n, sized);
}

/* apiprof_leave_counted of a function that declares them. */
APIPROF_INLINE void apiprof_leave_counted_acct(const struct apiprof_api *api,
                                               const struct apiprof_call *c, uint32_t idx,
                                               _Bool failed, _Bool err, uint64_t n, _Bool sized)
{
	uintptr_t slot = apiprof_slot_of(api); /* as apiprof_leave_acct */
	struct apiprof_tab *tab = apiprof_tab_at(slot);

	(void)c;
	apiprof_add(&tab->calls[idx], 1);
	apiprof_frame_leave(slot);
	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), failed, err, n, sized);
}

/* The same after any other call that counted (out of line, dynamic mode). */
APIPROF_INLINE void apiprof_acct_after(const struct apiprof_api *api, uint32_t idx, _Bool failed,
                                       _Bool err, uint64_t n, _Bool sized)
{
	struct apiprof_tab *tab = apiprof_tab_at(apiprof_slot_of(api));

	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), failed, err, n, sized);
}

/* Ends any other call of row idx of api. */
APIPROF_INLINE void apiprof_leave_other(const struct apiprof_api *api, const struct apiprof_call *c,
                                        unsigned route, uint32_t idx)
{
	if (route == APIPROF_CALL_COUNTED)
		apiprof_leave_counted(api, c, idx);
	else if (route == APIPROF_CALL_SLOW)
		apiprof_leave_slow(api, c->t0, idx);
}

#endif /* APIPROF_SHIM_H */
