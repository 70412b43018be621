/* SPDX-License-Identifier: MIT */
/*
 * top_select.c - which segments a viewer shows (top_select.h).
 *
 * Judged when a segment is first listed and, while it is not wanted, at
 * each refresh again: a child is read from /proc while it runs, so one
 * that had ended and been reaped before the viewer first listed its
 * segment is not shown (nothing tells its parent then).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "top_ptree.h"
#include "top_select.h"

static bool has_uid(const struct top_select *s, uint32_t uid)
{
	for (size_t i = 0; i < s->nuids; i++)
		if (s->uids[i] == uid)
			return true;
	return false;
}

/* procdir/<pid>/comm without its newline, if the process is still the
 * one that started at starttime; -1 otherwise. */
static int comm_read(const char *procdir, const struct top_segname *sn, char *out, size_t cap)
{
	char path[64];
	uint64_t st;

	snprintf(path, sizeof(path), "%s/%d/comm", procdir, sn->pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, out, cap - 1);
	close(fd);
	if (n <= 0 || top_ppid_read(procdir, sn->pid, &st) < 0 || st != sn->starttime)
		return -1;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static bool has_comm(const struct top_select *s, const char *procdir, const struct top_segname *sn)
{
	char comm[TOP_SELECT_COMM_LEN];

	if (comm_read(procdir, sn, comm, sizeof(comm)) != 0)
		return false;
	for (size_t i = 0; i < s->ncomms; i++)
		if (!strcmp(s->comms[i], comm))
			return true;
	return false;
}

static bool has_pid(const struct top_select *s, const char *procdir, const struct top_segname *sn)
{
	for (size_t i = 0; i < s->npids; i++)
		if (s->pids[i] == sn->pid)
			return true;
	return s->children &&
	       top_ptree_descends(procdir, sn->pid, sn->starttime, s->pids, s->npids);
}

bool top_select_all(const struct top_select *s)
{
	return !s->npids && !s->nuids && !s->ncomms;
}

bool top_select_wanted(const struct top_select *s, const char *procdir,
                       const struct top_segname *sn)
{
	return (!s->nuids || has_uid(s, sn->owner)) && (!s->npids || has_pid(s, procdir, sn)) &&
	       (!s->ncomms || has_comm(s, procdir, sn));
}
