/* SPDX-License-Identifier: MIT */
/* modelib.h - the libraries of the modes tests (issue 37): api "modea"
 * (libmodea.so) and api "modeb" (libmodeb.so). */
#ifndef MODELIB_H
#define MODELIB_H

#include <stddef.h>

int ma_call(int x);
/* n bytes (declared "bytes": "n" in modea.json); returns n */
size_t ma_put(size_t n);
/* Writes one byte to ack_fd, then blocks reading one byte from in_fd. */
int ma_wait(int in_fd, int ack_fd);
int mb_call(int x);

#endif
