/* SPDX-License-Identifier: MIT */
/*
 * treelib.h - three tiny libraries for the calling-context tree's tests
 * (issue 35.2).  They know nothing of apiprof.
 *
 *	tr_root (api treer)        ta_one, then ta_two
 *	  ta_one (api treea)       TREE_ONE mallocs and frees, from TREE_ONE_SITES
 *	                           call sites, then tb_call once
 *	    tb_call (api treeb)    TREE_B mallocs and frees
 *	  ta_two (api treea)       TREE_TWO mallocs and frees
 *	tr_close (api treer)       one malloc and free: the function called once
 *	                           at the end (sqlite3_close), which must not get
 *	                           the children of another
 *	tf_spawn (api treef)       forks; the child calls tr_close n times and
 *	                           exits inside it (TF_EXIT_INSIDE), or returns 0
 *	                           (TF_RETURN); the parent waits for it and
 *	                           returns its pid, -1 if it failed
 */
#ifndef TREELIB_H
#define TREELIB_H

#define TREE_ONE       1000
#define TREE_ONE_SITES 20 /* more than the 16 call sites a row keeps */
#define TREE_TWO       10
#define TREE_B         5

void tr_root(void);
void tr_close(void);
void ta_one(void);
void ta_two(void);
void tb_call(void);

enum { TF_EXIT_INSIDE = 0, TF_RETURN = 1 };
int tf_spawn(int n, int how);

#endif /* TREELIB_H */
