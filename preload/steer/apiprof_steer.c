/* SPDX-License-Identifier: MIT */
/*
 * apiprof_steer.c - the runtime's steering (apiprof_steer.h): the modes of
 * the process and of its apis, and the gate words that carry them to the
 * hot path (struct apiprof_api's gate, apiprof_shim.h's invariants).
 *
 * The process has a mode and each api may have its own (level NONE: the
 * process's).  The process's timing is full or sampled:N, the latest
 * timed mode set for the whole process (full until one is); the threads
 * take it up (their guard words) and time the calls of the apis that
 * time as the process does inline.  An api may have a timing of its own
 * (full while the process samples, sampled:N with another N): its gate
 * is then APIPROF_GATE_OWN with its N, which no guard word equals, and
 * its calls are timed or counted out of line (apiprof_slow.c).  A mode
 * set for the whole process is every api's, and clears their own.
 *
 * Each change writes gate words only, under a lock that no call of the
 * program takes (the hot path reads the gates and never waits); the
 * threads take up a new timing themselves (apiprof_slow.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_internal.h"
#include "apiprof_steer.h"

static struct {
	int lock;
	uint32_t epoch;                /* sampled mode's, in its gates: a new N, a new epoch */
	struct apiprof_modeval proc;   /* the process's mode */
	struct apiprof_modeval timing; /* full or sampled:N */
	struct apiprof_modeval api[APIPROF_MAX_APIS]; /* level NONE: as the process */
	/* APIPROF_MODE's api=MODE items, for the apis as they register
	 * (apiprof_steer_gate); dropped by a mode set for the process */
	struct apiprof_mode_list start;
} st = {.proc = {APIPROF_LEVEL_FULL, 0}, .timing = {APIPROF_LEVEL_FULL, 0}};

uint64_t apiprof_timing_gate;
uint32_t apiprof_sample_most;

/* Signals held (a handler that steers must not find the lock taken by the
 * code it interrupted), then a short spin: the sections below only store. */
static uint64_t steer_lock(void)
{
	uint64_t held = apiprof_signal_hold();

	while (__atomic_exchange_n(&st.lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	return held;
}

static void steer_unlock(uint64_t held)
{
	__atomic_store_n(&st.lock, 0, __ATOMIC_RELEASE);
	apiprof_signal_release(held);
}

/* A fork's child has one thread: a lock its parent's other threads held
 * is nobody's. */
void apiprof_steer_modes_after_fork(void)
{
	__atomic_store_n(&st.lock, 0, __ATOMIC_RELEASE);
}

static bool timed(enum apiprof_level l)
{
	return l == APIPROF_LEVEL_FULL || l == APIPROF_LEVEL_SAMPLED;
}

static bool same_timing(struct apiprof_modeval m)
{
	return m.level == st.timing.level &&
	       (m.level != APIPROF_LEVEL_SAMPLED || m.sample == st.timing.sample);
}

/* The gate of the process's timing, which the threads take up. */
static uint64_t timing_gate(void)
{
	if (st.timing.level != APIPROF_LEVEL_SAMPLED)
		return 0;
	return APIPROF_GUARD_SAMPLE | (uint64_t)st.epoch << APIPROF_GATE_EPOCH_SHIFT;
}

/* The gate word of a mode (apiprof_shim_layout.h): a timing other than
 * the process's is the api's own. */
static uint64_t gate_for(struct apiprof_modeval m)
{
	if (m.level == APIPROF_LEVEL_OFF)
		return APIPROF_GATE_OFF;
	if (m.level == APIPROF_LEVEL_COUNT)
		return APIPROF_GATE_COUNT;
	if (same_timing(m))
		return timing_gate();
	return APIPROF_GATE_OWN | (uint64_t)m.sample << APIPROF_GATE_N_SHIFT;
}

static struct apiprof_modeval mode_of_id(uint32_t id)
{
	return st.api[id].level != APIPROF_LEVEL_NONE ? st.api[id] : st.proc;
}

/* Under the lock: api id's gate from the state. */
static void gate_set(struct apiprof_api *api, uint32_t id)
{
	__atomic_store_n(&api->gate, gate_for(mode_of_id(id)), __ATOMIC_RELEASE);
}

static void gates_all(void)
{
	uint32_t n = apiprof_api_count();

	for (uint32_t id = 1; id <= n && id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api != NULL)
			gate_set(api, id);
	}
}

/* Under the lock: a new process timing.  apiprof_sample before the gates
 * that carry its epoch (release), so a thread that sees them sees N; the
 * sample bit of apiprof_timing is kept once set: figures from a sampled
 * stretch stay estimates (the outputs say so) whatever comes after. */
static void timing_set(struct apiprof_modeval m)
{
	if (m.level == APIPROF_LEVEL_SAMPLED) {
		__atomic_store_n(&apiprof_sample, m.sample, __ATOMIC_RELEASE);
		st.epoch = (st.epoch + 1) & 0xffffffu;
	}
	st.timing = m;
	__atomic_store_n(&apiprof_timing_gate, timing_gate(), __ATOMIC_RELEASE);
}

/* Under the lock: the modes where readers see them (the segment's
 * header, version 12), and the sampling N (sample: kept once sampled, as
 * apiprof_sample is, for the readers' estimates). */
static void show(void)
{
	struct apiprof_shm_header *h = apiprof_segment();

	if (h == NULL)
		return;
	for (uint32_t id = 1; id < APIPROF_MAX_APIS && id < APIPROF_SHM_APIS; id++)
		__atomic_store_n(
		        &h->api_mode[id],
		        st.api[id].level == APIPROF_LEVEL_NONE ? 0 : apiprof_mode_pack(st.api[id]),
		        __ATOMIC_RELAXED);
	__atomic_store_n(&h->proc_mode, apiprof_mode_pack(st.proc), __ATOMIC_RELAXED);
	uint32_t n = __atomic_load_n(&apiprof_sample_most, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sample, n > 1 ? n : 1u, __ATOMIC_RELEASE);
	if (apiprof_estimating())
		apiprof_or_fetch_relaxed(&h->flags, APIPROF_SHM_UNTIMED);
}

void apiprof_steer_show(void)
{
	uint64_t held = steer_lock();
	show();
	steer_unlock(held);
}

/* Under the lock: calls counted and not timed from now on (count or
 * sampled mode, the process's or an api's): the readers take timed calls
 * from the histograms, and the call tree's figures say "estimated", for
 * good.  A call site's standard error takes the largest N used
 * (apiprof_sample_most), an upper bound where apis sample with several. */
static void untimed_noted(struct apiprof_modeval m)
{
	if (m.level == APIPROF_LEVEL_SAMPLED && m.sample > apiprof_sample_most)
		__atomic_store_n(&apiprof_sample_most, m.sample, __ATOMIC_RELAXED);
	if (m.level == APIPROF_LEVEL_COUNT || m.level == APIPROF_LEVEL_SAMPLED)
		__atomic_or_fetch(&apiprof_timing, APIPROF_MODE_SAMPLE, __ATOMIC_RELEASE);
}

static int steer_process(struct apiprof_modeval m)
{
	untimed_noted(m);
	if (timed(m.level))
		timing_set(m);
	st.proc = m;
	for (uint32_t id = 0; id < APIPROF_MAX_APIS; id++)
		st.api[id] = (struct apiprof_modeval){APIPROF_LEVEL_NONE, 0};
	st.start.n = 0;
	gates_all();
	return 0;
}

static int steer_api(const char *name, struct apiprof_modeval m)
{
	uint32_t n = apiprof_api_count();

	for (uint32_t id = 1; id <= n && id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *api = apiprof_api_get(id);

		if (api == NULL || api->name == NULL || strcmp(api->name, name) != 0)
			continue;
		untimed_noted(m);
		st.api[id] = m;
		gate_set(api, id);
		return 0;
	}
	return -1;
}

int apiprof_steer_mode(const char *api, struct apiprof_modeval m)
{
	if (!apiprof_mode_valid(m) || m.level == APIPROF_LEVEL_NONE)
		return -1;
	uint64_t held = steer_lock();
	int r = api == NULL ? steer_process(m) : steer_api(api, m);
	if (r == 0)
		show();
	steer_unlock(held);
	return r;
}

struct apiprof_modeval apiprof_steer_mode_of(const char *api)
{
	struct apiprof_modeval m = {APIPROF_LEVEL_NONE, 0};
	uint64_t held = steer_lock();
	uint32_t n = apiprof_api_count();

	if (api == NULL)
		m = st.proc;
	for (uint32_t id = 1; api != NULL && id <= n && id < APIPROF_MAX_APIS; id++) {
		struct apiprof_api *a = apiprof_api_get(id);

		if (a != NULL && a->name != NULL && strcmp(a->name, api) == 0)
			m = mode_of_id(id);
	}
	steer_unlock(held);
	return m;
}

/* Under the lock: api id (named name), registering, takes the mode
 * APIPROF_MODE gave it, unless it has one already. */
static void start_mode(const char *name, uint32_t id)
{
	for (uint32_t i = 0; name != NULL && i < st.start.n; i++) {
		if (st.api[id].level != APIPROF_LEVEL_NONE ||
		    strcmp(st.start.api[i].name, name) != 0)
			continue;
		untimed_noted(st.start.api[i].m);
		st.api[id] = st.start.api[i].m;
		show();
	}
}

void apiprof_steer_gate(struct apiprof_api *api, uint32_t id)
{
	if (id == 0 || id >= APIPROF_MAX_APIS)
		return;
	uint64_t held = steer_lock();
	start_mode(api->name, id);
	gate_set(api, id);
	steer_unlock(held);
}

/* APIPROF_MODE, whose mode for the process wins over APIPROF_SAMPLE
 * (sample: its N, 0 unset); its api=MODE items wait for their apis. */
void apiprof_steer_start(uint32_t sample)
{
	static struct apiprof_mode_list l; /* not on the stack: 300 bytes */
	const char *s = secure_getenv("APIPROF_MODE");
	struct apiprof_modeval m = {APIPROF_LEVEL_FULL, 0};
	const char *why = NULL;

	if (sample > 1)
		m = (struct apiprof_modeval){APIPROF_LEVEL_SAMPLED, sample};
	if (s != NULL && *s != '\0' && apiprof_mode_list_parse(s, &l, &why) != 0) {
		apiprof_warn("APIPROF_MODE=%.40s: %s; full timing%s", s, why,
		             sample > 1 ? " (APIPROF_SAMPLE is ignored)" : "");
		m = (struct apiprof_modeval){APIPROF_LEVEL_FULL, 0};
		l.n = 0;
	} else if (s != NULL && *s != '\0' && l.proc.level != APIPROF_LEVEL_NONE) {
		if (sample > 1)
			apiprof_warn("APIPROF_MODE=%.40s wins over APIPROF_SAMPLE=%u", s, sample);
		m = l.proc;
	}
	l.proc = m;
	apiprof_steer_list(&l);
}

/* A mode list's process mode now, its api=MODE items as their apis
 * register (at start, and at an attach, which loads the shims after). */
void apiprof_steer_list(const struct apiprof_mode_list *l)
{
	uint64_t held = steer_lock();
	steer_process(l->proc.level != APIPROF_LEVEL_NONE
	                      ? l->proc
	                      : (struct apiprof_modeval){APIPROF_LEVEL_FULL, 0});
	st.start = *l;
	steer_unlock(held);
}

/* The program's own steering (apiprof/control.h's apiprof_mode). */
__attribute__((visibility("default"))) int apiprof_control_mode(const char *api, const char *mode)
{
	int saved = errno;
	struct apiprof_modeval m;
	const char *why;

	if (mode == NULL || apiprof_mode_parse(mode, &m, &why) != 0) {
		errno = EINVAL;
		return -1;
	}
	/* dormant (APIPROF_MODE=off at start): the next call wakes it */
	if (apiprof_dormant_asleep()) {
		int rc = api == NULL ? apiprof_dormant_request(apiprof_mode_pack(m)) : -1;
		errno = rc == 0 ? saved : EINVAL;
		return rc;
	}
	if (apiprof_steer_mode(api, m) != 0) {
		errno = EINVAL;
		return -1;
	}
	errno = saved;
	return 0;
}
