/* SPDX-License-Identifier: MIT */
/*
 * top_label.c - a process's labels, as every view prints them (top_label.h).
 */
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

const char *top_proc_name(const struct top_proc *p, char *buf, size_t cap)
{
	if (p->title[0])
		snprintf(buf, cap, "%s \"%s\"", p->comm, p->title);
	else
		snprintf(buf, cap, "%s", p->comm);
	return buf;
}
