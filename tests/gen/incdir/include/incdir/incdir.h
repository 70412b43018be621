/* incdir.h - found only through the spec's "include_dirs", and usable only
 * with its "defines" (run_build_incdir.sh). */
#ifndef INCDIR_H
#define INCDIR_H

#if !defined(INCDIR_WANTED) || INCDIR_LEVEL != 3
#error "the spec's defines did not reach the header"
#endif

#include <stdlib.h>

#endif
