/* SPDX-License-Identifier: MIT */
/*
 * apiprof_shim.h - the call protocol between a generated shim and the
 * runtime: how a wrapper times a call.  It builds on two layers, the data
 * (apiprof_shim_layout.h) and the x86-64 primitives (apiprof_shim_x86.h);
 * the way out of a function that declares bytes or failures is in
 * apiprof_shim_acct.h.
 *
 * A generated shim defines one `struct apiprof_api` for its spec, names
 * its rows (APIPROF_ROW_NAME) and, for each function, exports a wrapper
 * shaped like this (gen/wrap/gen_wrap_timed.c writes it):
 *
 *	RET fn(ARGS)
 *	{
 *		fn_t f = real_fn;                        // NULL until resolved
 *		struct apiprof_call c;
 *		unsigned route = f != NULL ? apiprof_enter(&api, &c, ROW, apiprof_caller())
 *		                           : APIPROF_CALL_OUT;
 *		if (apiprof_likely(route == APIPROF_CALL_TIMED)) {
 *			apiprof_start(&api, &c, ROW);    // the clock, after every branch
 *			RET r = f(ARGS);
 *			apiprof_leave(&api, &c, ROW);    // no libc call: errno untouched
 *			return r;
 *		}
 *		if (route == APIPROF_CALL_PARKED) {      // the row's parked run
 *			apiprof_start_parked(&api, &c, ROW);
 *			RET r = f(ARGS);
 *			apiprof_leave_parked(&api, &c, ROW);
 *			return r;
 *		}
 *		if (apiprof_likely(route == APIPROF_CALL_COUNTED)) {
 *			RET r = f(ARGS);                 // sampled mode between timed calls
 *			apiprof_leave_counted(&api, &c, ROW);
 *			return r;
 *		}
 *		if (f != NULL && apiprof_nested(&api))
 *			return f(ARGS);                  // nested, not counted: a tail jump
 *		return slow_fn(ARGS, apiprof_sp(), apiprof_caller()); // the rest, out of line
 *	}
 *
 * Which shape of wrapper calls which way in and way out:
 *
 *	shape                    way in                 way out
 *	wrapper, timed           apiprof_enter          apiprof_start, apiprof_leave
 *	wrapper, parked run      apiprof_enter          apiprof_start_parked, apiprof_leave_parked
 *	wrapper, sampled count   apiprof_enter          apiprof_leave_counted
 *	wrapper, nested          apiprof_nested         (tail jump, nothing)
 *	out-of-line half         apiprof_enter_out      apiprof_start, apiprof_leave, or
 *	  (slow_fn)                (apiprof_enter_slow)   apiprof_leave_other (slow, counted)
 *	declaring (bytes/fails)  apiprof_enter_acct     the _acct forms of the above;
 *	                                                apiprof_acct_after out of line
 *	noreturn                 apiprof_count_noreturn (none: counted, never timed)
 *	one body (dynamic mode,  apiprof_enter_any      apiprof_start, apiprof_leave or
 *	  bench/flushcost)                              apiprof_leave_other
 *
 * The timed path and sampled mode's untimed calls are inline here and
 * touch only the calling thread's own memory: no lock, no syscall, no
 * allocation, no atomic read-modify-write.
 *
 * Invariants the hot path relies on, written nowhere else:
 *  - An api's published TLS offsets (struct apiprof_api's tls and slot)
 *    never change once published: a call in flight reloads them on its
 *    way out (apiprof_pop, apiprof_leave_acct), so zeroing or moving them
 *    would make it write into the thread control block.  Before they are
 *    published both are 0, which the guard compare sends out of line
 *    (offset 0 is the TCB's pointer to itself, never a valid guard).
 *  - slot is stored before tls (release) and the way in loads tls first
 *    (acquire): a call that sees tls sees slot.
 *  - Only the owning thread writes its table, its rows, its slot's frame
 *    word and its struct apiprof_tls; readers (the flusher, a viewer's
 *    copy) use relaxed loads, so the owner's stores are relaxed stores
 *    and adds are single unlocked instructions, never torn.
 *  - A frame word is 0 (no table), APIPROF_FRAME_IDLE (between calls) or
 *    the stack address of the outermost call of the api in progress; a
 *    stack address is 8-byte aligned, so the low bits are tags
 *    (APIPROF_FRAME_SLOW).  One compare with IDLE tells "has a table" and
 *    "not nested".
 *  - The guard word is 0 only in full timing with the runtime idle on the
 *    thread; any other value sends a call off the full-timing fast path.
 *  - Counts are added after times (volatile asm keeps program order and
 *    x86 keeps stores in order): a reader that loads calls first never
 *    sees more calls than timed ones.
 *  - The parent is put back before the frame goes idle, so a signal
 *    handler's call in between is nested or made in the parent.
 *  - A row's `due` is a word offset from its table's sink, 0 meaning none
 *    pending (apiprof_shim_layout.h encodes and decodes it); the pending
 *    bucket is counted by the next timed call, and readers add it.
 *  - The pointers to the real functions follow the api without padding,
 *    the first five on the line of tls, slot and gate (gen_emit.c).
 *  - Modes (issue 37): an api's gate word (struct apiprof_api's gate) is
 *    loaded once on the way in, which picks the route (enum apiprof_route);
 *    the way out follows the route and never reads the gate again.  So a
 *    call in progress when the mode changes ends as its way in began it:
 *    counted once, timed or not, or not at all, never half.  Switching
 *    changes the gate only, never tls or slot.  Only the steering
 *    (apiprof_steer.c) writes a gate; a thread takes up a new timing
 *    (full, sampled:N) itself, out of line, when its guard word differs
 *    from the gate and it has no call in progress (apiprof_slow.c): no
 *    thread writes another's state.
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

#include "apiprof_shim_layout.h"
#include "apiprof_shim_x86.h"

/* The out-of-line halves of the hot path: a nested or busy call, a
 * thread's first call of an api, sampled mode's timed calls, and every
 * call in slow mode.  apiprof_enter_slow fills in *c and returns an enum
 * apiprof_route, for a call of row idx from stack address sp (the
 * wrapper's); apiprof_leave_slow ends an APIPROF_CALL_SLOW call. */
APIPROF_EXPORT unsigned apiprof_enter_slow(struct apiprof_api *api, struct apiprof_call *c,
                                           uintptr_t sp, uint32_t idx, uintptr_t ret);
APIPROF_EXPORT void apiprof_leave_slow(const struct apiprof_api *api, uint64_t t0, uint32_t idx);

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

/* The way in of a call whose api's gate (w, loaded once) is not the
 * timing the thread's guard word holds.  Off (APIPROF_GATE_OFF) is asked
 * first: the wrapper forwards the call with its tail jump, so an off call
 * costs the instructions of a pass-through preload (14 added, callgrind)
 * and count mode's call 2 more.  Count mode (APIPROF_GATE_COUNT)
 * counts it inline, as sampled mode's untimed calls, while the thread has
 * its table, is not inside the api and the runtime is not busy on it
 * (its own calls are never counted).  Anything else goes out of line: a
 * thread that has not taken up the process's timing yet (apiprof_slow.c),
 * the runtime busy, the monotonic clock. */
APIPROF_INLINE unsigned apiprof_enter_gated(struct apiprof_call *c, uint64_t w)
{
	if (w == APIPROF_GATE_OFF)
		return APIPROF_CALL_FORWARD;
	if (w != APIPROF_GATE_COUNT || !apiprof_frame_idle(c->slot) ||
	    (apiprof_guard(c->tls) & APIPROF_GUARD_BUSY))
		return APIPROF_CALL_OUT;
	apiprof_frame_enter(c->slot);
	return APIPROF_CALL_COUNTED;
}

/* Decides what a call of row idx from return address ret is (enum
 * apiprof_route) as far as the inline fast path can.  The api's gate
 * word, on the line of tls and slot, is loaded once and compared with
 * the thread's guard word in memory: equal, the thread times the api's
 * calls as the gate says, full timing (0) or sampled mode (anything
 * else), with the gate in a register; not equal, it is off, count, or
 * out of line (apiprof_enter_gated).  Sampled mode's untimed calls, the
 * cheapest, are laid out straight through to the real call: the gate
 * and the compare, the api's frame word with IDLE and a decrement.
 * Taking a branch and comparing twice in memory on the way cost them
 * about 1 ns of their 3 to 5 (bench_driver -t fg, two builds of the shim
 * in one process); the timed call, with its two rdtsc, does not notice
 * the branch.  A thread in full timing with its table and not already
 * inside the api then costs the frame word's compare and the call's site
 * with the run's.  Anything else is APIPROF_CALL_OUT, for
 * apiprof_enter_slow.  *c is the caller's to fill in (apiprof_start). */
APIPROF_INLINE unsigned apiprof_enter(struct apiprof_api *api, struct apiprof_call *c, uint32_t idx,
                                      uintptr_t ret)
{
	uintptr_t t = apiprof_tls_of(api);
	uintptr_t slot = apiprof_slot_of(api);
	uint64_t w = apiprof_gate_of(api);

	c->slot = slot;
	c->tls = t;
	if (apiprof_unlikely(!apiprof_guard_is(t, w)))
		return apiprof_enter_gated(c, w);
	if (apiprof_likely(w != 0))
		return apiprof_enter_sampled(c, idx, ret);
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

/* The same in the wrapper itself (a macro, as apiprof_caller), and an
 * api that is off (APIPROF_GATE_OFF): the wrapper forwards the call
 * itself, with its tail jump, uncounted.  GCC computes the CFA from the
 * stack pointer; clang keeps a frame pointer in a function that asks for
 * it, which costs its wrappers a push, a move and a pop on every call. */
#define apiprof_nested(api)                                                                        \
	(apiprof_gate_of(api) == APIPROF_GATE_OFF ||                                               \
	 apiprof_nested_at((api), (uintptr_t)__builtin_dwarf_cfa()))

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

	apiprof_add(apiprof_due_word(tab, due), 1);
	/* the row's histogram for the run's site (hist_off): a plain load,
	 * only this thread writes the word */
	__atomic_store_n(&tab->due, apiprof_due_of(*hist_off, apiprof_hist_bucket_lz(tab, d)),
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

#include "apiprof_shim_acct.h"

#endif /* APIPROF_SHIM_H */
