/* SPDX-License-Identifier: MIT */
/*
 * forkprog.c - a fork inside a profiled call (issue 35.2, see treelib.h):
 * tr_root once, then tf_spawn(argv[1], argv[2]): its child calls tr_close
 * argv[1] times, inside tf_spawn (how 0) or after it returned (how 1),
 * and exits; the parent then calls tr_close once.  Exit 0 when the child
 * did.
 */
#include <stdlib.h>

#include "treelib.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, how = argc > 2 ? atoi(argv[2]) : TF_EXIT_INSIDE;

	tr_root();
	int pid = tf_spawn(n, how);
	if (pid == 0) {
		for (int i = 0; i < n; i++)
			tr_close();
		return 0;
	}
	tr_close();
	return pid > 0 ? 0 : 1;
}
