/* SPDX-License-Identifier: MIT */
/* apiprof_watch.c - the watching marker's locks (see the .h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiprof_segname.h"
#include "apiprof_watch.h"

int apiprof_watch_open(int dfd, uint32_t uid, bool create)
{
	char name[sizeof(APIPROF_WATCH_PREFIX) + 16];
	const int flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
	struct stat st;

	if (apiprof_watchname_format(name, sizeof(name), uid) != 0) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = openat(dfd, name, create ? O_RDWR | O_CREAT | flags : O_RDONLY | flags, 0644);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
	    !(st.st_mode & (S_IWGRP | S_IWOTH)))
		return fd;
	close(fd);
	errno = EPERM;
	return -1;
}

/* Slots [lo, lo + n). */
static bool range_held(int fd, int lo, int n)
{
	struct flock fl = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = lo, .l_len = n};

	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type == F_WRLCK;
}

bool apiprof_watch_held(int fd, int k)
{
	return k < 0 ? range_held(fd, 0, APIPROF_WATCH_SLOTS) : range_held(fd, k, 1);
}

uint32_t apiprof_watch_held_mask(int fd)
{
	uint32_t m = 0;

	if (!range_held(fd, 0, APIPROF_WATCH_SLOTS))
		return 0;
	for (int k = 0; k < APIPROF_WATCH_SLOTS; k++)
		m |= (uint32_t)range_held(fd, k, 1) << k;
	return m;
}

int apiprof_watch_take(int fd)
{
	for (int k = 0; k < APIPROF_WATCH_SLOTS; k++) {
		struct flock fl = {
		        .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = k, .l_len = 1};

		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return k;
		if (errno != EAGAIN && errno != EACCES)
			return -1;
	}
	errno = EAGAIN;
	return -1;
}
