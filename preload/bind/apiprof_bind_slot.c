// SPDX-License-Identifier: MIT
/*
 * apiprof_bind_slot.c - writing one slot, and putting it back.
 *
 * A slot is written with one aligned 8-byte atomic store, so a thread
 * calling through it meanwhile jumps either to the old target or to the
 * new one.  A slot on a page the loader made read-only (RELRO: the GOT
 * with -z relro, everything with -z now, .data.rel.ro) is made writable
 * for the store and read-only again right after; when mprotect refuses,
 * that slot is left as it was, and one line says so.
 *
 * Every slot written is recorded with the value it held, for
 * apiprof_bind_revert.  Revert writes a slot back only when its object is
 * still loaded and the slot still holds what the engine wrote.  The
 * records live in memory of their own (mmap), so nothing here calls the
 * program's malloc.  Callers hold the engine's lock.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apiprof_bind_int.h"

struct bind_rec {
	uintptr_t *slot;
	uintptr_t old, now;
	uintptr_t dyn, base; /* its object */
	bool ro;
};

static struct bind_rec *recs;
static size_t nrecs, caprecs;

static int grow(void)
{
	size_t cap = caprecs ? 2 * caprecs : 4096 / sizeof(*recs) * 4;
	void *p = mmap(NULL, cap * sizeof(*recs), PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -ENOMEM;
	if (recs != NULL) {
		memcpy(p, recs, nrecs * sizeof(*recs));
		munmap(recs, caprecs * sizeof(*recs));
	}
	recs = p;
	caprecs = cap;
	return 0;
}

static bool read_only(const struct bind_obj *o, uintptr_t p)
{
	return p >= o->relro_lo && p < o->relro_hi;
}

/* Stores now in *slot, with the page writable for the moment if it is
 * read-only; 0, or -errno of mprotect (nothing written then). */
static int store(uintptr_t *slot, uintptr_t now, bool ro)
{
	uintptr_t page = (uintptr_t)slot & ~(uintptr_t)4095;

	if (ro && mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) != 0)
		return -errno;
	__atomic_store_n(slot, now, __ATOMIC_RELEASE);
	if (ro && mprotect((void *)page, 4096, PROT_READ) != 0)
		return 0; /* written; the page stays writable, which harms nothing */
	return 0;
}

int bind_slot_write(const struct bind_obj *o, uintptr_t *slot, uintptr_t now)
{
	bool ro = read_only(o, (uintptr_t)slot);
	uintptr_t old = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (!ro && !bind_obj_has(o, (uintptr_t)slot, sizeof(*slot), PF_W))
		return -EACCES;
	if (nrecs == caprecs && grow() < 0)
		return -ENOMEM;
	int r = store(slot, now, ro);
	if (r < 0)
		return r;
	recs[nrecs++] = (struct bind_rec){slot, old, now, o->dyn, o->base, ro};
	return 0;
}

struct live_arg {
	uintptr_t dyn, base;
	bool found;
};

static int live_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct live_arg *a = arg;

	(void)size;
	if (info->dlpi_addr != a->base)
		return 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC &&
		    info->dlpi_addr + info->dlpi_phdr[i].p_vaddr == a->dyn)
			return a->found = true, 1;
	return 0;
}

bool bind_obj_loaded(uintptr_t dyn, uintptr_t base)
{
	struct live_arg a = {dyn, base, false};

	dl_iterate_phdr(live_one, &a);
	return a.found;
}

void bind_slot_forget_gone(void)
{
	size_t k = 0;

	for (size_t i = 0; i < nrecs; i++)
		if (bind_obj_loaded(recs[i].dyn, recs[i].base))
			recs[k++] = recs[i];
	nrecs = k;
}

/* Puts back the records of the object info describes, newest first, so
 * a slot written twice ends with its first value; inside the loader's
 * walk, so the object cannot be unmapped meanwhile. */
static int revert_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	int *res = arg; /* [0] slots put back, [1] the first error */

	(void)size;
	for (size_t i = nrecs; i-- > 0;) {
		struct bind_rec *r = &recs[i];
		struct live_arg a = {r->dyn, r->base, false};

		if (r->slot == NULL || (live_one(info, size, &a), !a.found))
			continue;
		if (__atomic_load_n(r->slot, __ATOMIC_ACQUIRE) == r->now) {
			int e = store(r->slot, r->old, r->ro);
			if (e == 0)
				res[0]++;
			else {
				bind_say("cannot put back the slot at %p (mprotect: %s); it keeps "
				         "leading to apiprof",
				         (void *)r->slot, strerror(-e));
				res[1] = res[1] ? res[1] : e;
			}
		}
		r->slot = NULL; /* done with */
	}
	return 0;
}

/* Records of objects no longer loaded are dropped unread. */
int bind_slot_revert_all(void)
{
	int res[2] = {0, 0};

	if (nrecs > 0)
		dl_iterate_phdr(revert_one, res);
	nrecs = 0;
	return res[1] < 0 && res[0] == 0 ? res[1] : res[0];
}
