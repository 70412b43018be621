/* SPDX-License-Identifier: MIT */
/*
 * apiprof_slow.c - the out-of-line halves of the hot path.
 *
 * The inline apiprof_enter/apiprof_leave handle a thread that already has
 * its table making an outermost call, in the default mode (TSC, every call
 * timed) or between sampled mode's draws.  Everything else comes here: the
 * runtime busy on this thread, a nested call (or one that only looks
 * nested after a longjmp), the thread's first call of an api, the
 * monotonic clock, and sampled mode's draws.
 */
#include "apiprof_internal.h"

/* A timestamp in this thread's clock. */
static inline uint64_t tick(const struct apiprof_tls *t)
{
	if (!(t->mode & APIPROF_MODE_MONOTONIC))
		return __rdtsc();
	return apiprof_clock_mono();
}

/* Sampled mode: a new countdown drawn uniformly from [1, 2N-2] by a
 * per-thread xorshift32, so that the timed calls cannot lock onto a
 * periodic pattern of the program's calls.  The draw takes a call of its
 * own (below), so timed calls are 2 to 2N-1 calls apart, N + 1/2 on
 * average. */
void apiprof_sample_draw(struct apiprof_tls *t)
{
	uint32_t span = 2u * apiprof_sample - 2u; /* N >= 2 in sampled mode */
	uint32_t x = t->rng;

	if (x == 0)
		x = (uint32_t)__rdtsc() | 1u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	t->rng = x;
	t->countdown = 1u + x % span;
}

/* Sampled mode: is this call one to time?  The countdown counts down to
 * the timed call, as apiprof_enter does inline.  The call after it finds
 * 0, comes here, draws the next countdown and is only counted: the draw,
 * a detour through this file, then never runs just before a timed call,
 * where it would change what the first timestamp sees.  The TSC is read
 * without waiting for earlier instructions, so what ran just before the
 * window moves it: a timed call is preceded by the same inline code in
 * sampled mode as in full timing, and its window measures the same. */
static bool sample_due(struct apiprof_tls *t)
{
	/* UINT32_MAX: apiprof_enter has decremented a 0 before sending the
	 * call here */
	if (t->countdown == 0 || t->countdown == UINT32_MAX) {
		apiprof_sample_draw(t);
		return false;
	}
	return --t->countdown == 0;
}

/* A call of api id while the thread's frame word for it says a call is
 * in progress.  It is nested in that call unless a longjmp (or a C++
 * exception) left the outer call without passing its apiprof_leave: then
 * this call's frame lies at or above the one recorded (stacks grow down; a
 * frame at the same address cannot be nested in itself), and this call
 * takes the stale one's place. */
static bool nested(const struct apiprof_tls *t, uint32_t id, uintptr_t sp)
{
	uintptr_t frame = t->api[id].frame;

	return frame > APIPROF_FRAME_IDLE && sp < frame;
}

/* What a call that passed the guards is, by the thread's mode. */
static unsigned how_of(struct apiprof_tls *t, struct apiprof_call *c)
{
	bool timed = !(t->guard & APIPROF_GUARD_SAMPLE) || sample_due(t);

	if (!(t->guard & APIPROF_GUARD_SLOW))
		return timed ? APIPROF_CALL_TIMED : APIPROF_CALL_COUNTED;
	c->t0 = timed ? tick(t) : 0; /* 0: counted, not timed */
	return APIPROF_CALL_SLOW;
}

unsigned apiprof_enter_slow(struct apiprof_api *api, struct apiprof_call *c, uintptr_t sp)
{
	struct apiprof_tls *t;
	uint32_t id = __atomic_load_n(&api->id, __ATOMIC_ACQUIRE);

	/* Nothing touches the thread's state before it has a home; the first
	 * call may be the one that starts the runtime. */
	if (!apiprof_ready() || !apiprof_tls_ok())
		return APIPROF_CALL_FORWARD;
	t = apiprof_tls_self();
	if ((t->guard & APIPROF_GUARD_BUSY) || (id != 0 && nested(t, id, sp)))
		return APIPROF_CALL_FORWARD;
	if (id == 0 || t->api[id].tab == NULL) {
		if (apiprof_thread_attach(api) == NULL)
			return APIPROF_CALL_FORWARD;
		id = api->id;
	}
	t->api[id].frame = sp;
	return how_of(t, c);
}

void apiprof_leave_slow(const struct apiprof_api *api, uint64_t t0, uint32_t idx)
{
	struct apiprof_tls *t = apiprof_tls_self();
	struct apiprof_tls_api *s = &t->api[__atomic_load_n(&api->id, __ATOMIC_ACQUIRE)];

	if (t0 != 0) {
		uint64_t d = tick(t) - t0;

		apiprof_hist_defer(s->tab, idx, d);
		apiprof_record_time(apiprof_tab_cold(s->tab, idx), d);
	}
	apiprof_add(&s->tab->calls[idx], 1);
	s->frame = APIPROF_FRAME_IDLE;
}
