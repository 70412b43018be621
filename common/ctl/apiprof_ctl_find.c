/* SPDX-License-Identifier: MIT */
/*
 * apiprof_ctl_find.c - which segments belong to the process asked for: names
 * parsed by the one parser (apiprof_segname.h), the pid and the start
 * time checked against /proc (a reused pid is another process), and, for
 * --comm, the name /proc gives the process.  Only processes of this pid
 * namespace (or a name without one): a container's are steered from
 * inside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_ctl_send.h"

static uint64_t my_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* The process's name as /proc shows it, without the newline. */
static int proc_comm(int pid, char *buf, size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The segment id names a process that lives now, in this namespace. */
static bool live_here(const struct apiprof_segid *id, uint64_t ns)
{
	uint64_t st;

	if (id->legacy || (id->pidns != 0 && id->pidns != ns))
		return false;
	return apiprof_proc_starttime("/proc", id->pid, &st) == 0 && st == id->starttime;
}

static bool wanted(const struct apiprof_segid *id, int pid, const char *comm)
{
	char name[64];

	if (comm == NULL)
		return id->pid == pid;
	return proc_comm(id->pid, name, sizeof(name)) == 0 && strcmp(name, comm) == 0;
}

int apiprof_ctl_find(const char *dir, int pid, const char *comm, struct apiprof_ctl_target *out,
                     size_t cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	uint64_t ns = my_pidns();
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) && (size_t)n < cap) {
		struct apiprof_segid id;

		if (strlen(de->d_name) >= sizeof(out->name) ||
		    apiprof_segname_parse(de->d_name, &id) != 0 || !wanted(&id, pid, comm) ||
		    !live_here(&id, ns))
			continue;
		memcpy(out[n].name, de->d_name, strlen(de->d_name) + 1);
		out[n++].pid = id.pid;
	}
	closedir(d);
	return n;
}
