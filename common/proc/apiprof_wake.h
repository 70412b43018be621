/* SPDX-License-Identifier: MIT */
/*
 * apiprof_wake.h - waking a dormant runtime from outside (issue 37): the
 * waker's side of apiprof_dormant.h, for apiprof-ctl.
 */
#ifndef APIPROF_WAKE_H
#define APIPROF_WAKE_H

#include <stddef.h>
#include <stdint.h>

#include "apiprof_ctl_send.h"

/* Process pid, found through its /proc/PID/maps (it maps libapiprof.so),
 * has its apiprof_dormant read with process_vm_readv and checked (magic,
 * version, bounds, every gate off), then mode_word (apiprof_mode_pack)
 * written, then APIPROF_DORMANT_GATE_WAKE into every gate, with
 * process_vm_writev.  Needs ptrace access to the process.  One line in
 * msg.  APIPROF_SEND_OK once written; NOPROC: no such process or no
 * libapiprof.so; DENIED: no ptrace rights (another user's); REFUSED: not a
 * dormant runtime this version can wake (the process is left unchanged);
 * APIPROF_SEND_STARTED: its runtime has started already (it has, or will
 * soon have, a segment). */
enum apiprof_send_status apiprof_wake(int pid, uint64_t mode_word, char *msg, size_t cap);

#endif /* APIPROF_WAKE_H */
