/* SPDX-License-Identifier: MIT */
/*
 * apiprof_creds.c - the runtime's interposers of the credential changes:
 * the set*id calls and setgroups, which glibc makes every thread do.
 *
 * The flusher is stopped around each of them.  glibc has every thread of
 * the process make the system call (its setxid broadcast, SIGSETXID) and
 * aborts the process ("Failed to ... setxid") when one fails where the
 * caller's succeeded.  The flusher would be such a thread in a program
 * that changes its own thread's capabilities first, as setpriv(1) does:
 * PR_SET_KEEPCAPS and capset on its thread, then setresuid (the flusher,
 * without KEEPCAPS, loses every capability), then setresgid (the flusher
 * fails with EPERM).  So the flusher is stopped (apiprof_flusher_stop:
 * told through its futex word and joined, no signal), the real call made
 * with exactly the program's own threads, and the flusher started again,
 * whatever the call's result: the new flusher has the credentials of the
 * calling thread after the call.  A process whose own threads cannot all
 * make the call is aborted by glibc as bare.  One thread exit and one
 * thread start per call, which is rare (a server drops privileges once).
 * initgroups is hooked too: glibc's own call of setgroups inside it is
 * not seen.
 *
 * A server started as root forks workers that become another user (nginx's
 * `user nobody`, postgres).  The worker's segment was created by root,
 * mode 0600: once the worker is nobody it could no longer reserve its ring
 * by name or remove the segment at exit, and nobody's apiprof-top would not
 * list it.  So the segment follows the effective uid: it is handed over
 * (fchown, apiprof_segment_handover) while the process still has the
 * privilege to do so, which is before a call that drops it, and after a
 * call that regains it.  A call that fails leaves the segment with the uid
 * the process still has.  The segment's descriptor is kept open besides
 * (apiprof_segment.c), so the ring is reserved whatever the uid is.
 *
 * Like the exec hooks (apiprof_hooks.c) these take effect only when
 * libapiprof.so is itself preloaded; the program's result and errno are
 * the real call's.  Credentials changed by raw system calls (Go, libcap's
 * cap_setuid) are not seen: such a worker's live view may be off.
 */
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"

typedef int (*uid1_fn)(uid_t);
typedef int (*uid2_fn)(uid_t, uid_t);
typedef int (*uid3_fn)(uid_t, uid_t, uid_t);
typedef int (*gid1_fn)(gid_t);
typedef int (*gid2_fn)(gid_t, gid_t);
typedef int (*gid3_fn)(gid_t, gid_t, gid_t);
typedef int (*groups_fn)(size_t, const gid_t *);
typedef int (*initgroups_fn)(const char *, gid_t);

/* Before the call: hands the segment to the effective uid the call will
 * give, if it succeeds (-1: unchanged; gid calls: -1), and stops the
 * flusher.  True when it stopped it.  errno is the program's again. */
static bool before(uid_t euid)
{
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();

	if (euid != (uid_t)-1 && euid != geteuid())
		apiprof_segment_handover(euid);
	bool stopped = apiprof_flusher_stop();
	apiprof_busy_leave(busy);
	errno = saved;
	return stopped;
}

/* After the call: the segment's owner is the effective uid the process
 * has now, whatever happened (a failed call: the one it had; a regained
 * privilege: the first moment the handover can succeed), and the flusher
 * runs again if `before` stopped it.  Returns r with the call's errno. */
static int after(int r, bool stopped)
{
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();

	apiprof_segment_handover(geteuid());
	if (stopped)
		apiprof_flusher_start();
	apiprof_busy_leave(busy);
	errno = saved;
	return r;
}

static uid1_fn real_setuid, real_seteuid;
static uid2_fn real_setreuid;
static uid3_fn real_setresuid;

APIPROF_EXPORT int setuid(uid_t uid)
{
	uid1_fn f = APIPROF_REAL(real_setuid, "setuid");
	bool stopped = before(uid);

	return after(f ? f(uid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int seteuid(uid_t euid)
{
	uid1_fn f = APIPROF_REAL(real_seteuid, "seteuid");
	bool stopped = before(euid);

	return after(f ? f(euid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	uid2_fn f = APIPROF_REAL(real_setreuid, "setreuid");
	bool stopped = before(euid);

	return after(f ? f(ruid, euid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	uid3_fn f = APIPROF_REAL(real_setresuid, "setresuid");
	bool stopped = before(euid);

	return after(f ? f(ruid, euid, suid) : (errno = ENOSYS, -1), stopped);
}

static gid1_fn real_setgid, real_setegid;
static gid2_fn real_setregid;
static gid3_fn real_setresgid;
static groups_fn real_setgroups;
static initgroups_fn real_initgroups;

APIPROF_EXPORT int setgid(gid_t gid)
{
	gid1_fn f = APIPROF_REAL(real_setgid, "setgid");
	bool stopped = before((uid_t)-1);

	return after(f ? f(gid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setegid(gid_t egid)
{
	gid1_fn f = APIPROF_REAL(real_setegid, "setegid");
	bool stopped = before((uid_t)-1);

	return after(f ? f(egid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setregid(gid_t rgid, gid_t egid)
{
	gid2_fn f = APIPROF_REAL(real_setregid, "setregid");
	bool stopped = before((uid_t)-1);

	return after(f ? f(rgid, egid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setresgid(gid_t rgid, gid_t egid, gid_t sgid)
{
	gid3_fn f = APIPROF_REAL(real_setresgid, "setresgid");
	bool stopped = before((uid_t)-1);

	return after(f ? f(rgid, egid, sgid) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int setgroups(size_t size, const gid_t *list)
{
	groups_fn f = APIPROF_REAL(real_setgroups, "setgroups");
	bool stopped = before((uid_t)-1);

	return after(f ? f(size, list) : (errno = ENOSYS, -1), stopped);
}

APIPROF_EXPORT int initgroups(const char *user, gid_t group)
{
	initgroups_fn f = APIPROF_REAL(real_initgroups, "initgroups");
	bool stopped = before((uid_t)-1);

	return after(f ? f(user, group) : (errno = ENOSYS, -1), stopped);
}
