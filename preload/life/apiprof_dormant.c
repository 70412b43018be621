/* SPDX-License-Identifier: MIT */
/*
 * apiprof_dormant.c - APIPROF_MODE=off at start: dormant until woken
 * (issue 37; the struct another process sees is apiprof_dormant.h's).
 *
 * A fleet preloads apiprof into every service in off and pays almost
 * nothing until someone looks.  So when the whole process is off at start,
 * the runtime's first use reads the environment and nothing else: no
 * clock, no segment, no /proc, no thread, no atfork handler, no exit
 * output.  The shims' registrations keep their apis here, in a static
 * table, each gate set to APIPROF_GATE_OFF: calls pass straight through
 * (the wrapper's tail jump).  A fork's child and an exec'd image stay
 * dormant (the environment still says off).
 *
 * Woken (a waker wrote the mode word, then APIPROF_GATE_WAKE into every
 * gate; apiprof-ctl does it with process_vm_writev, the program itself
 * with apiprof_mode()), the next profiled call comes out of line
 * (apiprof_slow.c) and starts the runtime once (apiprof_init.c
 * apiprof_wake_start), registers the apis kept here and applies the mode
 * word, read as untrusted input: a word that is not a mode leaves the
 * process off and running.  The waking call is then counted as the mode
 * says; other threads' calls during the start pass through uncounted.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "apiprof_dormant.h"
#include "apiprof_internal.h"
#include "apiprof_steer.h"

_Static_assert(APIPROF_DORMANT_APIS == APIPROF_MAX_APIS, "apiprof_dormant.h");
_Static_assert(APIPROF_DORMANT_GATE_OFF == APIPROF_GATE_OFF, "apiprof_dormant.h");
_Static_assert(APIPROF_DORMANT_GATE_WAKE == APIPROF_GATE_WAKE, "apiprof_dormant.h");

/* Read and written by another process: every word is checked where used. */
APIPROF_EXPORT struct apiprof_dormant apiprof_dormant;

/* The apis kept, by the order they came; set once each (seq_cst, against
 * apiprof_dormant_registered's read of the state, as a Dekker pair). */
static struct apiprof_api *kept[APIPROF_MAX_APIS];
static uint32_t nkept;

bool apiprof_dormant_wanted(void)
{
	const char *s = secure_getenv("APIPROF_MODE");

	return s != NULL && strcmp(s, "off") == 0;
}

void apiprof_dormant_sleep(void)
{
	apiprof_dormant.version = APIPROF_DORMANT_VERSION;
	apiprof_dormant.magic = APIPROF_DORMANT_MAGIC;
	__atomic_store_n(&apiprof_dormant.state, APIPROF_DORMANT_ASLEEP, __ATOMIC_SEQ_CST);
}

bool apiprof_dormant_keep(struct apiprof_api *api)
{
	if (__atomic_load_n(&apiprof_dormant.state, __ATOMIC_SEQ_CST) != APIPROF_DORMANT_ASLEEP ||
	    api->abi != APIPROF_SHIM_ABI)
		return false;
	for (uint32_t i = 0; i < __atomic_load_n(&nkept, __ATOMIC_SEQ_CST); i++)
		if (__atomic_load_n(&kept[i], __ATOMIC_SEQ_CST) == api)
			return true;
	uint32_t i = __atomic_fetch_add(&nkept, 1, __ATOMIC_SEQ_CST);
	if (i >= APIPROF_MAX_APIS)
		return true; /* not profiled, as a registration past the limit */
	__atomic_store_n(&api->gate, APIPROF_GATE_OFF, __ATOMIC_SEQ_CST);
	__atomic_store_n(&apiprof_dormant.gate[i], (uint64_t)(uintptr_t)&api->gate,
	                 __ATOMIC_SEQ_CST);
	__atomic_store_n(&kept[i], api, __ATOMIC_SEQ_CST);
	__atomic_store_n(&apiprof_dormant.napis, i + 1, __ATOMIC_SEQ_CST);
	/* woken meanwhile: the start may not have seen this one */
	return __atomic_load_n(&apiprof_dormant.state, __ATOMIC_SEQ_CST) == APIPROF_DORMANT_ASLEEP;
}

/* A signal handler's call on its alternate stack does not start the
 * runtime (the start is not async-signal-safe): the next call will. */
static bool on_signal_stack(void)
{
	int saved = errno;
	stack_t ss;
	bool on = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);

	errno = saved;
	return on;
}

bool apiprof_dormant_asleep(void)
{
	return __atomic_load_n(&apiprof_dormant.state, __ATOMIC_ACQUIRE) == APIPROF_DORMANT_ASLEEP;
}

/* After the start (apiprof_init.c): the apis kept, registered, then the
 * mode word applied.  The runtime's own work: nothing here is counted. */
void apiprof_dormant_started(void)
{
	uint64_t word = __atomic_load_n(&apiprof_dormant.mode, __ATOMIC_ACQUIRE);
	struct apiprof_modeval m;

	__atomic_store_n(&apiprof_dormant.state, APIPROF_DORMANT_STARTED, __ATOMIC_SEQ_CST);
	uint32_t n = __atomic_load_n(&nkept, __ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < n && i < APIPROF_MAX_APIS; i++) {
		struct apiprof_api *api = __atomic_load_n(&kept[i], __ATOMIC_SEQ_CST);

		if (api != NULL)
			apiprof_register(api);
	}
	if (!apiprof_mode_unpack(word, &m) || m.level == APIPROF_LEVEL_NONE ||
	    apiprof_steer_mode(NULL, m) != 0)
		apiprof_warn("woken with a word that is not a mode (%#llx): stays off",
		             (unsigned long long)word);
}

bool apiprof_dormant_wake(struct apiprof_api *api)
{
	uint32_t id = apiprof_load_acquire(&api->id);

	if (apiprof_dormant_asleep())
		return !on_signal_stack() && apiprof_wake_start();
	/* started: a gate that still says wake (a late waker, or one that
	 * raced the start) gets its mode back */
	if (id != 0 && apiprof_started())
		apiprof_steer_gate(api, id);
	else if (apiprof_started())
		apiprof_register(api);
	return apiprof_started();
}

int apiprof_dormant_request(uint64_t word)
{
	if (!apiprof_dormant_asleep())
		return -1;
	__atomic_store_n(&apiprof_dormant.mode, word, __ATOMIC_RELEASE);
	uint32_t n = __atomic_load_n(&nkept, __ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < n && i < APIPROF_MAX_APIS; i++) {
		struct apiprof_api *api = __atomic_load_n(&kept[i], __ATOMIC_SEQ_CST);

		if (api != NULL)
			__atomic_store_n(&api->gate, APIPROF_GATE_WAKE, __ATOMIC_RELEASE);
	}
	return 0;
}
