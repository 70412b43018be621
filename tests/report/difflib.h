/* SPDX-License-Identifier: MIT */
/*
 * difflib.h - the diff's test library (issue 39.2, test_diff.py): three
 * functions that spin a fixed number of rounds and one that fails every
 * tenth call.  Its knobs, read once: DIFFLIB_SLOW=NAME makes NAME spin
 * twice as many rounds (all: the three); DIFFLIB_FAIL=N makes dl_try
 * fail every Nth call.
 */
#ifndef DIFFLIB_H
#define DIFFLIB_H

void dl_big(void);   /* 4000 rounds */
void dl_mid(void);   /* 1000 rounds */
void dl_small(void); /* 250 rounds */
int dl_try(int i);   /* -1 (errno EAGAIN) every tenth call, else 0 */

#endif /* DIFFLIB_H */
