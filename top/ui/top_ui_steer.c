/* SPDX-License-Identifier: MIT */
/*
 * top_ui_steer.c - the live view's keys that steer the selected process
 * (issue 37), as apiprof-ctl does (apiprof_ctl_send.h): m cycles its mode
 * full -> sampled:64 -> count -> off -> full, R resets its "since reset"
 * totals.  The answer, or why there is none, goes to the status line.
 * The wait for an answer is short (the process answers at once or not at
 * all): the view stops for at most STEER_WAIT_MS.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_ctl_send.h"
#include "apiprof_mode.h"
#include "top_shm.h"
#include "top_ui_int.h"

#define STEER_WAIT_MS 1000

/* The cycle, and the step the view took last for a few processes. */
static const struct apiprof_modeval cycle[] = {
        {APIPROF_LEVEL_FULL, 0},
        {APIPROF_LEVEL_SAMPLED, APIPROF_SAMPLE_DEFAULT},
        {APIPROF_LEVEL_COUNT, 0},
        {APIPROF_LEVEL_OFF, 0},
};
#define NCYCLE (sizeof(cycle) / sizeof(cycle[0]))
#define NLAST  32
static struct {
	int pid;
	uint64_t starttime;
	unsigned step;
} last[NLAST];

/* The selected line's process, or NULL. */
static const struct top_proc *selected(const struct ui *u)
{
	if (u->cursor < 0 || u->cursor >= (int)u->nlines || u->lines[u->cursor].kind == V_GROUP)
		return NULL; /* a group's summed figures are no process */
	return u->lines[u->cursor].proc;
}

/* Sends r to p; the answer in the status line. */
static void send(struct ui *u, const struct top_proc *p, const struct apiprof_ctl_request *r)
{
	struct apiprof_ctl_target t[4];
	int n = apiprof_ctl_find(TOP_SHM_DIR, p->pid, NULL, t, 4);

	if (n <= 0) {
		snprintf(u->status, sizeof(u->status), "pid %d: no segment to steer", p->pid);
		return;
	}
	apiprof_ctl_send(TOP_SHM_DIR, &t[0], r, STEER_WAIT_MS, u->status, sizeof(u->status));
}

/* The next step of p's cycle (from full when the view never set one). */
static unsigned next_step(const struct top_proc *p)
{
	unsigned k = (unsigned)p->pid % NLAST;

	if (last[k].pid != p->pid || last[k].starttime != p->starttime) {
		last[k].pid = p->pid;
		last[k].starttime = p->starttime;
		last[k].step = 0;
	}
	last[k].step = (last[k].step + 1) % NCYCLE;
	return last[k].step;
}

void top_ui_key_mode(struct ui *u, int ch)
{
	const struct top_proc *p = selected(u);
	struct apiprof_ctl_request r = {0, APIPROF_CTL_MODE, 0, ""};

	(void)ch;
	if (p == NULL) {
		snprintf(u->status, sizeof(u->status), "mode: select a process's row first");
		return;
	}
	r.arg = apiprof_mode_pack(cycle[next_step(p)]);
	send(u, p, &r);
}

void top_ui_key_preset(struct ui *u, int ch)
{
	const struct top_proc *p = selected(u);
	struct apiprof_ctl_request r = {0, APIPROF_CTL_RESET, 0, ""};

	(void)ch;
	if (p == NULL) {
		snprintf(u->status, sizeof(u->status), "reset: select a process's row first");
		return;
	}
	send(u, p, &r);
}
