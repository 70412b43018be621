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
 *		unsigned how = apiprof_enter(&api, &c);
 *		if (apiprof_likely(how == APIPROF_CALL_TIMED)) {
 *			apiprof_start(&c);               // the clock, after every branch
 *			RET r = real_fn(ARGS);
 *			apiprof_leave(&api, &c, IDX);    // no libc call: errno untouched
 *			return r;
 *		}
 *		if (apiprof_likely(how == APIPROF_CALL_COUNTED)) {
 *			RET r = real_fn(ARGS);           // sampled mode between timed calls
 *			apiprof_leave_counted(&api, &c, IDX);
 *			return r;
 *		}
 *		return slow_fn(ARGS, apiprof_sp());      // everything else, out of line
 *	}
 *
 * where slow_fn, a static function of the shim, does the same with
 * apiprof_enter_slow and apiprof_leave_other.  The timed path and sampled
 * mode's untimed calls are inline here and touch only the calling thread's
 * own memory: no lock, no syscall, no allocation, no atomic
 * read-modify-write.  The first call of an api on a thread goes out of
 * line (apiprof_thread_attach), which registers the thread and allocates
 * its table; so do nested calls, sampled mode's draws and the monotonic
 * clock (apiprof_slow.c).
 *
 * The per-thread state is reached through the thread pointer (%fs) and an
 * offset the runtime publishes in the api when it registers it, not through
 * a TLS symbol: a shim then has no TLS of its own, and loads even where no
 * static TLS is left (see apiprof_tls.c).
 */
#ifndef APIPROF_SHIM_H
#define APIPROF_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#include "apiprof_abi.h"

/* api ids are 1..61: bit 0 of the nest word is "runtime busy", bits 62
 * and 63 the thread's mode */
#define APIPROF_MAX_APIS  62
#define APIPROF_NEST_BUSY 1ull
/* Set in a thread's nest word in sampled mode: the one test of the fast
 * path fails, and the wrapper takes sampled mode's own inline path. */
#define APIPROF_NEST_SAMPLE (1ull << 62)
/* Set in a thread's nest word when its calls are not TSC-timed (the
 * monotonic clock): every call then goes out of line, and the fast path
 * never has to look at the clock. */
#define APIPROF_NEST_SLOW (1ull << 63)

#define APIPROF_EXPORT      __attribute__((visibility("default")))
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
};

/* Every statistics table (a thread's for one api, or an api's folded
 * totals) keeps the call counts of all its functions side by side, and the
 * rest of each function's numbers (struct apiprof_cold) before them:
 *
 *	[cold n-1] ... [cold 1] [cold 0] [sink due calls[0] calls[1] ...]
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
 * from `sink`, negative into a cold row, and 0 (the sink) when none is
 * pending.  Readers add the pending bucket themselves. */
struct apiprof_tab {
	uint64_t sink;
	int64_t due;
	uint64_t calls[];
};

/* 9 cache lines: the times in the first, the histogram in the other 8. */
struct apiprof_cold {
	uint64_t ticks;
	uint64_t min_ticks; /* UINT64_MAX until the first timed call */
	uint64_t max_ticks;
	uint64_t pad[5];
	uint64_t hist[APIPROF_HIST_BUCKETS];
};

#define APIPROF_COLD_WORDS (sizeof(struct apiprof_cold) / sizeof(uint64_t))
#define APIPROF_HIST_WORD0 (offsetof(struct apiprof_cold, hist) / sizeof(uint64_t))

/* Row i's cold part: the i+1-th before the table's head. */
static inline struct apiprof_cold *apiprof_tab_cold(struct apiprof_tab *tab, uint32_t i)
{
	return (struct apiprof_cold *)tab - (i + 1);
}

/* The per-thread hot state: at a fixed offset from the thread pointer in
 * every thread (static TLS), so one %fs-relative access reaches it.  The
 * runtime places it on a cache line of its own (apiprof_internal.h), and
 * the words every call touches come first: the nest word, the countdown,
 * and the slots of apis 1 and 2 share that line, so that a call of a
 * process's first two apis touches one line of TLS, not two. */
struct apiprof_tls {
	uint64_t nest; /* bit 0: busy; bit i: inside a call of api i; 62, 63: modes */
	/* Sampled mode: calls left up to and including the next timed one;
	 * 0 after it, when the next call draws a new countdown out of line
	 * (apiprof_slow.c says why there).  apiprof_enter decrements it
	 * first and looks at the result, so the call that goes out of line
	 * to draw finds UINT32_MAX here, which means the same as 0. */
	uint32_t countdown;
	uint32_t rng; /* sampled mode: xorshift32 state, 0 until first used */
	struct apiprof_tls_api {
		struct apiprof_tab *tab; /* this thread's table; api[0].tab stays NULL */
		uintptr_t frame;         /* stack address of the outermost call in progress */
	} api[APIPROF_MAX_APIS];
	uint32_t mode; /* APIPROF_MODE_*, this thread's copy, set on attach */
	uint32_t reserved;
};

/* One per generated shim (per spec).  Static storage in the shim; the
 * runtime fills in `id` when the api is first used. */
struct apiprof_api {
	uint32_t abi;                /* APIPROF_SHIM_ABI of the generating header */
	uint32_t id;                 /* 0 until registered, then 1..61 */
	const char *name;            /* "api" of the spec */
	const char *library;         /* "library" of the spec */
	const char *spec;            /* path of the spec, for messages */
	uint32_t nfuncs;             /* statistics rows */
	uint32_t func_base;          /* index of function 0 in the process table */
	const char *const *symbols;  /* per symbol: what is resolved */
	const char *const *versions; /* per symbol: its version or NULL */
	const char *const *display;  /* per row: the name shown to the user */
	const uint32_t *flags;       /* per row: APIPROF_FUNC_* */
	uint32_t *missing_warned;    /* per symbol, 0 until the missing stub warned */
	/* Entry points resolved (0: as many as rows).  Symbol i < nfuncs is
	 * row i's own; the ones after it are aliases (open64, __read_chk)
	 * whose wrappers count into the row of the function they alias. */
	uint32_t nsyms;
	/* Filled in by the runtime with the id, for the hot path: the api's
	 * nest bit, the bits of the nest word that do NOT keep a call off the
	 * fast path (all but the nest bit, busy and the modes), the offset of
	 * the thread's struct apiprof_tls from the thread pointer, and that of
	 * its slot for this api (apiprof_tls.api[id]), so that the hot path
	 * adds nothing to either.
	 *
	 * All 0 until registered, which is safe as it stands: offset 0 from
	 * the thread pointer is the TCB's pointer to itself (the x86-64 TLS
	 * ABI), never 0, and with no bit ignored it sends every call out of
	 * line.  nest_ignore is stored last and loaded first (release and
	 * acquire), so a call that sees it set sees the rest too. */
	uint64_t nest_bit;
	uint64_t nest_ignore;
	uint64_t tls;
	uint64_t slot;
};

#define APIPROF_SHIM_ABI 9u

/* How the hot path times calls.  0, the common case, is the TSC with every
 * call timed: the only case the inline fast path handles by itself. */
#define APIPROF_MODE_MONOTONIC 1u /* clock_gettime(CLOCK_MONOTONIC), a tick is 1 ns */
#define APIPROF_MODE_SAMPLE    2u /* time about one call in APIPROF_SAMPLE */

static inline uint32_t apiprof_api_nsyms(const struct apiprof_api *api)
{
	return api->nsyms ? api->nsyms : api->nfuncs;
}

/* What apiprof_enter decided about a call. */
enum apiprof_how {
	APIPROF_CALL_FORWARD, /* nested, runtime busy, or no table: just forward */
	APIPROF_CALL_TIMED,   /* apiprof_start, the call, apiprof_leave */
	APIPROF_CALL_COUNTED, /* sampled mode between two timed calls */
	APIPROF_CALL_SLOW,    /* the monotonic clock: timed out of line */
	APIPROF_CALL_OUT,     /* apiprof_enter only: ask apiprof_enter_slow */
};

/* The state a wrapper carries across the real call. */
struct apiprof_call {
	struct apiprof_tab *tab;
	uint64_t bit; /* the api's nest bit */
	uint64_t t0;  /* the start; 0 for a counted call in slow mode */
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
APIPROF_EXPORT void apiprof_register(struct apiprof_api *api);
APIPROF_EXPORT void apiprof_count_noreturn(struct apiprof_api *api, uint32_t idx);
APIPROF_EXPORT void apiprof_set_mode(uint32_t mode); /* enum apiprof_proc_mode */

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

/* The stack pointer, to tell a nested call (deeper) from one that a
 * longjmp left behind; one instruction, and it keeps the call state out
 * of memory, which taking an address would not. */
APIPROF_INLINE uintptr_t apiprof_sp(void)
{
	uintptr_t sp;

	__asm__("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* floor(log2(d)), 0 for d <= 1: 64 buckets cover every duration. */
APIPROF_INLINE unsigned apiprof_hist_bucket(uint64_t d)
{
	return 63u - (unsigned)__builtin_clzll(d | 1u);
}

/* The out-of-line halves of the hot path: a nested or busy call, a
 * thread's first call of an api, sampled mode's timed calls, and every
 * call in slow mode.  apiprof_enter_slow fills in *c and returns an enum
 * apiprof_how; apiprof_leave_slow ends an APIPROF_CALL_SLOW call. */
APIPROF_EXPORT unsigned apiprof_enter_slow(struct apiprof_api *api, struct apiprof_call *c,
                                           uintptr_t sp);
APIPROF_EXPORT void apiprof_leave_slow(struct apiprof_tab *tab, uint64_t bit, uint64_t t0,
                                       uint32_t idx);

/* Loads and stores of the calling thread's state, at an offset from %fs.
 * Inline asm rather than GCC's __seg_fs: the sanitizers would check such an
 * access as if the offset were an ordinary address.  volatile keeps them in
 * program order, among themselves and with apiprof_add; the stores that mark
 * a call in or out of an api also clobber memory, so the runtime's own view
 * of the block (a plain pointer, apiprof_internal.h) is never stale. */
APIPROF_INLINE uint64_t apiprof_fs_load(uintptr_t off)
{
	uint64_t v;

	__asm__ volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(off));
	return v;
}

APIPROF_INLINE void apiprof_fs_store(uintptr_t off, uint64_t v)
{
	__asm__ volatile("movq %1, %%fs:(%0)" : : "r"(off), "r"(v) : "memory");
}

APIPROF_INLINE void apiprof_fs_clear(uintptr_t off, uint64_t bits)
{
	__asm__ volatile("andq %1, %%fs:(%0)" : : "r"(off), "r"(~bits) : "memory");
}

/* Where the calling thread's struct apiprof_tls is, from %fs, for a
 * registered api (see tls above); its fields are at offsetof from there. */
APIPROF_INLINE uintptr_t apiprof_tls_of(const struct apiprof_api *api)
{
	return (uintptr_t)__atomic_load_n(&api->tls, __ATOMIC_ACQUIRE);
}

#define APIPROF_TLS_NEST      offsetof(struct apiprof_tls, nest)
#define APIPROF_TLS_COUNTDOWN offsetof(struct apiprof_tls, countdown)
#define APIPROF_TLS_API       offsetof(struct apiprof_tls, api)
#define APIPROF_SLOT_TAB      offsetof(struct apiprof_tls_api, tab)
#define APIPROF_SLOT_FRAME    offsetof(struct apiprof_tls_api, frame)

/* The thread's countdown (t: its struct apiprof_tls), less one; *zero and
 * *neg tell whether the result is 0 or, taken as signed, negative: the
 * flags of the one instruction, so nothing is loaded or compared again. */
APIPROF_INLINE void apiprof_countdown_dec(uintptr_t t, _Bool *zero, _Bool *neg)
{
	__asm__ volatile("decl %%fs:%c3(%2)"
	                 : "=@ccz"(*zero), "=@ccs"(*neg)
	                 : "r"(t), "i"(APIPROF_TLS_COUNTDOWN)
	                 : "memory");
}

/* Marks the call as being inside the api: only its outermost call counts.
 * Plain read-modify-write of our own TLS word: a signal handler that
 * interrupts it sets and clears its own bit before returning, so the word
 * is the same again when we store it.  The frame is where this call is on
 * the stack: if a longjmp skips our leave, the next call finds the bit set
 * but its own frame at or above this one, and knows the outer call is
 * gone. */
APIPROF_INLINE void apiprof_nest_in(uintptr_t t, uint64_t nest, uint64_t bit, uintptr_t slot)
{
	apiprof_fs_store(t + APIPROF_TLS_NEST, nest | bit);
	/* The stack pointer straight into the slot: one instruction. */
	__asm__ volatile("movq %%rsp, %%fs:%c1(%0)"
	                 :
	                 : "r"(slot), "i"(APIPROF_SLOT_FRAME)
	                 : "memory");
}

/* Decides what this call is (enum apiprof_how) as far as the inline fast
 * path can, and fills in *c for it.  The common case, a thread with its
 * table that is not already inside the api, in the default mode, costs
 * one test of the nest word against the api's mask; sampled mode's
 * untimed calls, and the timed call its countdown comes down to, stay
 * inline as well.  Anything else is APIPROF_CALL_OUT, for
 * apiprof_enter_slow.  nest_ignore is loaded first, with acquire: it pairs
 * with the release that stores it last in apiprof_register. */
APIPROF_INLINE unsigned apiprof_enter(struct apiprof_api *api, struct apiprof_call *c)
{
	uint64_t ignore = __atomic_load_n(&api->nest_ignore, __ATOMIC_ACQUIRE);
	uintptr_t t = apiprof_tls_of(api);
	uint64_t nest = apiprof_fs_load(t + APIPROF_TLS_NEST);
	uint64_t off = nest & ~ignore;
	uintptr_t slot = (uintptr_t)__atomic_load_n(&api->slot, __ATOMIC_RELAXED);

	c->tab = (struct apiprof_tab *)apiprof_fs_load(slot + APIPROF_SLOT_TAB);
	c->bit = apiprof_load(&api->nest_bit);
	if (apiprof_likely(off == 0 && c->tab != NULL)) {
		apiprof_nest_in(t, nest, c->bit, slot);
		return APIPROF_CALL_TIMED;
	}
	if (apiprof_likely(off == APIPROF_NEST_SAMPLE && c->tab != NULL)) {
		_Bool timed, draw;

		/* Countdowns are at most 2N-2 < 2^31: only 0 comes out negative */
		apiprof_countdown_dec(t, &timed, &draw);
		if (apiprof_likely(!draw)) {
			apiprof_nest_in(t, nest, c->bit, slot);
			return timed ? APIPROF_CALL_TIMED : APIPROF_CALL_COUNTED;
		}
	}
	return APIPROF_CALL_OUT;
}

/* apiprof_enter, then apiprof_enter_slow where it cannot decide: for a
 * caller with a single body (dynamic mode's handlers).  The slow path fills
 * in a copy of the call state: were the address of the caller's own passed
 * out of line, the compiler would keep it in memory. */
APIPROF_INLINE unsigned apiprof_enter_any(struct apiprof_api *api, struct apiprof_call *c)
{
	struct apiprof_call tmp;
	unsigned how = apiprof_enter(api, c);

	if (apiprof_likely(how != APIPROF_CALL_OUT))
		return how;
	how = apiprof_enter_slow(api, &tmp, apiprof_sp());
	*c = tmp;
	return how;
}

/* The first timestamp of an APIPROF_CALL_TIMED call, read in the wrapper
 * after every branch on the way in: a mispredicted one inside the measured
 * window would bias sampled mode, whose timed calls are the rare ones. */
APIPROF_INLINE void apiprof_start(struct apiprof_call *c)
{
	c->t0 = __rdtsc();
}

/* Counts a duration in its histogram bucket.  The increment of a bucket
 * chosen by the duration just measured is a store whose address is known
 * only once the TSC has been read; everything after it on the thread then
 * waits for it, which costs about a quarter of the time of a call.  So the
 * bucket is only noted, and the one noted by the previous timed call is
 * incremented instead: its address comes from a load that is ready long
 * before. */
APIPROF_INLINE void apiprof_hist_defer(struct apiprof_tab *tab, uint32_t idx, uint64_t d)
{
	int64_t due = __atomic_load_n(&tab->due, __ATOMIC_RELAXED);

	apiprof_add(&tab->sink + due, 1);
	__atomic_store_n(&tab->due,
	                 (int64_t)(APIPROF_HIST_WORD0 + apiprof_hist_bucket(d)) -
	                         (int64_t)(idx + 1) * (int64_t)APIPROF_COLD_WORDS,
	                 __ATOMIC_RELAXED);
}

/* The rest of a timed call's record. */
APIPROF_INLINE void apiprof_record_time(struct apiprof_cold *s, uint64_t d)
{
	apiprof_add(&s->ticks, d);
	if (apiprof_unlikely(d < apiprof_load(&s->min_ticks)))
		apiprof_store(&s->min_ticks, d);
	if (apiprof_unlikely(d > apiprof_load(&s->max_ticks)))
		apiprof_store(&s->max_ticks, d);
}

/* Ends an APIPROF_CALL_TIMED call of row idx of api.  `calls` is added
 * last (the adds are volatile asm, so they stay in order, and x86 keeps
 * stores in order): the runtime reads calls first, so a snapshot never has
 * more calls than timed ones. */
APIPROF_INLINE void apiprof_leave(const struct apiprof_api *api, const struct apiprof_call *c,
                                  uint32_t idx)
{
	uint64_t d = __rdtsc() - c->t0;

	apiprof_hist_defer(c->tab, idx, d);
	apiprof_record_time(apiprof_tab_cold(c->tab, idx), d);
	apiprof_add(&c->tab->calls[idx], 1);
	apiprof_fs_clear(apiprof_tls_of(api) + APIPROF_TLS_NEST, c->bit);
}

/* Ends an APIPROF_CALL_COUNTED call of row idx of api. */
APIPROF_INLINE void apiprof_leave_counted(const struct apiprof_api *api,
                                          const struct apiprof_call *c, uint32_t idx)
{
	apiprof_add(&c->tab->calls[idx], 1);
	apiprof_fs_clear(apiprof_tls_of(api) + APIPROF_TLS_NEST, c->bit);
}

/* Ends any other call of row idx of api. */
APIPROF_INLINE void apiprof_leave_other(const struct apiprof_api *api, const struct apiprof_call *c,
                                        unsigned how, uint32_t idx)
{
	if (how == APIPROF_CALL_COUNTED)
		apiprof_leave_counted(api, c, idx);
	else if (how == APIPROF_CALL_SLOW)
		apiprof_leave_slow(c->tab, c->bit, c->t0, idx);
}

#endif /* APIPROF_SHIM_H */
