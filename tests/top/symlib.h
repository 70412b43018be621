/* SPDX-License-Identifier: MIT */
#ifndef SYMLIB_H
#define SYMLIB_H

/* Calls fn(inner) and returns its own return address: a point in its
 * caller.  fn sees a return address in symlib_call. */
void *symlib_call(void (*fn)(void **), void **inner);

#endif /* SYMLIB_H */
