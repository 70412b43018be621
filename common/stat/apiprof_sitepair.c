/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sitepair.c - the call-site/quantile pairing (apiprof_sitepair.h):
 * the stamp of a sites record and the reader's test.
 */
#include "apiprof_sitepair.h"

uint64_t apiprof_sitepair_add(uint64_t stamp, uint64_t key, uint64_t timed)
{
	return key != 0 ? stamp + timed : stamp;
}

bool apiprof_sitepair_pairs(const struct apiprof_sitepair *p)
{
	if (p->q_snap == 0 || p->q_snap == p->sites_snap)
		return p->q_snap != 0;
	return p->q_stamp != 0 && p->q_stamp == p->sites_stamp;
}
