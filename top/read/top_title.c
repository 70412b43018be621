/* SPDX-License-Identifier: MIT */
/* top_title.c - a process's title from /proc/<pid>/cmdline. */
#include "top_title.h"

#include "apiprof_title.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int top_title_read(const char *procdir, int pid, char *buf, size_t len)
{
	char path[64];

	buf[0] = '\0';
	if (pid <= 0 || len < 2) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(path, sizeof(path), "%s/%d/cmdline", procdir, pid) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n < len - 1) {
		ssize_t r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				int e = errno;
				close(fd);
				buf[0] = '\0';
				errno = e;
				return -1;
			}
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	return (int)apiprof_title_clean(buf, n);
}
