/* SPDX-License-Identifier: MIT */
/* acctlib.h - functions whose bytes and failures a spec declares (acct.json). */
#ifndef ACCTLIB_H
#define ACCTLIB_H

#include <stddef.h>
#include <sys/types.h>

/* read(2) of up to n bytes: bytes from the return, fails when negative */
ssize_t acct_read(int fd, void *buf, size_t n);
/* open(2) for reading: fails minus_one, with errno */
int acct_open(const char *path);
/* -1 with errno e when e is not 0, else 0: fails minus_one, with errno */
int acct_check(int e);
/* calloc(size, n): bytes size x n, fails null */
void *acct_alloc(size_t size, size_t n);
/* code itself: every value but 0, 100 and 101 is a failure */
int acct_status(int code);
/* declares nothing */
int acct_plain(int x);

#endif
