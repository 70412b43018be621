/* SPDX-License-Identifier: MIT */
/*
 * apiprof_shim_acct.h - the way in and out of a function that declares
 * "bytes", "fails" or "errno" (APIPROF_FUNC_ACCT): its size, its failure
 * and its errno slot, counted into the row's struct apiprof_acct after
 * the clock.  Included at the end of apiprof_shim.h, whose ways in and
 * out these extend.
 */
#ifndef APIPROF_SHIM_ACCT_H
#define APIPROF_SHIM_ACCT_H

#include <errno.h>

#include "apiprof_shim.h"

/* apiprof_enter for a function that declares bytes or failures: full
 * timing first, the guard or'ed in memory with the gate (both 0), then
 * the gate loaded again for the rest: the call goes by that second load
 * (a gate that changed in between only means the full test failed).  Its
 * wrapper keeps the size argument in a saved register, and its ways out
 * load the slot's offset again rather than keep it in a second one:
 * measured as issue 24 measures it (half the difference of the twin
 * shims' g - f, bench_driver -t fg, 8 interleaved rounds), declaring cost
 * 0.86 ns more than not declaring this way, 1.40 with the plain wrappers'
 * way in and out. */
APIPROF_INLINE unsigned apiprof_enter_acct(struct apiprof_api *api, struct apiprof_call *c,
                                           uint32_t idx, uintptr_t ret)
{
	uintptr_t t = apiprof_tls_of(api);
	uintptr_t slot = apiprof_slot_of(api);

	c->slot = slot;
	c->tls = t;
	if (apiprof_likely(apiprof_guard_gate_zero(t, api)))
		return apiprof_enter_full(c, idx, ret);
	uint64_t w = apiprof_gate_of(api); /* the one this call goes by */
	if (apiprof_likely(apiprof_guard_is(t, w)))
		return apiprof_enter_sampled(c, idx, ret);
	return apiprof_enter_gated(c, w);
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

/* What a declaring wrapper knows of a call's result once it returns:
 * whether it failed, whether to count errno then (the function declares
 * "errno"), its size n and whether it has one (`sized`).  Passed by value
 * to the always-inline ways out, so it lives in registers, never in
 * memory (the same instructions as the four separate arguments). */
struct apiprof_outcome {
	uint64_t n;
	_Bool failed;
	_Bool err;
	_Bool sized;
};

APIPROF_INLINE void apiprof_acct_add(const struct apiprof_tab *tab, struct apiprof_row *s,
                                     struct apiprof_outcome o)
{
	struct apiprof_acct *a = s->acct;

	if (apiprof_unlikely(o.failed)) {
		apiprof_acct_failed(a, o.err);
	} else if (o.sized) {
		apiprof_add(&a->bytes, o.n);
		apiprof_add(&a->size_hist[apiprof_hist_bucket_lz(tab, o.n)], 1);
	}
}

/* apiprof_leave of a function that declares bytes or failures: the same,
 * and apiprof_acct_add on the row it has at hand. */
APIPROF_INLINE void apiprof_leave_acct(const struct apiprof_api *api, const struct apiprof_call *c,
                                       uint32_t idx, struct apiprof_outcome o)
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
	apiprof_acct_add(tab, s, o);
}

/* apiprof_leave_parked of a function that declares bytes or failures. */
APIPROF_INLINE void apiprof_leave_parked_acct(const struct apiprof_api *api,
                                              const struct apiprof_call *c, uint32_t idx,
                                              struct apiprof_outcome o)
{
	/* the slot not kept: apiprof_enter_acct */
	struct apiprof_tab *tab = apiprof_leave_park(api, apiprof_slot_of(api), idx);

	(void)c;
	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), o);
}

/* apiprof_leave_counted of a function that declares them. */
APIPROF_INLINE void apiprof_leave_counted_acct(const struct apiprof_api *api,
                                               const struct apiprof_call *c, uint32_t idx,
                                               struct apiprof_outcome o)
{
	uintptr_t slot = apiprof_slot_of(api); /* as apiprof_leave_acct */
	struct apiprof_tab *tab = apiprof_tab_at(slot);

	(void)c;
	apiprof_add(&tab->calls[idx], 1);
	apiprof_frame_leave(slot);
	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), o);
}

/* The same after any other call that counted (out of line, dynamic mode). */
APIPROF_INLINE void apiprof_acct_after(const struct apiprof_api *api, uint32_t idx,
                                       struct apiprof_outcome o)
{
	struct apiprof_tab *tab = apiprof_tab_at(apiprof_slot_of(api));

	apiprof_acct_add(tab, apiprof_tab_row(tab, idx), o);
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

#endif /* APIPROF_SHIM_ACCT_H */
