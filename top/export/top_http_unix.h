/* SPDX-License-Identifier: MIT */
/*
 * top_http_unix.h - the exporter's Unix socket (--listen unix:PATH): every
 * local user may connect, and the kernel says who did (SO_PEERCRED), so
 * that each scraper is served only what it may see.
 */
#ifndef TOP_HTTP_UNIX_H
#define TOP_HTTP_UNIX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#define TOP_HTTP_UNIX_PREFIX "unix:"

/* A listening socket made at path (never over an existing file), mode
 * 0666; *made says which file is ours, for top_http_unix_remove.  -1 when
 * it cannot (the message printed). */
int top_http_unix_listen(const char *path, struct stat *made);
/* Removes path if it is still the socket made. */
void top_http_unix_remove(const char *path, const struct stat *made);
/* The uid of the process at the other end of Unix socket fd: 0, or -1. */
int top_http_unix_peer(int fd, uint32_t *uid);

#endif /* TOP_HTTP_UNIX_H */
