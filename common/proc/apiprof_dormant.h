/* SPDX-License-Identifier: MIT */
/*
 * apiprof_dormant.h - a dormant runtime as another process sees it (issue
 * 37): the one data symbol libapiprof.so exports, apiprof_dormant, through
 * which apiprof-ctl wakes a process started with APIPROF_MODE=off.
 *
 * A dormant process has no clock, no segment and no thread: its runtime
 * only keeps the address of each api's gate word here (every gate reads
 * APIPROF_DORMANT_GATE_OFF, so calls pass straight through).  A waker with
 * ptrace rights over the process (process_vm_writev) writes the mode it
 * wants into `mode` and then APIPROF_DORMANT_GATE_WAKE into every gate; the
 * next profiled call starts the runtime and applies the mode, read as
 * untrusted input (preload/life/apiprof_dormant.c).  The waker reads the
 * struct as untrusted too (common/proc/apiprof_wake.c).
 */
#ifndef APIPROF_DORMANT_H
#define APIPROF_DORMANT_H

#include <stdint.h>

#define APIPROF_DORMANT_MAGIC   0x746e616d726f6461ull /* "adormant" */
#define APIPROF_DORMANT_VERSION 1u
#define APIPROF_DORMANT_APIS    62u /* APIPROF_MAX_APIS, checked in the runtime */
#define APIPROF_DORMANT_SYMBOL  "apiprof_dormant"

/* The gate words a waker reads and writes (apiprof_shim_layout.h's
 * APIPROF_GATE_OFF and APIPROF_GATE_WAKE, checked in the runtime). */
#define APIPROF_DORMANT_GATE_OFF  8ull
#define APIPROF_DORMANT_GATE_WAKE 64ull

enum apiprof_dormant_state {
	APIPROF_DORMANT_NONE = 0,    /* not decided yet, or not dormant */
	APIPROF_DORMANT_ASLEEP = 1,  /* dormant: the gates are the waker's to write */
	APIPROF_DORMANT_STARTED = 2, /* woken and started: the gates are the runtime's */
};

struct apiprof_dormant {
	uint64_t magic;   /* APIPROF_DORMANT_MAGIC once the runtime decided */
	uint32_t version; /* APIPROF_DORMANT_VERSION */
	uint32_t state;   /* enum apiprof_dormant_state, written by the runtime */
	uint64_t mode;    /* the mode wanted (apiprof_mode_pack), written by a waker */
	uint32_t napis;   /* gate[] in use */
	uint32_t reserved;
	uint64_t gate[APIPROF_DORMANT_APIS]; /* the addresses of the apis' gate words */
};

#endif /* APIPROF_DORMANT_H */
