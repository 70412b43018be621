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
 * progress (apiprof_busy.c), and sampled mode's timed calls for their
 * parent (apiprof_slow.c), whose untimed calls keep no call tree.
 *
 * So when an api is registered, the extent of each of its wrappers is
 * looked up once, from the wrapper's own address, which the shim gives
 * (struct apiprof_api entries), and the size of the exported symbol there,
 * in one pass over the shim's dynamic symbols (found from its link map,
 * by dladdr1, which allocates nothing and sets no dlerror state: it runs
 * in the shim's constructor, where a malloc shim's own functions may not
 * be resolved yet).  A dladdr1 per wrapper scanned all the shim's symbols
 * each time: 1000 functions cost 4 ms of every process's start, a process
 * that never calls one of them too (issue 35.6).  Where the table cannot
 * be read, each wrapper is looked up by dladdr1 as before.  The ranges are
 * kept sorted in the arena.  A lookup is
 * then a binary search of memory that never changes again: no lock, no
 * loader call, safe in a signal handler and on a program thread.
 * Dynamic mode's apis have no wrappers (no entries), and have no table.
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

/* By api id; set once (release) when the api is registered. */
static struct apiprof_wrappers *by_id[APIPROF_MAX_APIS];

/* The range of the wrapper at p, if the loader knows the symbol that
 * starts there and its size. */
static bool range_of(const void *p, struct range *out)
{
	Dl_info info;
	const ElfW(Sym) *es = NULL;

	if (p == NULL || !dladdr1(p, &info, (void **)&es, RTLD_DL_SYMENT) || es == NULL ||
	    info.dli_saddr != p || ELF64_ST_TYPE(es->st_info) != STT_FUNC || es->st_size == 0)
		return false;
	out->lo = (uintptr_t)p;
	out->hi = (uintptr_t)p + es->st_size;
	return true;
}

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

/* The shim's dynamic symbols: the table and how many (DT_GNU_HASH's last
 * chain ends at the last symbol; DT_HASH says it), and its load address. */
struct dynsyms {
	const ElfW(Sym) * sym;
	uint32_t n;
	uintptr_t base;
};

/* A pointer of the dynamic section: glibc relocates them in place where
 * the section is writable, and leaves them as offsets where it is not. */
static uintptr_t dyn_ptr(const struct link_map *lm, ElfW(Addr) p)
{
	return p < lm->l_addr ? lm->l_addr + p : p;
}

static uint32_t gnu_hash_count(const uint32_t *h)
{
	uint32_t nbuckets = h[0], first = h[1], last = 0;
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + h[2]);
	const uint32_t *chain = buckets + nbuckets;

	for (uint32_t i = 0; i < nbuckets; i++)
		last = buckets[i] > last ? buckets[i] : last;
	if (last < first)
		return first;
	while (!(chain[last - first] & 1u))
		last++;
	return last + 1;
}

static bool dynsyms_of(const void *inside, struct dynsyms *d)
{
	struct link_map *lm = NULL;
	const uint32_t *gnu = NULL, *sysv = NULL;
	Dl_info info;

	d->sym = NULL;
	if (!dladdr1(inside, &info, (void **)&lm, RTLD_DL_LINKMAP) || lm == NULL ||
	    lm->l_ld == NULL)
		return false;
	for (const ElfW(Dyn) *e = lm->l_ld; e->d_tag != DT_NULL; e++) {
		if (e->d_tag == DT_SYMTAB)
			d->sym = (const ElfW(Sym) *)dyn_ptr(lm, e->d_un.d_ptr);
		else if (e->d_tag == DT_GNU_HASH)
			gnu = (const uint32_t *)dyn_ptr(lm, e->d_un.d_ptr);
		else if (e->d_tag == DT_HASH)
			sysv = (const uint32_t *)dyn_ptr(lm, e->d_un.d_ptr);
	}
	d->base = lm->l_addr;
	d->n = gnu ? gnu_hash_count(gnu) : sysv ? sysv[1] : 0;
	return d->sym != NULL && d->n > 0;
}

/* The first range starting at a (sorted r), or n. */
static uint32_t find_lo(const struct range *r, uint32_t n, uintptr_t a)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].lo == a ? lo : n;
}

/* Each wrapper's end from the size of the function symbol that starts
 * where it does, as dladdr1 would give it; those without one are left
 * out. */
static void ends_from_symbols(struct apiprof_wrappers *w, const struct dynsyms *d)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < d->n; i++) {
		const ElfW(Sym) *s = &d->sym[i];
		uintptr_t a = d->base + s->st_value;

		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    s->st_size == 0)
			continue;
		for (uint32_t j = find_lo(w->r, w->n, a); j < w->n && w->r[j].lo == a; j++)
			w->r[j].hi = a + s->st_size;
	}
	for (uint32_t j = 0; j < w->n; j++)
		if (w->r[j].hi != 0)
			w->r[k++] = w->r[j];
	w->n = k;
}

/* The ranges of api's wrappers. */
static struct apiprof_wrappers *build(const struct apiprof_api *api)
{
	uint32_t n = apiprof_api_nsyms(api);
	struct apiprof_wrappers *w =
	        apiprof_arena_alloc(sizeof(*w) + (size_t)n * sizeof(struct range));
	struct dynsyms d;

	if (w == NULL)
		return NULL;
	bool one_pass = dynsyms_of(api, &d);
	for (uint32_t i = 0; i < n; i++) {
		struct range *r = &w->r[w->n];

		if (api->rows[i] >= api->nfuncs || api->entries[i] == NULL)
			continue;
		*r = (struct range){(uintptr_t)api->entries[i], 0, api->rows[i]};
		if (one_pass || range_of(api->entries[i], r))
			w->n++;
	}
	sort(w->r, w->n);
	if (one_pass)
		ends_from_symbols(w, &d);
	return w;
}

void apiprof_wrappers_add(const struct apiprof_api *api, uint32_t id)
{
	if (id >= APIPROF_MAX_APIS || api->entries == NULL || api->rows == NULL)
		return;
	struct apiprof_wrappers *w = build(api);
	if (w != NULL)
		apiprof_store_release(&by_id[id], w);
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
