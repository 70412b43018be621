/* SPDX-License-Identifier: MIT */
/* top_batch.h - batch-mode output: plain text tables and JSON lines. */
#ifndef TOP_BATCH_H
#define TOP_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "top_model.h"
#include "top_watch.h"

const char *top_clock_name(uint32_t clock);
const char *top_mode_name(uint32_t mode, char *buf, size_t cap);
void top_batch_text(FILE *out, const struct top_watch *w, const struct top_view *v,
                    uint64_t real_ns, double delay_s);
int top_batch_json(FILE *out, const struct top_watch *w, uint64_t real_ns, double delay_s);

#endif /* TOP_BATCH_H */
