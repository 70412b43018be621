/* SPDX-License-Identifier: MIT */
/*
 * top_title.h - a process's title: the command line it shows now.
 *
 * Servers rewrite their argv to say what each process is ("postgres:
 * checkpointer", "nginx: worker process"); /proc/<pid>/cmdline shows what
 * they wrote.  The viewer shows it beside the comm, and the exporter puts
 * it in a label.
 */
#ifndef TOP_TITLE_H
#define TOP_TITLE_H

#include <stddef.h>

#define TOP_TITLE_LEN 128 /* a title is cut to 127 bytes */

/* Reads procdir/<pid>/cmdline into buf (len bytes, at least 1): the
 * arguments joined by one space, trailing blanks dropped, bytes outside
 * printable ASCII shown as '?', cut to len - 1 bytes.  A process with no
 * command line (a kernel thread, a zombie) has the title "".  Returns the
 * title's length, or -1 with errno set (buf is then "") when the file
 * cannot be read: the process is gone or not ours to see. */
int top_title_read(const char *procdir, int pid, char *buf, size_t len);

#endif /* TOP_TITLE_H */
