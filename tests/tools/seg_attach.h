/* SPDX-License-Identifier: MIT */
/*
 * seg_attach.h - for test tools that read a live process's segment with
 * apiprof-top's reader (top_feed.h): find it, open it, read it once.
 */
#ifndef SEG_ATTACH_H
#define SEG_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

#include "top_feed.h"

/* Opens the segment of process pid in TOP_SHM_DIR into s and reads it
 * once into p (initialised here): 0, or TOP_SEG_NOTREADY, with s open;
 * -1 when there is none or it is invalid (err says why, or is ""), with
 * s closed and p freed. */
int seg_attach(pid_t pid, struct top_seg *s, struct top_proc *p, char *err, size_t errlen);

#endif
