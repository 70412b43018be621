/* SPDX-License-Identifier: MIT */
/*
 * apiprof_file.h - writing a file that someone named: APIPROF_OUTPUT in the
 * runtime, `apiprof-gen -o` and `apiprof-top --textfile`, one logic for all.
 *
 * A regular file (or a name that does not exist yet) is replaced whole: the
 * text goes to a fresh temporary in the same directory, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW under a random name, and is renamed over the
 * name only once every write and the close succeeded.  Anything else is
 * never replaced: a character device or a FIFO with a reader, ours or
 * root's, is written as it is, without ever blocking (it stays
 * O_NONBLOCK, and all its writes together wait at most
 * APIPROF_FILE_WAIT_MS for the reader); a directory, block device, socket,
 * FIFO without a reader and a FIFO or device of another user is refused.
 * A symlink is followed only when it belongs to us or to root; a regular
 * file of another user is not replaced.
 *
 * Debug hook: APIPROF_DEBUG_TMP_NONCE=<16 hex digits> makes the first
 * temporary name tried PATH.<those digits>.tmp (the next ones are random
 * again), so that a test can plant something at it.  It cannot make
 * anything less safe: the name only decides which O_CREAT|O_EXCL|O_NOFOLLOW
 * open is tried first, and a taken name costs one more try.  Ignored in a
 * set-uid program (secure_getenv).
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
#define APIPROF_FILE_WAIT_MS  2000 /* for a FIFO's or device's reader, in all */

struct apiprof_file {
	int dir;                              /* path is relative to it (AT_FDCWD) */
	int fd;                               /* what to write to, -1 when closed */
	bool replace;                         /* fd is tmp, renamed over path at the end */
	int err;                              /* after a failure: an errno ... */
	const char *why;                      /* ... or, when not NULL, this text */
	long long until_ms;                   /* CLOCK_MONOTONIC: writes give up then */
	char path[APIPROF_FILE_PATH_MAX];     /* the destination, our own symlinks followed */
	char tmp[APIPROF_FILE_PATH_MAX + 32]; /* the temporary, when replacing */
};

/* Opens what writing to path means (see above).  mode is for a new file; a
 * replaced file keeps its permission bits.  0, or -1 with the reason kept. */
int apiprof_file_open(struct apiprof_file *f, const char *path, mode_t mode);

/* The same, path relative to the directory open on dir (kept open by the
 * caller until apiprof_file_close). */
int apiprof_file_openat(struct apiprof_file *f, int dir, const char *path, mode_t mode);

/* Closes f->fd (unless the caller has closed it already and set it to -1)
 * and, when ok and replacing, renames the temporary into place; otherwise
 * removes it, so the previous file stays.  0, or -1 with the reason kept. */
int apiprof_file_close(struct apiprof_file *f, bool ok);

/* Writes all of buf to f->fd (apiprof_file_write), waiting for a slow
 * reader only until f's deadline.  0, or -1 with the reason kept. */
int apiprof_file_put(struct apiprof_file *f, const void *buf, size_t len);

/* Reads the debug hook (above) now; otherwise the first temporary name
 * reads it.  The runtime calls it at start-up, not as the process ends. */
void apiprof_file_init(void);

/* Remembers errno as the reason of a failure the caller saw (a write). */
void apiprof_file_failed(struct apiprof_file *f, int err);

/* The reason of the last failure, as one short text. */
const char *apiprof_file_why(const struct apiprof_file *f);

/* Writes all of buf, retrying short writes and EINTR, without ever raising
 * SIGPIPE or SIGXFSZ in the process (a socket gets MSG_NOSIGNAL; around a
 * write to a pipe or regular file both are blocked, and the one our write
 * raised taken back, never one that was pending before).  A regular file
 * is not written past RLIMIT_FSIZE: EFBIG, and nothing of buf written.
 * 0, or -1 with errno set. */
int apiprof_file_write(int fd, const void *buf, size_t len);

#endif /* APIPROF_FILE_H */
