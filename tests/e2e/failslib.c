// SPDX-License-Identifier: MIT
/* failslib.c - see failslib.h. */
#include <errno.h>

#include "failslib.h"

#define SAME(name, type)                                                                           \
	type name(type v)                                                                          \
	{                                                                                          \
		return v;                                                                          \
	}

SAME(fl_neg_int, int)
SAME(fl_neg_long, long)
SAME(fl_nonpos_int, int)
SAME(fl_nonpos_long, long)
SAME(fl_nonpos_short, short)
SAME(fl_m1_int, int)
SAME(fl_m1_short, short)
SAME(fl_m1_uint, unsigned)
SAME(fl_m1_ushort, unsigned short)
SAME(fl_m1_size, size_t)
SAME(fl_null, void *)
SAME(fl_zero_int, int)
SAME(fl_zero_ulong, unsigned long)
SAME(fl_nonzero_int, int)
SAME(fl_nonzero_ulong, unsigned long)
SAME(fl_not_int, int)
SAME(fl_not_long, long)
SAME(fl_not_uchar, unsigned char)

int fl_errno(int e)
{
	errno = e;
	return -1;
}
