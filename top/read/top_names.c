/* SPDX-License-Identifier: MIT */
/*
 * top_names.c - which segments there are, whose process they belong to,
 * and whether that process is gone.
 *
 * A segment's name (apiprof_segname.h) gives its process's pid in the
 * process's own pid namespace, and that namespace.  The viewer's /proc
 * numbers processes in another namespace, maybe: each segment is mapped to
 * the pid /proc shows, through /proc/<pid>/ns/pid and the last NSpid field
 * of /proc/<pid>/status.  A process that cannot be mapped is not listed
 * (its pid would mean nothing here), and what cannot be proven gone is
 * never removed: --clean removes a segment only when /proc shows that its
 * process no longer exists.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "top_shm.h"

/* The initial pid namespace's inode (the kernel's PROC_PID_INIT_INO): a
 * /proc of it shows every process of every namespace. */
#define PID_NS_INIT_INO 0xEFFFFFFCull

/* --- /proc ---------------------------------------------------------------- */

/* A whole small file, NUL-terminated; its length, or -1 with errno. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	int saved = errno;
	close(fd);
	errno = saved;
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* The inode of /proc/<pid>/ns/<kind> (pid "self" as 0); 0 when unreadable,
 * with errno. */
static uint64_t ns_inode(const char *procdir, int pid, const char *kind)
{
	char path[PATH_MAX];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "%s/%d/ns/%s", procdir, pid, kind);
	else
		snprintf(path, sizeof(path), "%s/self/ns/%s", procdir, kind);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* The NSpid line of /proc/<pid>/status: the pid in procdir's namespace
 * first, the pid in the process's own namespace last.  How many fields,
 * the last in *last; -1 when unreadable. */
static int proc_nspid(const char *procdir, const char *pid, long *last)
{
	char path[PATH_MAX], buf[4096];
	char *p, *end;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s/status", procdir, pid);
	if (read_small(path, buf, sizeof(buf)) < 0 || !(p = strstr(buf, "\nNSpid:")))
		return -1;
	p += strlen("\nNSpid:");
	for (;; n++) {
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		*last = v;
		p = end;
	}
	return n;
}

/* The pid namespace whose numbers procdir shows, when it is the viewer's
 * (its own NSpid has one field); else 0, and every segment is mapped.  A
 * kernel without NSpid (before 4.1): the viewer's. */
static uint64_t procdir_ns(const char *procdir)
{
	char path[PATH_MAX];
	long last;
	int k = proc_nspid(procdir, "self", &last);

	snprintf(path, sizeof(path), "%s/self/status", procdir);
	if (k == 1 || (k < 0 && access(path, R_OK) == 0))
		return ns_inode(procdir, 0, "pid");
	return 0;
}

/* 1: process pid of procdir is the one id names; 0: it is not, or there
 * is none; -1: cannot tell (its /proc entries are not ours to read). */
static int proc_is(const char *procdir, int pid, const struct apiprof_segid *id)
{
	char spid[16];
	uint64_t st, ns;
	long last = 0;
	int k;

	if (apiprof_proc_starttime(procdir, pid, &st))
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	if (!(ns = ns_inode(procdir, pid, "pid")))
		return errno == ENOENT ? 0 : -1;
	snprintf(spid, sizeof(spid), "%d", pid);
	if (ns != id->pidns)
		return 0;
	if ((k = proc_nspid(procdir, spid, &last)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (k < 1 || last != id->pid)
		return 0;
	if (st == id->starttime)
		return 1;
	/* The runtime read its start time in its own time namespace; the
	 * viewer reads it in its own.  Two of them: not comparable. */
	return ns_inode(procdir, pid, "time") == ns_inode(procdir, 0, "time") ? 0 : -1;
}

/* --- listing --------------------------------------------------------------- */

/* Whose segments the viewer sees: its own, and root's viewer everyone's,
 * as top shows every user's processes.  The owner is the uid of the name,
 * or another when the name's is root's: a process that drops privileges
 * hands its segment over and keeps the name (apiprof_segname.h). */
static bool listable_as(int dfd, const char *name, const struct apiprof_segid *id, uint32_t uid,
                        uint32_t *owner)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return false;
	*owner = st.st_uid;
	if (uid != 0 && st.st_uid != uid)
		return false;
	return st.st_uid == id->uid || id->uid == 0;
}

static bool listable(int dfd, const char *name, const struct apiprof_segid *id, uint32_t uid)
{
	uint32_t owner;

	return listable_as(dfd, name, id, uid, &owner);
}

static int push_name(struct top_segname **v, size_t *n, size_t *cap, const struct top_segname *e)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct top_segname *nv = realloc(*v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = *e;
	return 0;
}

/* Every segment name in directory dfd that uid may see, unmapped. */
static size_t list_names_at(int dfd, uint32_t uid, struct top_segname **out)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d) {
		int saved = errno;

		if (fd >= 0)
			close(fd);
		errno = saved;
		return 0;
	}
	while ((de = readdir(d))) {
		struct top_segname e;

		memset(&e, 0, sizeof(e));
		if (strlen(de->d_name) >= sizeof(e.name) ||
		    apiprof_segname_parse(de->d_name, &e.id) ||
		    !listable_as(dfd, de->d_name, &e.id, uid, &e.owner))
			continue;
		strcpy(e.name, de->d_name);
		e.starttime = e.id.starttime;
		if (push_name(out, &n, &cap, &e))
			break;
	}
	closedir(d);
	errno = 0; /* read */
	return n;
}

static int open_dir(const char *dir)
{
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* errno 0 when the directory was read, else why not. */
static size_t list_names(const char *dir, uint32_t uid, struct top_segname **out)
{
	int dfd = open_dir(dir);

	*out = NULL;
	if (dfd < 0)
		return 0;
	errno = 0;
	size_t n = list_names_at(dfd, uid, out);
	int saved = errno;
	close(dfd);
	errno = saved;
	return n;
}

/* One process of procdir, against the segments of foreign namespaces. */
static void map_one(const char *procdir, const char *pid, struct top_segname *v, size_t n)
{
	char path[PATH_MAX];
	struct stat st;
	long last;

	snprintf(path, sizeof(path), "%s/%s/ns/pid", procdir, pid);
	if (stat(path, &st))
		return;
	for (size_t i = 0; i < n; i++) {
		if (v[i].pid || v[i].id.pidns != (uint64_t)st.st_ino)
			continue;
		v[i].ns_seen = true;
		if (proc_nspid(procdir, pid, &last) >= 1 && last == v[i].id.pid)
			v[i].pid = atoi(pid);
	}
}

/* Gives each segment the pid procdir shows for its process: its own when
 * it lives in procdir's namespace (or says none, as a legacy name), else
 * found by one pass over procdir. */
static void map_pids(const char *procdir, struct top_segname *v, size_t n)
{
	uint64_t here = procdir_ns(procdir);
	size_t foreign = 0;
	struct dirent *de;
	DIR *d;

	for (size_t i = 0; i < n; i++) {
		if (v[i].id.pidns == 0 || v[i].id.pidns == here)
			v[i].pid = v[i].id.pid;
		else
			foreign++;
	}
	if (!foreign || !(d = opendir(procdir)))
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			map_one(procdir, de->d_name, v, n);
	closedir(d);
}

/* The segments uid may see in dir whose process /proc can name
 * (malloc'ed into *out); returns how many. */
size_t top_shm_list(const char *dir, uint32_t uid, struct top_segname **out)
{
	size_t n = list_names(dir, uid, out), j = 0;
	int listed = errno;

	map_pids(TOP_PROC_DIR, *out, n);
	for (size_t i = 0; i < n; i++)
		if ((*out)[i].pid)
			(*out)[j++] = (*out)[i];
	errno = listed;
	return j;
}

/* --- liveness ------------------------------------------------------------------------ */

/* 1 when process pid runs and started at starttime (the viewer's clock),
 * 0 when it is gone or its pid now belongs to another process. */
int top_shm_alive(const char *procdir, int pid, uint64_t starttime)
{
	uint64_t st;

	return apiprof_proc_starttime(procdir, pid, &st) == 0 && st == starttime;
}

int top_shm_proc_euid(const char *procdir, int pid, uint32_t *euid)
{
	char path[PATH_MAX], buf[4096];
	unsigned long ruid, e;
	const char *p;

	snprintf(path, sizeof(path), "%s/%d/status", procdir, pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	if (!(p = strstr(buf, "\nUid:")) || sscanf(p, "\nUid: %lu %lu", &ruid, &e) != 2) {
		errno = EINVAL;
		return -1;
	}
	*euid = (uint32_t)e;
	return 0;
}

/* True only when the process of segment `name`, shown as pid in procdir,
 * is proven gone.  A legacy name, or one whose namespace is unknown, is
 * judged by pid and start time alone, as before names had namespaces. */
bool top_shm_gone(const char *procdir, const char *name, int pid)
{
	struct apiprof_segid id;

	if (apiprof_segname_parse(name, &id) || pid <= 0)
		return false;
	if (id.pidns == 0)
		return !top_shm_alive(procdir, pid, id.starttime);
	return proc_is(procdir, pid, &id) == 0;
}

/* Whether procdir shows every process there is: it is the initial pid
 * namespace's, and not mounted hidepid=2 (its pid 1 shows). */
static bool sees_everyone(const char *procdir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/1", procdir);
	return procdir_ns(procdir) == PID_NS_INIT_INO && access(path, F_OK) == 0;
}

/* Whether process `name` of procdir is pid `pid` of its own namespace,
 * started at starttime: 1 yes, 0 no, -1 cannot tell (unreadable, or
 * another time namespace, whose start times are not comparable). */
static int candidate_is(const char *procdir, const char *name, int32_t pid, uint64_t starttime)
{
	long last = 0;
	uint64_t st;
	int k;

	errno = 0;
	if ((k = proc_nspid(procdir, name, &last)) < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	if (k < 1)
		return -1;
	if (last != pid)
		return 0;
	if (apiprof_proc_starttime(procdir, atoi(name), &st))
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	if (st == starttime)
		return 1;
	return ns_inode(procdir, atoi(name), "time") == ns_inode(procdir, 0, "time") ? 0 : -1;
}

/* False only when no process of procdir is, or may be, pid `pid` of its
 * own namespace started at starttime: a name that says no namespace (the
 * legacy form) may be any namespace's. */
static bool anyone_is(const char *procdir, int32_t pid, uint64_t starttime)
{
	DIR *d = opendir(procdir);
	struct dirent *de;
	bool maybe = false;

	if (!d)
		return true;
	while (!maybe) {
		errno = 0;
		if (!(de = readdir(d))) {
			maybe = errno != 0; /* a partial scan proves nothing */
			break;
		}
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			maybe = candidate_is(procdir, de->d_name, pid, starttime) != 0;
	}
	closedir(d);
	return maybe;
}

/* --clean's judgement: only what it can prove.  A namespace of which
 * procdir shows no process at all is gone only if procdir shows every
 * namespace (it is the initial one); else it may just be out of sight.
 * So is a name without a namespace: its pid may be a container's. */
static bool clean_gone(const char *procdir, const struct top_segname *e)
{
	if (e->id.pidns == 0)
		return sees_everyone(procdir) && !anyone_is(procdir, e->id.pid, e->id.starttime);
	if (e->pid)
		return proc_is(procdir, e->pid, &e->id) == 0;
	return e->ns_seen || procdir_ns(procdir) == PID_NS_INIT_INO;
}

/* 1 when removed; says so, or why not.  The name is looked at again, in
 * the directory it was listed in, right before it goes: still a regular
 * file (not a link) that uid may remove. */
static int clean_one(int dfd, const char *dir, const char *procdir, uint32_t uid,
                     const struct top_segname *e, FILE *out)
{
	char path[PATH_MAX];
	uint64_t st;
	bool reused = e->pid && apiprof_proc_starttime(procdir, e->pid, &st) == 0;
	bool ok = listable(dfd, e->name, &e->id, uid);

	snprintf(path, sizeof(path), "%s/%s", dir, e->name);
	if (!ok)
		errno = EPERM;
	else
		ok = unlinkat(dfd, e->name, 0) == 0;
	if (!ok) {
		fprintf(out, "cannot remove %s: %s\n", path, strerror(errno));
		return 0;
	}
	fprintf(out, "removed %s (pid %d %s)\n", path, e->pid ? e->pid : (int)e->id.pid,
	        reused ? "reused" : "gone");
	return 1;
}

/* Removes the segments uid may see whose process is proven gone; says
 * what it did. */
int top_shm_clean(const char *dir, const char *procdir, uint32_t uid, FILE *out)
{
	int dfd = open_dir(dir), removed = 0;
	struct top_segname *v = NULL;
	size_t n = dfd >= 0 ? list_names_at(dfd, uid, &v) : 0;

	map_pids(procdir, v, n);
	for (size_t i = 0; i < n; i++)
		if (clean_gone(procdir, &v[i]))
			removed += clean_one(dfd, dir, procdir, uid, &v[i], out);
	free(v);
	if (dfd >= 0)
		close(dfd);
	return removed;
}
