/* SPDX-License-Identifier: MIT */
/*
 * top_prom_text.h - the exporter's series (top_prom.h) in the Prometheus
 * text exposition format, version 0.0.4.
 */
#ifndef TOP_PROM_TEXT_H
#define TOP_PROM_TEXT_H

#include <stddef.h>

#include "top_prom.h"

#define TOP_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The text of x's latest update, malloc'ed into *text (*len bytes).  0, or
 * -1 when out of memory (the message printed). */
int top_prom_text(const struct top_prom *x, char **text, size_t *len);

/* 2^k ns in seconds, exactly, as an le label value ("0.000001024"). */
void top_prom_le_text(char *buf, size_t cap, int k);

#endif /* TOP_PROM_TEXT_H */
