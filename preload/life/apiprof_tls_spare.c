/* SPDX-License-Identifier: MIT */
/*
 * apiprof_tls_spare.c - libapiprof-tls.so: a thread block in static TLS
 * for a runtime that was dlopen()ed late and got none of its own (see
 * apiprof_tls.c).  Initial-exec, so glibc either finds it room in its
 * static reserve or refuses to load it.
 */
#include "apiprof_internal.h"

static __thread struct apiprof_tls_block spare __attribute__((tls_model("initial-exec")));

/* The block's offset from the thread pointer, the same in every thread. */
APIPROF_EXPORT intptr_t apiprof_tls_spare_offset(void)
{
	return (char *)&spare - apiprof_tp();
}
