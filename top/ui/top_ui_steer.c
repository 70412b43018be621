/* SPDX-License-Identifier: MIT */
/*
 * top_ui_steer.c - the live view's keys that steer the selected process
 * (issue 37), as apiprof-ctl does (apiprof_ctl_send.h): m sets the mode
 * after the one its line shows in full -> sampled:64 -> count -> off ->
 * full, R resets its "since reset" totals.  The answer, or why there is
 * none, goes to the status line.  The wait for an answer is short (the
 * process answers at once or not at all): the view stops for at most
 * STEER_WAIT_MS.
 */
#include <stdio.h>
#include <string.h>

#include "apiprof_ctl_send.h"
#include "apiprof_mode.h"
#include "top_shm.h"
#include "top_ui_int.h"

#define STEER_WAIT_MS 1000

/* The cycle; and the view's last step, for a key pressed again before a
 * refresh has shown what the process took. */
static const struct apiprof_modeval cycle[] = {
        {APIPROF_LEVEL_FULL, 0},
        {APIPROF_LEVEL_SAMPLED, APIPROF_SAMPLE_DEFAULT},
        {APIPROF_LEVEL_COUNT, 0},
        {APIPROF_LEVEL_OFF, 0},
};
#define NCYCLE (sizeof(cycle) / sizeof(cycle[0]))
static struct {
	int pid;
	uint64_t starttime;
	uint64_t refreshed;   /* its last_mono_ns when it took ... */
	struct top_mode sent; /* ... this mode */
} last;

/* The selected line's process, or NULL. */
static const struct top_proc *selected(const struct ui *u)
{
	if (u->cursor < 0 || u->cursor >= (int)u->nlines || u->lines[u->cursor].kind == V_GROUP)
		return NULL; /* a group's summed figures are no process */
	return u->lines[u->cursor].proc;
}

/* Sends r to p; the answer in the status line. */
static enum apiprof_send_status send(struct ui *u, const struct top_proc *p,
                                     const struct apiprof_ctl_request *r)
{
	struct apiprof_ctl_target t[4];
	int n = apiprof_ctl_find(TOP_SHM_DIR, p->pid, NULL, t, 4);

	if (n <= 0) {
		snprintf(u->status, sizeof(u->status), "pid %d: no segment to steer", p->pid);
		return APIPROF_SEND_NOPROC;
	}
	return apiprof_ctl_send(TOP_SHM_DIR, &t[0], r, STEER_WAIT_MS, u->status, sizeof(u->status));
}

/* The mode after m in the cycle (any sampled:N is sampled's place; full
 * after one not known). */
static struct apiprof_modeval after(struct top_mode m)
{
	for (unsigned k = 0; m.known && k < NCYCLE; k++)
		if (m.v.level == cycle[k].level)
			return cycle[(k + 1) % NCYCLE];
	return cycle[0];
}

/* The next of the mode p shows, or of the one the view set last when no
 * refresh has shown it yet. */
static struct apiprof_modeval next_mode(const struct top_proc *p)
{
	bool pending = last.pid == p->pid && last.starttime == p->starttime &&
	               last.refreshed == p->last_mono_ns;

	return after(pending ? last.sent : p->steer);
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
	struct apiprof_modeval m = next_mode(p);
	r.arg = apiprof_mode_pack(m);
	if (send(u, p, &r) == APIPROF_SEND_OK) {
		last.pid = p->pid;
		last.starttime = p->starttime;
		last.refreshed = p->last_mono_ns;
		last.sent = (struct top_mode){m, true};
	}
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
