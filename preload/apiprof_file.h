/* SPDX-License-Identifier: MIT */
/*
 * apiprof_file.h - writing a file that someone named: APIPROF_OUTPUT in the
 * runtime, `apiprof-gen -o` and `apiprof-top --textfile`, one logic for all.
 *
 * A regular file (or a name that does not exist yet) is replaced whole: the
 * text goes to a fresh temporary in the same directory, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a random name, and is renamed over the
 * name only once every write and the close succeeded.  Anything else is
 * never replaced: a character device or a FIFO with a reader is written as
 * it is, a directory, block device, socket or FIFO without a reader is
 * refused.  A symlink is followed only when it belongs to us or to root;
 * a regular file of another user is not replaced.
 *
 * Allocation-free, and nothing big on the stack: the runtime calls this as
 * its process ends, from whatever thread (or signal handler) ends it.  The
 * caller owns the struct (the runtime's is static).
 */
#ifndef APIPROF_FILE_H
#define APIPROF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define APIPROF_FILE_PATH_MAX 4096

struct apiprof_file {
	int fd;                               /* what to write to, -1 when closed */
	bool replace;                         /* fd is tmp, renamed over path at the end */
	int err;                              /* after a failure: an errno ... */
	const char *why;                      /* ... or, when not NULL, this text */
	char path[APIPROF_FILE_PATH_MAX];     /* the destination, our own symlinks followed */
	char tmp[APIPROF_FILE_PATH_MAX + 32]; /* the temporary, when replacing */
};

/* Opens what writing to path means (see above).  mode is for a new file; a
 * replaced file keeps its permission bits.  0, or -1 with the reason kept. */
int apiprof_file_open(struct apiprof_file *f, const char *path, mode_t mode);

/* Closes f->fd (unless the caller has closed it already and set it to -1)
 * and, when ok and replacing, renames the temporary into place; otherwise
 * removes it, so the previous file stays.  0, or -1 with the reason kept. */
int apiprof_file_close(struct apiprof_file *f, bool ok);

/* Remembers errno as the reason of a failure the caller saw (a write). */
void apiprof_file_failed(struct apiprof_file *f, int err);

/* The reason of the last failure, as one short text. */
const char *apiprof_file_why(const struct apiprof_file *f);

/* Writes all of buf, retrying short writes and EINTR, without ever raising
 * SIGPIPE in the process (a socket gets MSG_NOSIGNAL; for a pipe the
 * signal our write raises is blocked and taken back, never one that was
 * pending before).  0, or -1 with errno set. */
int apiprof_file_write(int fd, const void *buf, size_t len);

#endif /* APIPROF_FILE_H */
