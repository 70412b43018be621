/* SPDX-License-Identifier: MIT */
/*
 * top_proccred.c - acting as a process for file access (top_proccred.h).
 *
 * setfsuid and setfsgid return the previous value whatever happens; the
 * value -1 changes nothing, so asking with it tells whether a change took.
 * glibc's setgroups changes every thread of the viewer: the system call
 * itself changes only the caller's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "top_proccred.h"

/* "Uid:\tR\tE\tS\tFS": the fourth. */
static int fourth(const char *rest, unsigned *v)
{
	return sscanf(rest, "%*u %*u %*u %u", v) == 1 ? 0 : -1;
}

static int read_groups(const char *rest, struct top_proccred *c)
{
	int at = 0, n;
	unsigned g;

	c->ngroups = 0;
	while (sscanf(rest + at, " %u%n", &g, &n) == 1) {
		if (c->ngroups == TOP_PROCCRED_GROUPS)
			return -1;
		c->groups[c->ngroups++] = g;
		at += n;
	}
	return 0;
}

int top_proccred_read(int pid, struct top_proccred *c)
{
	char name[64], line[4096];
	unsigned uid = 0, gid = 0;
	int found = 0, bad = 0;

	memset(c, 0, sizeof *c);
	if (geteuid() != 0)
		return 0;
	snprintf(name, sizeof name, "/proc/%d/status", pid);
	FILE *f = fopen(name, "re");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "Uid:", 4) == 0)
			found |= fourth(line + 4, &uid) == 0 ? 1 : 0;
		else if (strncmp(line, "Gid:", 4) == 0)
			found |= fourth(line + 4, &gid) == 0 ? 2 : 0;
		else if (strncmp(line, "Groups:", 7) == 0 && strchr(line, '\n') != NULL)
			bad |= read_groups(line + 7, c), found |= 4;
	}
	fclose(f);
	if (found != 7 || bad)
		return -1;
	c->change = true;
	c->uid = uid;
	c->gid = gid;
	return 0;
}

static int set_groups(int n, const gid_t *groups)
{
	return (int)syscall(SYS_setgroups, (size_t)n, groups);
}

int top_proccred_enter(const struct top_proccred *c, struct top_proccred *was)
{
	memset(was, 0, sizeof *was);
	if (!c->change)
		return 0;
	int n = getgroups(TOP_PROCCRED_GROUPS, was->groups);
	if (n < 0)
		return -1;
	was->ngroups = n;
	was->change = true;
	was->uid = (uid_t)setfsuid((uid_t)-1);
	was->gid = (gid_t)setfsgid((gid_t)-1);
	if (set_groups(c->ngroups, c->groups) != 0)
		return -1;
	setfsgid(c->gid);
	setfsuid(c->uid);
	if ((uid_t)setfsuid((uid_t)-1) == c->uid && (gid_t)setfsgid((gid_t)-1) == c->gid)
		return 0;
	top_proccred_leave(was);
	return -1;
}

int top_proccred_leave(const struct top_proccred *was)
{
	if (!was->change)
		return 0;
	setfsuid(was->uid);
	setfsgid(was->gid);
	int rc = set_groups(was->ngroups, was->groups);
	if (rc != 0 || (uid_t)setfsuid((uid_t)-1) != was->uid ||
	    (gid_t)setfsgid((gid_t)-1) != was->gid)
		return -1;
	return 0;
}
