/* SPDX-License-Identifier: MIT */
/*
 * apiprof_shim_layout.h - the data a generated shim shares with the
 * runtime: the per-thread state and its tags, the statistics table and a
 * row's layout, the api and its table of symbols, the shim ABI, the state
 * a wrapper carries across the real call, and the runtime's entry points.
 * Each encoding is beside its decoding (the deferred bucket `due` and a
 * histogram's `hist_off` at the end).  Included by apiprof_shim.h, which
 * says how the hot path uses it.
 */
#ifndef APIPROF_SHIM_LAYOUT_H
#define APIPROF_SHIM_LAYOUT_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

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
#define APIPROF_INLINE      static inline __attribute__((always_inline))

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

/* func_base before the api's registration: no reservation yet.  A shim
 * starts with it (gen_emit.c, preload/dyn), and the registration replaces
 * it once, by compare-and-swap (apiprof_register). */
#define APIPROF_FUNC_UNSET 0xffffffffu

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
	 * that a call finds the first five of them on the line it reads tls
	 * and slot from. */
	uint64_t reserved[7];
	/* Filled in by the runtime with the id, for the hot path: the offset
	 * of the thread's struct apiprof_tls from the thread pointer, and that
	 * of its slot for this api (apiprof_tls.api[id]), so that the hot path
	 * adds nothing to either.
	 *
	 * Both 0 until registered, which is safe as it stands: offset 0 from
	 * the thread pointer is the TCB's pointer to itself (the x86-64 TLS
	 * ABI), which is neither 0 nor a sampled gate as a guard word (it is
	 * aligned: bit 1, APIPROF_GUARD_SAMPLE, is never set in it),
	 * so every call goes out of line.  slot is stored first and tls last
	 * (release), and the hot path loads tls first (acquire): a call that
	 * sees tls set sees slot too.  Every thread that attaches stores the
	 * same two values again before its first call goes on, so none of
	 * them waits on the one that registered the api. */
	uint64_t tls;
	uint64_t slot;
	/* The api's mode as the way in reads it (issue 37), on the line of
	 * tls and slot, loaded once on the way in and never on the way out:
	 * APIPROF_GATE_OFF, APIPROF_GATE_COUNT, or the guard word a thread
	 * times the api's calls with inline (0: full timing; sampled mode's
	 * APIPROF_GUARD_SAMPLE with the process's sampling epoch above it),
	 * or APIPROF_GATE_OWN for an api timed other than the process.
	 * Written by the runtime's steering only (apiprof_steer.c), never by
	 * a call; 0 until registered, when every call goes out of line. */
	uint64_t gate;
};

_Static_assert(offsetof(struct apiprof_api, tls) % 64 == 0, "tls starts a cache line");
_Static_assert(sizeof(struct apiprof_api) == offsetof(struct apiprof_api, tls) + 24,
               "what follows an api shares the line of tls, slot and gate");

/* An api's gate word (struct apiprof_api's gate) other than a timing:
 * bits no guard word has, so a thread's guard never equals them and the
 * way in's one compare sends the call to apiprof_enter_gated. */
#define APIPROF_GATE_OFF   8ull  /* every call passes straight through */
#define APIPROF_GATE_COUNT 16ull /* counted (and bytes, failures), never timed */
/* A dormant runtime's gate once a waker wrote it (apiprof_dormant.h): the
 * next call goes out of line (neither off nor count) and starts it. */
#define APIPROF_GATE_WAKE 64ull
/* Sampled mode's gate and guard: APIPROF_GUARD_SAMPLE | epoch << this,
 * the epoch changing with N, so that a thread takes up a new N itself. */
#define APIPROF_GATE_EPOCH_SHIFT 8
/* The gate of an api timed other than the process (its own full or
 * sampled:N while the process times otherwise): APIPROF_GATE_OWN | N <<
 * APIPROF_GATE_N_SHIFT, N 0 for full.  Bit 5, which no guard word has,
 * and bit 0, which no pointer has (the guard compare before tls is
 * published): every call of the api goes out of line, where it is timed
 * or counted as N says (apiprof_slow.c). */
#define APIPROF_GATE_OWN     0x21ull
#define APIPROF_GATE_N_SHIFT 32

/* 25: the api's gate word (modes, issue 37), after slot; 24: one table of symbols (struct
 * apiprof_sym); 23: a call of the parked run timed in the wrapper without a swap
 * (APIPROF_CALL_PARKED), park_t0; 22: func_base starts APIPROF_FUNC_UNSET, set once
 * (apiprof_register); 21: the parked run (struct apiprof_sites, apiprof_unpark); 20: entries_end
 * (the wrappers' section); 19: sampled mode's timed calls inline (struct
 * apiprof_tls's apis and span); 18: the table's hist_xor (LZCNT buckets);
 * 17: sampled mode's untimed calls keep no `cur`; 16: per-site histograms
 * (hist_off); 15: the parent in the table */
#define APIPROF_SHIM_ABI 25u

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

#define APIPROF_TLS_GUARD     offsetof(struct apiprof_tls, guard)
#define APIPROF_TLS_COUNTDOWN offsetof(struct apiprof_tls, countdown)
#define APIPROF_TLS_API       offsetof(struct apiprof_tls, api)
#define APIPROF_TLS_RNG       offsetof(struct apiprof_tls, rng)
#define APIPROF_TLS_APIS      offsetof(struct apiprof_tls, apis)
#define APIPROF_TLS_SPAN      offsetof(struct apiprof_tls, span)
#define APIPROF_SLOT_TAB      offsetof(struct apiprof_tls_api, tab)
#define APIPROF_SLOT_FRAME    offsetof(struct apiprof_tls_api, frame)
#define APIPROF_TLS_CUR       offsetof(struct apiprof_tls, cur)

/* --- the deferred bucket: due and hist_off, encoded and decoded ------- */

/* The encoding of a histogram's place: the word offset of histogram h
 * from tab's sink (struct apiprof_row's hist_off, struct apiprof_tab's
 * due), from the integer addresses, as h may be in another block of the
 * arena (a site's). */
static inline int64_t apiprof_hist_off(const struct apiprof_tab *tab, const uint64_t *h)
{
	return ((int64_t)(intptr_t)h - (int64_t)(intptr_t)&tab->sink) / (int64_t)sizeof(uint64_t);
}

/* `due` of a timed call whose duration fell in bucket b of the histogram
 * at hist_off: what apiprof_hist_defer notes for the next timed call to
 * count. */
APIPROF_INLINE int64_t apiprof_due_of(int64_t hist_off, unsigned b)
{
	return hist_off + (int64_t)b;
}

/* The word that `due` says: a bucket, or the sink when none is pending
 * (0), which the next timed call increments either way. */
APIPROF_INLINE uint64_t *apiprof_due_word(struct apiprof_tab *tab, int64_t due)
{
	return &tab->sink + due;
}

/* The bucket of the histogram at hist_off that `due` says, or -1: what a
 * reader adds to its copy (apiprof_tab_due_in). */
static inline int apiprof_due_bucket(int64_t due, int64_t hist_off)
{
	int64_t b = due - hist_off;

	return due != 0 && b >= 0 && b < APIPROF_HIST_BUCKETS ? (int)b : -1;
}

#endif /* APIPROF_SHIM_LAYOUT_H */
