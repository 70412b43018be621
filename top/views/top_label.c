/* SPDX-License-Identifier: MIT */
/*
 * top_label.c - a process's labels, as every view prints them (top_label.h).
 */
#include <stdbool.h>
#include <stdio.h>

#include "apiprof_stat.h"
#include "top_label.h"

const char *top_clock_name(uint32_t clock)
{
	switch (clock) {
	case APIPROF_CLOCK_TSC:
		return "tsc";
	case APIPROF_CLOCK_MONOTONIC:
		return "monotonic";
	}
	return "?";
}

/* Mode 0 is the generated shims; later modes are only numbered so far. */
const char *top_mode_name(uint32_t mode, char *buf, size_t cap)
{
	if (mode == 0)
		snprintf(buf, cap, "shim");
	else
		snprintf(buf, cap, mode == 1 ? "dyn" : "mode %u", mode);
	return buf;
}

const char *top_steer_name(struct top_mode m, char *buf, size_t cap)
{
	if (!m.known)
		snprintf(buf, cap, "?");
	else
		apiprof_mode_format(m.v, buf, cap);
	return buf;
}

static bool steer_same(struct top_mode a, struct top_mode b)
{
	return a.known && b.known && a.v.level == b.v.level && a.v.sample == b.v.sample;
}

/* The name of api id in p's function table, or NULL. */
static const char *api_name(const struct top_proc *p, uint32_t id)
{
	for (uint32_t i = 0; i < p->nfuncs; i++)
		if (p->funcs[i].api_id == id)
			return p->funcs[i].api;
	return NULL;
}

const char *top_steer_text(const struct top_proc *p, char *buf, size_t cap)
{
	char m[32];
	size_t len = (size_t)snprintf(buf, cap, "%s", top_steer_name(p->steer, m, sizeof(m)));

	for (uint32_t id = 1; id < APIPROF_SHM_APIS && len < cap; id++) {
		struct top_mode a = p->api_steer[id];

		if ((a.known && a.v.level == APIPROF_LEVEL_NONE) || steer_same(a, p->steer))
			continue;
		const char *name = api_name(p, id);
		int w = name ? snprintf(buf + len, cap - len, ", %s %s", name,
		                        top_steer_name(a, m, sizeof(m)))
		             : snprintf(buf + len, cap - len, ", api#%u %s", id,
		                        top_steer_name(a, m, sizeof(m)));
		len += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

const char *top_proc_name(const struct top_proc *p, char *buf, size_t cap)
{
	if (p->title[0])
		snprintf(buf, cap, "%s \"%s\"", p->comm, p->title);
	else
		snprintf(buf, cap, "%s", p->comm);
	return buf;
}
