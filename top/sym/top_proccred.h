/* SPDX-License-Identifier: MIT */
/*
 * top_proccred.h - opening a process's files with that process's
 * credentials: a root viewer resolving another user's call sites reads
 * only what that user could read (top_sym.c).
 *
 * The file-system uid, gid and supplementary groups are changed for the
 * calling thread only (setfsuid, setfsgid, the raw setgroups system call),
 * around the opens, and restored after.  Only a viewer whose effective
 * uid is 0 changes them: any other may see only its own user's processes
 * (the kernel's check on /proc/PID/maps) and reads as that user anyway.
 */
#ifndef TOP_PROCCRED_H
#define TOP_PROCCRED_H

#include <stdbool.h>
#include <sys/types.h>

#define TOP_PROCCRED_GROUPS 256 /* a process in more groups is not acted as */

struct top_proccred {
	bool change; /* false: the viewer reads as itself */
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[TOP_PROCCRED_GROUPS];
};

/* The file-system credentials of process pid, from /proc/PID/status: 0,
 * or -1 (gone, unreadable, too many groups). */
int top_proccred_read(int pid, struct top_proccred *c);

/* The thread takes c's credentials for its file accesses, the ones it
 * had saved in *was: 0, or -1 with the thread's credentials as before. */
int top_proccred_enter(const struct top_proccred *c, struct top_proccred *was);

/* Back to *was: 0, or -1 if they could not all be restored. */
int top_proccred_leave(const struct top_proccred *was);

#endif /* TOP_PROCCRED_H */
