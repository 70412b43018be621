/* SPDX-License-Identifier: MIT */
/*
 * top_label.h - a process's labels, the same in the batch text, the JSON,
 * the live view and the exporter's series.
 */
#ifndef TOP_LABEL_H
#define TOP_LABEL_H

#include <stddef.h>
#include <stdint.h>

#include "top_model.h"

/* "tsc", "monotonic", or "?". */
const char *top_clock_name(uint32_t clock);
/* "shim", "dyn", or "mode N". */
const char *top_mode_name(uint32_t mode, char *buf, size_t cap);
/* The process's mode and each api's that differs ("count", "full,
 * malloc off", "?" for a word that is not a mode; an api missing from the
 * function table as "api#ID"), cut to cap. */
#define TOP_STEER_BUF 256
const char *top_steer_text(const struct top_proc *p, char *buf, size_t cap);
/* One mode's text: "sampled:64", or "?" when not known. */
const char *top_steer_name(struct top_mode m, char *buf, size_t cap);
/* "comm \"title\"", or the comm alone while the title is unknown. */
const char *top_proc_name(const struct top_proc *p, char *buf, size_t cap);

#endif /* TOP_LABEL_H */
