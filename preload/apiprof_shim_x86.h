/* SPDX-License-Identifier: MIT */
/*
 * apiprof_shim_x86.h - the x86-64 primitives of the hot path: relaxed
 * loads and stores, an unlocked add kept in program order, the stack
 * pointer, the LZCNT bucket, and the loads, stores and compares of the
 * calling thread's state at an offset from %fs (its guard word, frame
 * words, innermost call and countdown), and the parked run's swap.  Each
 * is a few instructions, named for its meaning; apiprof_shim.h builds the
 * way in and the way out from them.
 */
#ifndef APIPROF_SHIM_X86_H
#define APIPROF_SHIM_X86_H

#include <x86intrin.h>

#include "apiprof_shim_layout.h"

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

/* The api's gate word (struct apiprof_api's gate): a plain load from
 * the line of tls and slot, made once by the way in.  The steering may
 * change it at any time; a call goes on with the value it loaded. */
APIPROF_INLINE uint64_t apiprof_gate_of(const struct apiprof_api *api)
{
	return __atomic_load_n(&api->gate, __ATOMIC_RELAXED);
}

/* Whether both the thread's guard word (t: its struct apiprof_tls) and
 * api's gate are 0 (full timing): the gate or'ed with the word in memory,
 * one instruction after the gate's load, which a declaring function's way
 * in takes first (apiprof_enter_acct). */
APIPROF_INLINE _Bool apiprof_guard_gate_zero(uintptr_t t, const struct apiprof_api *api)
{
	uint64_t x = apiprof_gate_of(api);
	_Bool z;

	__asm__ volatile("orq %%fs:%c3(%2), %1"
	                 : "=@ccz"(z), "+r"(x)
	                 : "r"(t), "i"(APIPROF_TLS_GUARD));
	return z;
}

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

#endif /* APIPROF_SHIM_X86_H */
