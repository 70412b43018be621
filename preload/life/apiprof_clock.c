/* SPDX-License-Identifier: MIT */
/*
 * apiprof_clock.c - the tick source of the hot path and its conversion to ns.
 *
 * The hot path reads rdtsc when the TSC is invariant (constant rate, runs in
 * every C-state); otherwise, or with APIPROF_CLOCK=monotonic, it reads
 * CLOCK_MONOTONIC through the vDSO and a tick is a nanosecond.
 *
 * The TSC frequency is not calibrated with a busy loop at start-up (that
 * would add milliseconds to every profiled `true`): the runtime records one
 * (tsc, CLOCK_MONOTONIC) pair at start and estimates the rate from the pair
 * taken at each flush.  The longer the program runs, the better the estimate.
 * Each pair is a TSC read between two clock reads, so the clock time of
 * that tick is known to within half their distance: the rate's relative
 * error is at most the two half-widths over the time between the pairs.
 * Where that is within RATE_ERR (a tenth of a percent), the rate is taken
 * as it is, however short the history: a `true` that lived 300 us has
 * brackets of some 30 ns, 2e-4.  Only where it is not (a clock read
 * preempted, a clock without the vDSO) does a process of under 2 ms spin,
 * until the error is within it or 2 ms have passed, as every short process
 * did before (2 ms of CPU at exit: issue 35.6).
 */
#include <cpuid.h>
#include <dlfcn.h>
#include <string.h>
#include <time.h>

#include "apiprof_internal.h"

int apiprof_clock_tsc = 1;
uint32_t apiprof_sample;
uint32_t apiprof_timing;

static uint64_t tick0, mono0, hz = 1000000000ull;
static uint64_t half0; /* mono0 is the tick0's clock time to within this, ns */

/* The largest relative error of the rate taken without the spin, in parts
 * per million. */
#define RATE_ERR_PPM 1000u

/* libc's own clock_gettime, not whatever the symbol resolves to: a shim
 * may interpose clock_gettime itself, and the runtime's clock reads must
 * neither recurse into it nor be counted as the program's calls. */
static int (*libc_clock_gettime)(clockid_t, struct timespec *) = clock_gettime;

static void find_libc_clock(void)
{
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	void *p = libc ? dlsym(libc, "clock_gettime") : NULL;

	if (p != NULL)
		memcpy(&libc_clock_gettime, &p, sizeof(p));
	if (libc != NULL)
		dlclose(libc);
}

uint64_t apiprof_clock_mono(void)
{
	struct timespec ts;

	libc_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CPUID 0x80000007 EDX bit 8: "invariant TSC". */
static int tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	(void)a, (void)b, (void)c;
	return (d >> 8) & 1u;
}

void apiprof_clock_init(int wanted)
{
	int tsc = wanted == APIPROF_CLOCK_TSC || (wanted == 0 && tsc_invariant());

	find_libc_clock();
	if (wanted == APIPROF_CLOCK_TSC && !tsc_invariant())
		apiprof_warn("APIPROF_CLOCK=tsc on a CPU without invariant TSC: times may drift");
	apiprof_clock_tsc = tsc;
	if (!tsc) {
		mono0 = tick0 = apiprof_clock_mono();
		return;
	}
	uint64_t a = apiprof_clock_mono();
	tick0 = __rdtsc();
	uint64_t b = apiprof_clock_mono();
	mono0 = a + (b - a) / 2;
	half0 = (b - a + 1) / 2;
}

/* A TSC read between two clock reads: the tick, its clock time (the
 * middle) and that time's uncertainty (half the distance). */
struct clock_pair {
	uint64_t tick, mono, half;
};

static struct clock_pair clock_pair(void)
{
	uint64_t a = apiprof_clock_mono();
	uint64_t t = __rdtsc();
	uint64_t b = apiprof_clock_mono();

	return (struct clock_pair){t, a + (b - a) / 2, (b - a + 1) / 2};
}

/* True when the rate from the start pair to p is known to RATE_ERR_PPM. */
static bool rate_precise(const struct clock_pair *p)
{
	uint64_t dm = p->mono - mono0;

	return p->mono > mono0 && (unsigned __int128)(half0 + p->half) * 1000000u <=
	                                  (unsigned __int128)dm * RATE_ERR_PPM;
}

/* Re-estimates the tick rate from the start pair; returns ticks per second. */
uint64_t apiprof_clock_hz(void)
{
	if (!apiprof_clock_tsc)
		return 1000000000ull;
	struct clock_pair p = clock_pair();
	/* < 2 ms of history and not precise enough: spin a little */
	while (p.mono < mono0 + 2000000ull && !rate_precise(&p))
		p = clock_pair();
	uint64_t dm = p.mono - mono0;
	uint64_t dt = (uint64_t)((unsigned __int128)(p.tick - tick0) * 1000000000u / dm);
	/* The flusher and an exiting thread may both get here. */
	apiprof_write_once(&hz, dt);
	return dt;
}

uint64_t apiprof_clock_tick0(void)
{
	return tick0;
}

uint64_t apiprof_clock_mono0(void)
{
	return mono0;
}

double apiprof_ticks_to_ns(uint64_t ticks)
{
	return (double)ticks * 1e9 / (double)apiprof_read_once(&hz);
}
