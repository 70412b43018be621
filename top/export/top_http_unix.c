/* SPDX-License-Identifier: MIT */
/*
 * top_http_unix.c - the exporter's Unix socket (top_http_unix.h).
 *
 * bind(2) makes the file, and fails on any file already there: nothing
 * is replaced.  The mode comes from the umask at the bind, so there is no
 * chmod of a path that could have been swapped since.  At exit the file
 * is removed only if it is still the socket that was made.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "top_http.h"
#include "top_http_unix.h"

int top_http_unix_listen(const char *path, struct stat *made)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path) || !path[0]) {
		fprintf(stderr, "apiprof-top: bad --listen unix:%s: want a path below %zu bytes\n",
		        path, sizeof(sa.sun_path));
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		goto fail;
	mode_t old = umask(0111);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc != 0 || lstat(path, made) != 0 || listen(fd, TOP_HTTP_MAX_CONN) != 0)
		goto fail;
	return fd;
fail:
	fprintf(stderr, "apiprof-top: cannot listen on unix:%s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

void top_http_unix_remove(const char *path, const struct stat *made)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == made->st_dev &&
	    st.st_ino == made->st_ino)
		unlink(path);
}

int top_http_unix_peer(int fd, uint32_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || len != sizeof(cr))
		return -1;
	*uid = (uint32_t)cr.uid;
	return 0;
}
