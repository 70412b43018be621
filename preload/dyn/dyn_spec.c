// SPDX-License-Identifier: MIT
/*
 * dyn_spec.c - the specs named by APIPROF_SPEC.
 *
 * Both halves of dynamic mode read them before main: the audit module at
 * la_version, the profiler in its constructor.  A name that is not a
 * regular file (a FIFO, a device, a directory) must not stop the program
 * there, so a spec is opened without blocking and read only when the
 * descriptor is a regular file.  The runtime has a fixed number of api
 * ids; the specs past it are not read at all, so the first ones keep
 * their closures (a later copy of the same symbols would take the slots
 * over with an api that can never be registered).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dyn_spec.h"

size_t dyn_spec_each(const char *specs, void (*fn)(const char *path, void *arg), void *arg)
{
	char *list = strdup(specs), *save = NULL;
	size_t n = 0;

	if (list == NULL)
		return 0;
	for (char *p = strtok_r(list, ":", &save); p != NULL; p = strtok_r(NULL, ":", &save))
		if (n++ < DYN_MAX_SPECS)
			fn(p, arg);
	free(list);
	return n;
}

struct spec *dyn_spec_load(const char *path, const char **why)
{
	struct spec *s = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	*why = NULL;
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) != 0)
		*why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else
		s = spec_load_fd(fd, path);
	close(fd);
	return s;
}
