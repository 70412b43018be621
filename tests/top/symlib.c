/* SPDX-License-Identifier: MIT */
/* symlib.c - the shared library of sym_prog (test_sym.c): a function that
 * calls back into the program, so the program learns an address inside
 * this library, and where it was called from. */
#include "symlib.h"

void *symlib_call(void (*fn)(void **), void **inner)
{
	fn(inner); /* SYM-MARK symlib_call */
	return __builtin_return_address(0);
}
