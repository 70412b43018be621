/* SPDX-License-Identifier: MIT */
/*
 * apiprof_sitepair.h - the call-site/quantile pairing: how a row's
 * APIPROF_REC_SITEQ record (its sites' p50 and p99) is tied to the
 * APIPROF_REC_SITES record it goes with (apiprof_abi.h struct
 * apiprof_rec_siteq), both halves in one place.
 *
 * The stamp of a sites record is the sum of the timed calls of its used
 * entries (key != 0), added up one entry at a time with
 * apiprof_sitepair_add.  Its quantiles change only when a site has a new
 * timed call, so the stamp says whether they may have.
 *
 * The writer (the runtime's flusher, preload/publish/apiprof_flush.c
 * srec_timed, rec_note, siteq_due) stamps each quantiles record with the
 * stamp of the sites record written just before it, and writes none for
 * a row whose stamp did not change since its latest quantiles record
 * (unless that one is more than half a ring behind).
 *
 * The reader (apiprof-top, top/model/top_model.c siteq_pairs) therefore
 * keeps a row's latest quantiles record, and pairs it with the row's
 * sites (apiprof_sitepair_pairs) when both are of the same snapshot, or
 * when the quantiles' stamp is not 0 and equals the stamp of the sites it
 * holds: no timed call since, so the same quantiles.  A stamp of 0 (no
 * timed call, or a writer that knew none) pairs only within a snapshot.
 */
#ifndef APIPROF_SITEPAIR_H
#define APIPROF_SITEPAIR_H

#include <stdbool.h>
#include <stdint.h>

/* stamp with one entry of a sites record added: key and timed as the
 * record has them (struct apiprof_shm_site); an unused entry (key 0)
 * adds nothing. */
uint64_t apiprof_sitepair_add(uint64_t stamp, uint64_t key, uint64_t timed);

/* What a reader holds of one row: the snapshots its latest sites and
 * quantiles records came from (0: none yet), the quantiles record's
 * stamp, and the stamp of the sites it holds. */
struct apiprof_sitepair {
	uint64_t sites_snap, q_snap;
	uint64_t q_stamp, sites_stamp;
};

/* Whether the quantiles go with the sites. */
bool apiprof_sitepair_pairs(const struct apiprof_sitepair *p);

#endif
