// SPDX-License-Identifier: MIT
/*
 * imp_noclang.c - imp_parse when apiprof-gen was built without libclang.
 *
 * The importer parses headers with a real C compiler front end and with
 * nothing else, so without libclang `import` says so and stops.
 */
#include <stdio.h>

#include "imp.h"

int imp_parse(const struct imp_opts *o, struct imp_header *h)
{
	(void)o;
	(void)h;
	fputs("apiprof-gen: import: not available: this apiprof-gen was built without libclang "
	      "(install libclang-dev and rebuild)\n",
	      stderr);
	return -1;
}
