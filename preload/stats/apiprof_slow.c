/* SPDX-License-Identifier: MIT */
/*
 * apiprof_slow.c - the out-of-line halves of the hot path.
 *
 * The inline apiprof_enter/apiprof_leave handle a thread that already has
 * its table making an outermost call from the site of the row's run, in
 * the default mode (TSC, every call timed) or in sampled mode, whose timed
 * calls they handle only while no call is in progress on the thread.
 * Everything else comes here: the runtime busy on this thread, a nested
 * call (or one that finds a frame an unwinding left behind), the thread's
 * first call of an api, a new site, the monotonic clock, sampled
 * mode's timed calls made inside a call of another api, and every call
 * of an api timed other than the process (APIPROF_GATE_OWN: own_route).
 */
#include <errno.h>
#include <signal.h>

#include "apiprof_cct.h"
#include "apiprof_internal.h"
#include "apiprof_steer.h"

/* A timestamp in this thread's clock. */
static inline uint64_t tick(const struct apiprof_tls *t)
{
	if (!(t->mode & APIPROF_MODE_MONOTONIC))
		return __rdtsc();
	return apiprof_clock_mono();
}

/* A countdown drawn uniformly from [1, span] by the thread's xorshift32,
 * as a timed call's inline (apiprof_sample_redraw); the first one seeds
 * the state. */
static uint32_t draw(struct apiprof_tls *t, uint32_t span)
{
	uint32_t x = t->rng;

	if (x == 0)
		x = (uint32_t)__rdtsc() | 1u;
	t->rng = x = apiprof_xorshift32(x);
	return apiprof_countdown_of(x, span);
}

/* Sampled mode: a new countdown drawn uniformly from [1, 2N-1], so that
 * the timed calls cannot lock onto a periodic pattern of the program's
 * calls: they are 1 to 2N-1 calls apart, N on average. */
void apiprof_sample_draw(struct apiprof_tls *t)
{
	t->countdown = draw(t, t->span);
}

/* Sampled mode: is this call one to time?  The countdown counts down to
 * the timed call, as apiprof_enter does inline, and the timed call draws
 * the next one before its clock starts, as apiprof_enter_due does.  A
 * countdown of 0 (UINT32_MAX once apiprof_enter has decremented it) has
 * not been drawn yet: that call draws and is not timed. */
static bool sample_due(struct apiprof_tls *t)
{
	if (t->countdown == 0 || t->countdown == UINT32_MAX) {
		apiprof_sample_draw(t);
		return false;
	}
	if (--t->countdown != 0)
		return false;
	apiprof_sample_draw(t);
	return true;
}

/* Whether the thread has a call of any api in progress. */
static bool in_any_call(const struct apiprof_tls *t)
{
	for (uint32_t id = 1; id <= t->apis && id < APIPROF_MAX_APIS; id++)
		if (t->api[id].frame > APIPROF_FRAME_IDLE)
			return true;
	return false;
}

/* Modes (issue 37): the thread takes up the process's timing
 * (apiprof_timing_gate: full 0, sampled mode APIPROF_GUARD_SAMPLE and the
 * process's epoch), itself, between calls: with no call of any api in
 * progress, a full-timing thread's innermost call is none, and sampled
 * mode's draws start afresh with the process's N.  With one in progress
 * it keeps its timing for now (that call's way out is its way in's) and
 * comes here again on its next call out of line, which the gates of the
 * apis timed as the process send it on.  An api's own timing is never a
 * thread's (own_route). */
void apiprof_timing_take_up(struct apiprof_tls *t)
{
	uint64_t keep = t->guard & (APIPROF_GUARD_BUSY | APIPROF_GUARD_SLOW);
	uint64_t w = __atomic_load_n(&apiprof_timing_gate, __ATOMIC_ACQUIRE);

	if ((t->guard & ~keep) == w || in_any_call(t))
		return;
	t->mode = (uint16_t)__atomic_load_n(&apiprof_timing, __ATOMIC_ACQUIRE);
	if (w & APIPROF_GUARD_SAMPLE) {
		uint32_t n = __atomic_load_n(&apiprof_sample, __ATOMIC_ACQUIRE);

		t->span = 2u * (n > 1 ? n : 2u) - 1u;
		apiprof_sample_draw(t);
	} else {
		t->cur = APIPROF_PARENT_NONE;
	}
	t->guard = keep | w;
}

/* Whether this thread runs on its alternate signal stack while the stack
 * address `frame` lies off it: a signal handler's call, made while the
 * call at `frame` on the interrupted stack is in progress.  A system call,
 * but only for a call at or above a frame in progress, which without a
 * signal on another stack happens once after an unwinding the runtime did
 * not see, and for the catch of an exception that ends calls
 * (apiprof_unwind.c). */
bool apiprof_handler_off_frame(uintptr_t frame)
{
	uint64_t busy = apiprof_busy_enter();
	int saved = errno;
	stack_t ss;
	bool away = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK) &&
	            frame - (uintptr_t)ss.ss_sp >= ss.ss_size;

	errno = saved;
	apiprof_busy_leave(busy);
	return away;
}

/* A thread's entry, from its block: set whenever the thread has a table
 * (apiprof_thread_attach), so whenever one of its frame words is. */
static struct apiprof_thread *self_of(struct apiprof_tls *t)
{
	return ((struct apiprof_tls_block *)t)->self;
}

uint32_t apiprof_slow_row(struct apiprof_tls *t, uint32_t id)
{
	uintptr_t frame = t->api[id].frame;

	if (frame <= APIPROF_FRAME_IDLE || !(frame & APIPROF_FRAME_SLOW) ||
	    self_of(t)->slow_frame[id] != (frame & ~(uintptr_t)APIPROF_FRAME_TAGS))
		return UINT32_MAX;
	return self_of(t)->slow_row[id];
}

/* The thread's innermost call after calls were abandoned, the outermost
 * of which was made in `parent` (0: not known): none
 * when no call is in progress any more, else one the call tree cannot
 * name until that call ends and puts its own parent back. */
void apiprof_cur_after_abandon(struct apiprof_tls *t, uint64_t parent)
{
	bool any = false;

	for (uint32_t id = 1; id <= apiprof_api_count() && id < APIPROF_MAX_APIS; id++)
		any |= t->api[id].frame > APIPROF_FRAME_IDLE;
	if (parent == 0)
		parent = any ? APIPROF_PARENT_UNKNOWN : APIPROF_PARENT_NONE;
	t->cur = parent;
}

uint64_t apiprof_abandon(struct apiprof_tls *t, uint32_t id, uint32_t row)
{
	const struct apiprof_api *api = apiprof_api_get(id);
	struct apiprof_tls_api *s = &t->api[id];
	uint64_t parent = 0;
	/* sampled and count mode's untimed inline calls keep no parent (the
	 * table's is not this call's), and a timed one has none: 0 tells
	 * both; once either mode was used (the sample bit is kept), a call
	 * entered inline may be one of those */
	bool kept = (s->frame & APIPROF_FRAME_SLOW) ||
	            !((t->mode | __atomic_load_n(&apiprof_timing, __ATOMIC_RELAXED)) &
	              APIPROF_MODE_SAMPLE);

	if (s->tab != NULL) {
		if (api != NULL && row < api->nfuncs)
			apiprof_sites_abandoned(s->tab, row);
		if (kept)
			parent = apiprof_load(&s->tab->parent);
	}
	s->frame = APIPROF_FRAME_IDLE;
	return parent;
}

void apiprof_abandon_unwound(struct apiprof_tls *t, const struct apiprof_unwinding *u)
{
	uint32_t n = apiprof_api_count();
	uintptr_t top = 0;
	uint64_t parent = 0;

	for (uint32_t id = 1; id <= n && id < APIPROF_MAX_APIS; id++) {
		uintptr_t frame = t->api[id].frame & ~(uintptr_t)APIPROF_FRAME_TAGS;

		if (t->api[id].frame <= APIPROF_FRAME_IDLE || !u->left(u, frame))
			continue;
		uint64_t p = apiprof_abandon(t, id, u->row(u, t, id, frame));
		if (frame > top) {
			top = frame;
			parent = p;
		}
	}
	if (top != 0)
		apiprof_cur_after_abandon(t, parent);
}

/* A call of api id from stack address sp while the thread's frame word
 * for it says a call is in progress.  On the same stack, a deeper call is
 * nested in it; one at or above it finds a frame that an unwinding the
 * longjmp and exception hooks did not see (setcontext) left behind
 * (stacks grow down; a frame at the same address cannot be nested in
 * itself): that call is ended, not counted (its row is known only when it
 * came out of line, which a change of call site also does: counting those
 * would make the count depend on where the calls came from), and this one
 * takes its place.  A signal handler's call on the alternate stack is nested in the
 * call it interrupted wherever that stack lies, as it is on the thread's
 * own stack (below the interrupted call).  Out of the way of sampled
 * mode's draws, which come here too. */
static __attribute__((noinline, cold)) bool nested(struct apiprof_tls *t, uint32_t id, uintptr_t sp)
{
	uintptr_t frame = t->api[id].frame & ~(uintptr_t)APIPROF_FRAME_TAGS;

	if (sp < frame || apiprof_handler_off_frame(frame))
		return true;
	uint64_t parent = apiprof_abandon(t, id, UINT32_MAX);

	apiprof_cur_after_abandon(t, parent);
	return false;
}

/* Marks the outermost call of row idx as in progress, from the wrapper's
 * stack address sp.  The record first, then the frame word tagged as
 * entered here: a signal handler's call in between makes its own record,
 * which then does not match this frame, so a row is never misplaced. */
static void frame_enter(struct apiprof_tls *t, uint32_t id, uintptr_t sp, uint32_t idx)
{
	struct apiprof_thread *th = self_of(t);

	/* relaxed: the flusher reads them too (apiprof_inflight.c) */
	apiprof_write_once(&th->slow_frame[id], sp);
	apiprof_write_once(&th->slow_row[id], idx);
	apiprof_compiler_barrier();
	t->api[id].frame = sp | APIPROF_FRAME_SLOW;
}

/* The site of a timed call of row idx from return address ret while
 * `parent` was in progress: nothing when it is the site of the run in
 * progress (whose figures are the row's since the run began), else the
 * run ends here (apiprof_site_switch).  Before the clock starts. */
static void site_check(struct apiprof_tab *tab, uint32_t idx, uint64_t ret, uint64_t parent)
{
	uint64_t key = ret << 16 | parent;

	if (key != apiprof_tab_row(tab, idx)->last)
		apiprof_site_switch(tab, idx, key);
}

/* Sampled mode: the parent of a timed call of api id made from stack
 * address sp.  The untimed calls between two timed ones keep no call
 * tree (that would cost each of them more than the rest of its way in
 * and out), so the thread's innermost call (`cur`) is not known here.
 * The frame words are: every api with a call in progress has one, and
 * the innermost of those calls is the one with the lowest frame above sp
 * (stacks grow down).  Its row is in the thread's entry when it came out
 * of line, else found from its return address (apiprof_wrappers.c),
 * which lies in the live stack between sp and that frame.  A frame more
 * than STACK_SPAN above sp is taken to be on another stack (a signal
 * handler's call on an alternate stack, made while the thread was inside
 * that call): its return address is not looked for, since the words
 * below it may lie below what the interrupted code had touched of its
 * stack.  On an alternate stack above the thread's, the call finds none.
 * Not inline: its loop's registers would be saved by every call that
 * comes out of line with the TSC (tsc_route), a new site's too. */
#define STACK_SPAN (1u << 20)

static __attribute__((noinline)) uint64_t parent_of_frames(struct apiprof_tls *t, uint32_t id,
                                                           uintptr_t sp)
{
	uintptr_t best = UINTPTR_MAX;
	uint32_t in = 0;
	uint32_t n = apiprof_api_count();

	for (uint32_t k = 1; k <= n && k < APIPROF_MAX_APIS; k++) {
		uintptr_t frame = t->api[k].frame & ~(uintptr_t)APIPROF_FRAME_TAGS;

		if (k != id && t->api[k].frame > APIPROF_FRAME_IDLE && frame > sp && frame < best) {
			best = frame;
			in = k;
		}
	}
	if (in == 0)
		return APIPROF_PARENT_NONE;
	bool inline_entered = !(t->api[in].frame & APIPROF_FRAME_SLOW);
	if (inline_entered && best - sp > STACK_SPAN)
		return APIPROF_PARENT_UNKNOWN;
	uint32_t row =
	        inline_entered ? apiprof_wrappers_below(in, best, sp) : apiprof_slow_row(t, in);
	const struct apiprof_api *api = apiprof_api_get(in);
	if (api == NULL || row >= api->nfuncs || t->api[in].tab == NULL)
		return APIPROF_PARENT_UNKNOWN;
	uint64_t self = apiprof_load(&apiprof_tab_row(t->api[in].tab, row)->self);
	/* a row with no timed call yet: its call's own context is not known,
	 * but it is a call of its function (apiprof_cct.c) */
	return self != APIPROF_PARENT_UNKNOWN ? self : apiprof_cct_unknown(t->api[in].tab, row);
}

/* Makes the call of row s the thread's innermost, as apiprof_push does
 * inline for the calls that apiprof_start starts. */
static void push(struct apiprof_tls *t, struct apiprof_tab *tab, struct apiprof_row *s)
{
	apiprof_store(&tab->parent, t->cur);
	t->cur = apiprof_load(&s->self);
}

/* What a call of row idx of api id from stack address sp that passed
 * the guards is, when the thread times with the TSC: in full timing a
 * call from a new site (the switch of site is why it came here), in
 * sampled mode one the countdown came down to that the inline way in
 * could not time (another api's call in progress, its parent, which it
 * finds from the frames, or a new site), or the call that draws the first
 * countdown.  Its untimed calls are no parents.  Inline in
 * apiprof_enter_slow (route_of), apart from the monotonic clock's case
 * (mono_route), whose registers a program whose calls switch site every
 * call (an interpreter's malloc) paid for on most of them: 214
 * instructions a call of that workload with a call of tsc_route, 202
 * inline. */
APIPROF_INLINE unsigned tsc_timed(struct apiprof_tls *t, uint32_t id, uint32_t idx, uintptr_t sp,
                                  uintptr_t ret)
{
	if (t->guard & APIPROF_GUARD_SAMPLE)
		t->cur = parent_of_frames(t, id, sp); /* apiprof_start pushes it */
	site_check(t->api[id].tab, idx, ret, t->cur);
	return APIPROF_CALL_TIMED;
}

APIPROF_INLINE unsigned tsc_route(struct apiprof_tls *t, uint32_t id, uint32_t idx, uintptr_t sp,
                                  uintptr_t ret)
{
	if ((t->guard & APIPROF_GUARD_SAMPLE) && !sample_due(t))
		return APIPROF_CALL_COUNTED;
	return tsc_timed(t, id, idx, sp, ret);
}

/* tsc_route with the monotonic clock, for a call to be timed or not: a
 * call timed here keeps its start in the row, as apiprof_start does
 * inline, and since the wrapper's apiprof_start does not start it, it is
 * made the innermost call here (timed or not: every call of this clock
 * comes here, so `cur` is kept). */
static unsigned mono_route(struct apiprof_tls *t, struct apiprof_call *c, uint32_t id, uint32_t idx,
                           uintptr_t ret, bool timed)
{
	struct apiprof_tab *tab = t->api[id].tab;
	struct apiprof_row *s = apiprof_tab_row(tab, idx);
	uint64_t parent = t->cur;

	if (timed) /* as apiprof_start does inline; before the push, which
	            * pushes the node the switch sets (apiprof_cct.c) */
		site_check(tab, idx, ret, parent);
	push(t, tab, s);
	c->t0 = timed ? tick(t) : 0; /* 0: counted, not timed */
	if (timed)
		apiprof_store(&s->t0, c->t0);
	return APIPROF_CALL_SLOW;
}

/* What a call of row idx of api id from stack address sp that passed
 * the guards is, by the thread's clock. */
APIPROF_INLINE unsigned route_of(struct apiprof_tls *t, struct apiprof_call *c, uint32_t id,
                                 uint32_t idx, uintptr_t sp, uintptr_t ret)
{
	if (!(t->guard & APIPROF_GUARD_SLOW))
		return tsc_route(t, id, idx, sp, ret);
	return mono_route(t, c, id, idx, ret, !(t->guard & APIPROF_GUARD_SAMPLE) || sample_due(t));
}

/* An api timed other than the process (its gate w, APIPROF_GATE_OWN):
 * whether this call of it is timed.  Full (N 0): every call.  Sampled:N:
 * the thread's countdown for the api (struct apiprof_thread's own_left),
 * drawn from the thread's xorshift32 and counted down as sample_due
 * counts the process's: the first call with a new N draws and is not
 * timed, the one the countdown comes down to draws the next. */
static bool own_due(struct apiprof_tls *t, uint32_t id, uint64_t w)
{
	uint32_t n = (uint32_t)(w >> APIPROF_GATE_N_SHIFT);
	struct apiprof_thread *th = self_of(t);

	if (n == 0)
		return true;
	if (th->own_n[id] != n || th->own_left[id] == 0) {
		th->own_n[id] = n;
		th->own_left[id] = draw(t, 2u * n - 1u);
		return false;
	}
	if (--th->own_left[id] != 0)
		return false;
	th->own_left[id] = draw(t, 2u * n - 1u);
	return true;
}

/* A call of row idx of api id timed other than the process (gate w),
 * whatever the thread's timing: timed or counted as own_due says, with
 * the same accounting as the process's timing (a timed call's way in and
 * out, or APIPROF_CALL_COUNTED's), so its calls stay exact.  A timed
 * call's parent is the thread's innermost call in full timing; in
 * sampled mode, which keeps none, it is found from the frames as sampled
 * mode's timed calls find theirs (tsc_timed).  Every call of such an api
 * comes here: the price of a timing other than the thread's. */
static __attribute__((noinline)) unsigned own_route(struct apiprof_call *c, uint32_t id,
                                                    uint32_t idx, uintptr_t sp, uintptr_t ret,
                                                    uint64_t w)
{
	struct apiprof_tls *t = apiprof_tls_self();
	bool due = own_due(t, id, w);

	if (t->guard & APIPROF_GUARD_SLOW)
		return mono_route(t, c, id, idx, ret, due);
	if (!due)
		return APIPROF_CALL_COUNTED;
	return tsc_timed(t, id, idx, sp, ret);
}

/* Whether gate w is an api's own timing (APIPROF_GATE_OWN). */
APIPROF_INLINE bool own_gate(uint64_t w)
{
	return (w & APIPROF_GATE_OWN) == APIPROF_GATE_OWN;
}

/* Every case of a call that left the inline path: not started, runtime
 * busy, first call, a frame in progress. */
static __attribute__((noinline)) unsigned enter_general(struct apiprof_api *api,
                                                        struct apiprof_call *c, uintptr_t sp,
                                                        uint32_t idx, uintptr_t ret)
{
	/* A dormant runtime woken: this call starts it (apiprof_dormant.c). */
	if (apiprof_gate_of(api) == APIPROF_GATE_WAKE && !apiprof_dormant_wake(api))
		return APIPROF_CALL_FORWARD;
	uint32_t id = apiprof_load_acquire(&api->id);

	/* Nothing touches the thread's state before it has a home; the first
	 * call may be the one that starts the runtime. */
	if (!apiprof_ready() || !apiprof_tls_ok())
		return APIPROF_CALL_FORWARD;
	struct apiprof_tls *t = apiprof_tls_self();
	if (t->guard & APIPROF_GUARD_BUSY)
		return APIPROF_CALL_FORWARD;
	if (apiprof_gate_of(api) == APIPROF_GATE_OFF) /* no table, no count */
		return APIPROF_CALL_FORWARD;
	if (id == 0 || t->api[id].tab == NULL) { /* NULL too for an api off */
		if (apiprof_thread_attach(api) == NULL)
			return APIPROF_CALL_FORWARD;
		id = api->id;
	} else if (t->api[id].frame != APIPROF_FRAME_IDLE && nested(t, id, sp)) {
		return APIPROF_CALL_FORWARD;
	}
	uint64_t w = apiprof_gate_of(api);
	/* registered just now by the attach, as a woken runtime's other
	 * threads do, under the mode of the moment: off, not counted */
	if (w & (APIPROF_GATE_OFF | APIPROF_GATE_WAKE))
		return APIPROF_CALL_FORWARD;
	apiprof_timing_take_up(t);
	frame_enter(t, id, sp, idx);
	if (w == APIPROF_GATE_COUNT)
		return APIPROF_CALL_COUNTED; /* counted, no clock, no tree */
	if (own_gate(w))
		return own_route(c, id, idx, sp, ret, w);
	return route_of(t, c, id, idx, sp, ret);
}

/* The common case first, with no call on its way, so that it saves no
 * registers: a new site, sampled mode's timed calls, and the
 * monotonic clock's calls, on a started runtime, by a thread with its
 * table and no call of the api in progress.  Everything else is
 * enter_general's. */
unsigned apiprof_enter_slow(struct apiprof_api *api, struct apiprof_call *c, uintptr_t sp,
                            uint32_t idx, uintptr_t ret)
{
	uint32_t id = apiprof_load_acquire(&api->id);

	if (!apiprof_started() || !apiprof_tls_ok())
		return enter_general(api, c, sp, idx, ret);
	struct apiprof_tls *t = apiprof_tls_self();
	uint64_t w = apiprof_gate_of(api);
	if ((t->guard & APIPROF_GUARD_BUSY) || id == 0 || t->api[id].tab == NULL ||
	    t->api[id].frame != APIPROF_FRAME_IDLE || (w & (APIPROF_GATE_OFF | APIPROF_GATE_WAKE)))
		return enter_general(api, c, sp, idx, ret);
	apiprof_timing_take_up(t);
	frame_enter(t, id, sp, idx);
	if (w == APIPROF_GATE_COUNT)
		return APIPROF_CALL_COUNTED;
	if (apiprof_unlikely(own_gate(w)))
		return own_route(c, id, idx, sp, ret, w);
	return route_of(t, c, id, idx, sp, ret);
}

void apiprof_leave_slow(const struct apiprof_api *api, uint64_t t0, uint32_t idx)
{
	struct apiprof_tls *t = apiprof_tls_self();
	struct apiprof_tls_api *s = &t->api[apiprof_load_acquire(&api->id)];
	struct apiprof_row *row = apiprof_tab_row(s->tab, idx);

	if (t0 != 0) {
		uint64_t d = tick(t) - t0;

		apiprof_hist_defer(s->tab, row, d);
		apiprof_record_time(row, d);
	}
	t->cur = apiprof_load(&s->tab->parent);
	apiprof_add(&s->tab->calls[idx], 1);
	s->frame = APIPROF_FRAME_IDLE;
}
