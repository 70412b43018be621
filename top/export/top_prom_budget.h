/* SPDX-License-Identifier: MIT */
/*
 * top_prom_budget.h - the exporter's budgets of series (top_prom.h):
 * TOP_PROM_MAX_SERIES in all and TOP_PROM_MAX_PER_USER for the processes
 * of one user, so that one user's short-lived processes can neither grow
 * the exporter without bound nor keep another user's commands out.
 */
#ifndef TOP_PROM_BUDGET_H
#define TOP_PROM_BUDGET_H

#include "top_prom.h"

/* Room for a new series of uid's: 0 (counted: top_prom_budget_gone when
 * it goes), 1 no room (said once per user), -1 out of memory.  Makes room
 * by evicting the oldest series that only ended processes feed. */
int top_prom_budget_take(struct top_prom *x, uint32_t uid);
/* A series of uid's is gone. */
void top_prom_budget_gone(struct top_prom *x, uint32_t uid);

/* top_prom.c: removes s from x->series and frees it (and its count). */
void top_prom_series_drop(struct top_prom *x, struct top_prom_series *s);

#endif /* TOP_PROM_BUDGET_H */
