/* SPDX-License-Identifier: MIT */
/*
 * test_errno_slots - the shims' errno-to-slot switch (apiprof_shim.h
 * apiprof_errno_slot) and the readers' slot-to-errno table (apiprof_abi.h
 * apiprof_errno_values) are one list: every slot's value comes back to its
 * slot, each value has one slot, and an errno not in the list is "other".
 */
#include <errno.h>

#include "apiprof_shim.h"
#include "check.h"

int main(void)
{
	CHECK(apiprof_errno_values[APIPROF_ERRNO_SLOT_OTHER] == 0);
	for (unsigned s = 1; s < APIPROF_ERRNO_SLOTS; s++) {
		CHECK(apiprof_errno_values[s] != 0);
		CHECK(apiprof_errno_slot(apiprof_errno_values[s]) == s);
		for (unsigned k = 1; k < s; k++)
			CHECK(apiprof_errno_values[k] != apiprof_errno_values[s]);
	}
	CHECK(apiprof_errno_slot(ENOENT) == APIPROF_ERRNO_SLOT_ENOENT);
	CHECK(apiprof_errno_slot(0) == APIPROF_ERRNO_SLOT_OTHER);
	CHECK(apiprof_errno_slot(ELOOP) == APIPROF_ERRNO_SLOT_OTHER);
	CHECK(apiprof_errno_slot(-1) == APIPROF_ERRNO_SLOT_OTHER);
	return failures != 0;
}
