/* SPDX-License-Identifier: MIT */
/*
 * apiprof_creds.c - the runtime's interposers of the uid changes.
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
#include <string.h>
#include <unistd.h>

#include "apiprof_internal.h"

typedef int (*uid1_fn)(uid_t);
typedef int (*uid2_fn)(uid_t, uid_t);
typedef int (*uid3_fn)(uid_t, uid_t, uid_t);

/* Before the call: hands the segment to the effective uid the call will
 * give, if it succeeds (-1: unchanged).  errno is the program's again. */
static void before(uid_t euid)
{
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();

	if (euid != (uid_t)-1 && euid != geteuid())
		apiprof_segment_handover(euid);
	apiprof_busy_leave(busy);
	errno = saved;
}

/* After the call: the segment's owner is the effective uid the process
 * has now, whatever happened (a failed call: the one it had; a regained
 * privilege: the first moment the handover can succeed).  Returns r with
 * the call's errno. */
static int after(int r)
{
	int saved = errno;
	uint64_t busy = apiprof_busy_enter();

	apiprof_segment_handover(geteuid());
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

	before(uid);
	return after(f ? f(uid) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int seteuid(uid_t euid)
{
	uid1_fn f = APIPROF_REAL(real_seteuid, "seteuid");

	before(euid);
	return after(f ? f(euid) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int setreuid(uid_t ruid, uid_t euid)
{
	uid2_fn f = APIPROF_REAL(real_setreuid, "setreuid");

	before(euid);
	return after(f ? f(ruid, euid) : (errno = ENOSYS, -1));
}

APIPROF_EXPORT int setresuid(uid_t ruid, uid_t euid, uid_t suid)
{
	uid3_fn f = APIPROF_REAL(real_setresuid, "setresuid");

	before(euid);
	return after(f ? f(ruid, euid, suid) : (errno = ENOSYS, -1));
}
