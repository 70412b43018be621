/* SPDX-License-Identifier: MIT */
/*
 * top_folded.c - folded stacks (top_folded.h), from the process's
 * calling-context trees (top_tree.c): one stack per node, the path of
 * profiled calls it is, so every stack printed happened.
 */
#include "top_folded.h"
#include "top_tree.h"

int top_folded_proc(FILE *out, const struct top_proc *p, bool ns)
{
	return top_tree_folded(out, p, ns);
}
