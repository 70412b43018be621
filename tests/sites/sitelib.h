/* SPDX-License-Identifier: MIT */
/* sitelib.h - tiny libraries for the call-site tests (issue 23).  They know
 * nothing of apiprof.  sl_work and sl_spin (n rounds of a loop: its time
 * grows with n) are api "sitelib"'s;
 * a_work (api "sitea") calls b_leaf (api "siteb") SITE_LEAF_PER_WORK
 * times per call, from another library, so that the call goes through
 * b_leaf's shim. */
#ifndef SITELIB_H
#define SITELIB_H

#define SITE_LEAF_PER_WORK 5
#define SITE_TWO_LEAF      2 /* b_leaf calls of one a_two call */
#define SITE_TWO_TWIG      3 /* b_twig calls of one a_two call */

int sl_work(int n);
int sl_spin(int n);
int a_work(int n);
int a_mix(int n);  /* a_leaf SITE_LEAF_PER_WORK times */
int a_leaf(int n); /* b_leaf once: not in sitea.json, a site shared by a_mix and its callers */
int a_two(int n);  /* b_leaf SITE_TWO_LEAF times, b_twig SITE_TWO_TWIG times */
int a_tail(int n); /* b_leaf(n + 1), a tail call */
int b_leaf(int n);
int b_twig(int n); /* api "siteb", as b_leaf */

#endif /* SITELIB_H */
