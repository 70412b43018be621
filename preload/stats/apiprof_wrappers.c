/* SPDX-License-Identifier: MIT */
/*
 * apiprof_wrappers.c - which wrapper, and so which row, a return address
 * found on a stack lies in.
 *
 * A call entered inline leaves nothing of its row in the thread's state:
 * its frame word holds only the stack pointer the wrapper called the real
 * function with, so the call's return address, into the wrapper, is the
 * first word below it (or below the arguments passed on the stack).
 * Three readers need the row of such a call: the longjmp and exception
 * hooks for the calls a jump or a catch abandons (apiprof_jmp.c,
 * apiprof_unwind.c), the flusher for the calls in
 * progress (apiprof_inflight.c), and sampled mode's timed calls for their
 * parent (apiprof_slow.c), whose untimed calls keep no call tree.
 *
 * So when an api gets its first thread table, the extent of each of its
 * wrappers is worked out once, from the wrappers' own addresses, which the shim gives
 * (struct apiprof_api entries), and the end of the section that holds
 * them all and nothing else (entries_end: APIPROF_WRAPPER in
 * apiprof_shim.h puts each wrapper there, and the linker gives the end):
 * sorted by address, each wrapper runs to the next one's start, and the
 * last to the section's end.  No symbol table is read and no loader call
 * made: the cost is a sort, whatever the spec's size (a dladdr1 per
 * wrapper, a scan of the shim's symbols each, cost 4 ms of every
 * process's start for 1000 functions: issue 35.6).  A range may take in
 * the padding after a wrapper's code, where no return address points.
 * The out-of-line halves (apiprof_slow_*) are not in the section and so
 * in no range, as before: their calls keep their row in the frame word
 * (APIPROF_FRAME_SLOW).  The ranges are kept sorted in the arena.  A
 * lookup is then a binary search of memory that never changes again: no
 * lock, no loader call, safe in a signal handler and on a program thread.
 * Dynamic mode's apis have no wrappers (no entries), and have no table.
 * (apiprof's own code, below, still asks the loader once per module for
 * its segments, not once per wrapper.)
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include "apiprof_internal.h"

struct range {
	uintptr_t lo, hi; /* the wrapper's code: [lo, hi) */
	uint32_t row;
};

struct apiprof_wrappers {
	uint32_t n;
	struct range r[]; /* sorted by lo, not overlapping */
};

/* By api id; set once (release) with the api's first thread table. */
static struct apiprof_wrappers *by_id[APIPROF_MAX_APIS];

/* Insertion sort: the wrappers come nearly in address order already. */
static void sort(struct range *r, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++) {
		struct range x = r[i];
		uint32_t j = i;

		for (; j > 0 && r[j - 1].lo > x.lo; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
}

/* Each wrapper's end: the next one's start, the last's the section's end.
 * Two symbols of one wrapper (an alias given the same code) share its
 * range; one at or past the end is left out. */
static void ends(struct apiprof_wrappers *w, uintptr_t end)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < w->n; j++) {
		uint32_t next = j + 1;

		while (next < w->n && w->r[next].lo == w->r[j].lo)
			next++;
		w->r[j].hi = next < w->n ? w->r[next].lo : end;
		if (w->r[j].lo < w->r[j].hi)
			w->r[k++] = w->r[j];
	}
	w->n = k;
}

/* The ranges of api's wrappers. */
static struct apiprof_wrappers *build(const struct apiprof_api *api)
{
	uint32_t n = apiprof_api_nsyms(api);
	struct apiprof_wrappers *w =
	        apiprof_arena_alloc(sizeof(*w) + (size_t)n * sizeof(struct range));

	if (w == NULL)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (api->syms[i].row >= api->nfuncs || api->syms[i].entry == NULL)
			continue;
		w->r[w->n++] = (struct range){(uintptr_t)api->syms[i].entry, 0, api->syms[i].row};
	}
	sort(w->r, w->n);
	ends(w, (uintptr_t)api->entries_end);
	return w;
}

/* --- apiprof's own code ---------------------------------------------------
 * The executable segments of the runtime and of each shim that registered
 * an api: a call site there is a library function's tail call into
 * another api, returning into apiprof's wrapper (apiprof_sites.c replaces
 * it).  Filled as apis register; read with no lock: a range is complete
 * once its hi is stored. */
#define OURS_MAX 64

static struct {
	uint32_t n; /* reserved */
	struct {
		uintptr_t lo, hi;
	} r[OURS_MAX];
} ours;

/* The lowest and highest address of them all (relaxed: a switch of
 * site that reads a stale span misses the replacement of that one call's
 * address until the next, never more). */
uintptr_t apiprof_ours_lo = UINTPTR_MAX, apiprof_ours_hi;

static void span_add(uintptr_t lo, uintptr_t hi)
{
	uintptr_t l = apiprof_read_once(&apiprof_ours_lo), h = apiprof_read_once(&apiprof_ours_hi);

	while (lo < l && !apiprof_cas_relaxed(&apiprof_ours_lo, &l, lo))
		;
	while (hi > h && !apiprof_cas_relaxed(&apiprof_ours_hi, &h, hi))
		;
}

static void ours_add(uintptr_t lo, uintptr_t hi)
{
	uint32_t n = apiprof_load_acquire(&ours.n);

	for (uint32_t k = 0; k < n && k < OURS_MAX; k++)
		if (apiprof_read_once(&ours.r[k].lo) == lo)
			return;
	uint32_t k = apiprof_fetch_add_relaxed(&ours.n, 1);
	if (k >= OURS_MAX)
		return;
	apiprof_write_once(&ours.r[k].lo, lo);
	apiprof_store_release(&ours.r[k].hi, hi);
	span_add(lo, hi);
}

/* dl_iterate_phdr's callback: the executable segments of the module
 * whose load bias is *data. */
static int ours_phdrs(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_addr != *(const uintptr_t *)data)
		return 0;
	for (unsigned k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_LOAD && (info->dlpi_phdr[k].p_flags & PF_X))
			ours_add(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr,
			         info->dlpi_addr + info->dlpi_phdr[k].p_vaddr +
			                 info->dlpi_phdr[k].p_memsz);
	return 1;
}

/* The executable segments of the module that holds p, as the loader
 * reports them (dl_iterate_phdr). */
static void ours_module(const void *p)
{
	Dl_info info;
	struct link_map *lm = NULL;

	if (p == NULL || !dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL)
		return;
	uintptr_t bias = lm->l_addr;
	dl_iterate_phdr(ours_phdrs, &bias);
}

static void wrappers_add_module(const struct apiprof_api *api)
{
	ours_module((const void *)(uintptr_t)apiprof_wrappers_ours);
	for (uint32_t i = 0; api->entries_end != NULL && i < apiprof_api_nsyms(api); i++)
		if (api->syms[i].entry != NULL) {
			ours_module(api->syms[i].entry);
			return;
		}
}

bool apiprof_wrappers_ours(uintptr_t a)
{
	uint32_t n = apiprof_read_once(&ours.n);

	for (uint32_t k = 0; k < n && k < OURS_MAX; k++)
		if (a > apiprof_read_once(&ours.r[k].lo) && a < apiprof_load_acquire(&ours.r[k].hi))
			return true;
	return false;
}

void apiprof_wrappers_add(const struct apiprof_api *api)
{
	wrappers_add_module(api);
}

/* Not at registration but with the api's first thread table
 * (apiprof_api_in_use): a wrapper's row is only ever looked for from a
 * call of the api in progress on a thread, which has its table, so a
 * process that never calls the api does nothing per function for it
 * (issue 35.6).  Where two threads' first calls race, the loser's ranges
 * stay unused in the arena. */
void apiprof_wrappers_ranges(const struct apiprof_api *api, uint32_t id)
{
	struct apiprof_wrappers *none = NULL;

	if (id >= APIPROF_MAX_APIS || api->entries_end == NULL ||
	    apiprof_load_acquire(&by_id[id]) != NULL)
		return;
	struct apiprof_wrappers *w = build(api);
	if (w != NULL)
		apiprof_cas_acq_rel(&by_id[id], &none, w);
}

uint32_t apiprof_wrappers_row(uint32_t id, uintptr_t a)
{
	const struct apiprof_wrappers *w =
	        id < APIPROF_MAX_APIS ? apiprof_load_acquire(&by_id[id]) : NULL;

	if (w == NULL || w->n == 0 || a <= w->r[0].lo || a >= w->r[w->n - 1].hi)
		return UINT32_MAX;
	uint32_t lo = 0, hi = w->n; /* the last range starting below a is in [lo, hi) */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (w->r[mid].lo < a)
			lo = mid;
		else
			hi = mid;
	}
	/* a return address is never a wrapper's first byte */
	return a > w->r[lo].lo && a < w->r[lo].hi ? w->r[lo].row : UINT32_MAX;
}

/* The words read lie between `low` and the frame: the caller makes sure
 * that is live stack of this thread (see apiprof_jmp.c, apiprof_slow.c). */
__attribute__((no_sanitize_address)) uint32_t apiprof_wrappers_below(uint32_t id, uintptr_t frame,
                                                                     uintptr_t low)
{
	const volatile uintptr_t *p = (const uintptr_t *)frame;

	for (int n = 0; n < APIPROF_SCAN_WORDS && (uintptr_t)(p - 1) >= low; n++) {
		uint32_t row = apiprof_wrappers_row(id, *--p);

		if (row != UINT32_MAX)
			return row;
	}
	return UINT32_MAX;
}
