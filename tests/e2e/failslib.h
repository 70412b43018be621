/* SPDX-License-Identifier: MIT */
/* failslib.h - functions that return what they are given, one per "fails"
 * rule and return type (fails.json), and one that fails with the errno it
 * is given: the values a test chooses are the values the shim judges. */
#ifndef FAILSLIB_H
#define FAILSLIB_H

#include <stddef.h>

int fl_neg_int(int v);                           /* "negative" */
long fl_neg_long(long v);                        /* "negative" */
int fl_nonpos_int(int v);                        /* "nonpositive" */
long fl_nonpos_long(long v);                     /* "nonpositive" */
short fl_nonpos_short(short v);                  /* "nonpositive" */
int fl_m1_int(int v);                            /* "minus_one" */
short fl_m1_short(short v);                      /* "minus_one" */
unsigned fl_m1_uint(unsigned v);                 /* "minus_one" */
unsigned short fl_m1_ushort(unsigned short v);   /* "minus_one": 65535 */
size_t fl_m1_size(size_t v);                     /* "minus_one" */
void *fl_null(void *v);                          /* "null" */
int fl_zero_int(int v);                          /* "zero" */
unsigned long fl_zero_ulong(unsigned long v);    /* "zero" */
int fl_nonzero_int(int v);                       /* "nonzero" */
unsigned long fl_nonzero_ulong(unsigned long v); /* "nonzero" */
int fl_not_int(int v);                           /* {"not": [0, 100, 101]} */
long fl_not_long(long v);                        /* {"not": [-1, 0]} */
unsigned char fl_not_uchar(unsigned char v);     /* {"not": [0, -1]}: -1 is 255 */
/* -1 with errno e: "minus_one", "errno" */
int fl_errno(int e);

#endif
