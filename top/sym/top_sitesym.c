/* SPDX-License-Identifier: MIT */
/*
 * top_sitesym.c - a cache of resolved call sites (top_sitesym.h): open
 * addressing on (pid, starttime, address), cleared when full so that a
 * long-running viewer stays bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "top_sitesym.h"

struct entry {
	int pid;
	uint64_t starttime;
	uint64_t addr; /* 0: empty */
	struct top_sym sym;
};

static struct {
	struct top_sym_cache *dwfl;
	struct entry *tab; /* 2 * TOP_SITESYM_MAX slots */
	size_t n;
	struct top_sym unknown;
	top_sym_warn_fn warn;
	void *warn_ctx;
} sc;

#define SLOTS (2 * TOP_SITESYM_MAX)

static size_t slot_of(int pid, uint64_t starttime, uint64_t addr)
{
	uint64_t k = (addr ^ ((uint64_t)(uint32_t)pid << 40) ^ starttime) * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(k >> 40) % SLOTS;

	while (sc.tab[i].addr && !(sc.tab[i].addr == addr && sc.tab[i].pid == pid &&
	                           sc.tab[i].starttime == starttime))
		i = (i + 1) % SLOTS;
	return i;
}

static int cache_ready(void)
{
	if (!sc.dwfl && !(sc.dwfl = top_sym_cache_new()))
		return -1;
	top_sym_cache_warn(sc.dwfl, sc.warn, sc.warn_ctx);
	if (!sc.tab && !(sc.tab = calloc(SLOTS, sizeof(*sc.tab))))
		return -1;
	if (sc.n >= TOP_SITESYM_MAX) {
		memset(sc.tab, 0, SLOTS * sizeof(*sc.tab));
		sc.n = 0;
	}
	return 0;
}

const struct top_sym *top_sitesym(int pid, uint64_t starttime, uint64_t addr)
{
	memset(&sc.unknown, 0, sizeof(sc.unknown));
	sc.unknown.kind = TOP_SYM_UNKNOWN;
	if (addr == 0 || pid <= 0 || cache_ready())
		return &sc.unknown;
	struct entry *e = &sc.tab[slot_of(pid, starttime, addr)];
	if (e->addr == 0) {
		e->pid = pid;
		e->starttime = starttime;
		e->addr = addr;
		top_sym_resolve(sc.dwfl, pid, starttime, addr - 1, &e->sym);
		sc.n++;
	}
	return &e->sym;
}

const char *top_sitesym_label(int pid, uint64_t starttime, uint64_t addr, char *buf, size_t cap)
{
	return top_sym_label(top_sitesym(pid, starttime, addr), buf, cap);
}

void top_sitesym_refresh(void)
{
	if (sc.dwfl)
		top_sym_cache_next(sc.dwfl);
}

void top_sitesym_warn(top_sym_warn_fn fn, void *ctx)
{
	sc.warn = fn;
	sc.warn_ctx = ctx;
	if (sc.dwfl)
		top_sym_cache_warn(sc.dwfl, fn, ctx);
}

void top_sitesym_free(void)
{
	top_sym_cache_free(sc.dwfl);
	free(sc.tab);
	sc.dwfl = NULL;
	sc.tab = NULL;
	sc.n = 0;
}
