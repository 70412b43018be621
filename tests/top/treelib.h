/* SPDX-License-Identifier: MIT */
/* treelib.h - a second api for apiprof-top's call-site tests (issue 23):
 * its one function calls toplib's, so a call tree spans two apis. */
#ifndef TREELIB_H
#define TREELIB_H

int tr_outer(int n); /* calls tt_work TREELIB_INNER times */

#define TREELIB_INNER 5

#endif /* TREELIB_H */
