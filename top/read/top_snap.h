/* SPDX-License-Identifier: MIT */
/*
 * top_snap.h - what the reader (top_shm.c) hands to the model
 * (top_model.c): snapshots and function names, copied out of a segment,
 * validated and sanitized.  Plain data, so that neither side needs the
 * other's header.
 */
#ifndef TOP_SNAP_H
#define TOP_SNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "apiprof_abi.h"

#define TOP_COMM_LEN (APIPROF_COMM_MAX + 1)
#define TOP_API_LEN  (APIPROF_API_NAME_MAX + 1)
#define TOP_NAME_LEN (APIPROF_NAME_MAX + 1)

/* Bytes and failures of a function that declares them (an
 * APIPROF_REC_ACCT record), cumulative like the rest. */
struct top_acct {
	uint64_t bytes;
	uint64_t failures;
	uint64_t size_hist[APIPROF_SIZE_BUCKETS];
	uint64_t errnos[APIPROF_ERRNO_SLOTS];
};

/* Cumulative statistics of one (thread, function), as in a ring record. */
struct top_stat {
	uint64_t calls;
	uint64_t ticks; /* time of the timed calls only */
	uint64_t timed;
	uint64_t min; /* UINT64_MAX: no timed call yet */
	uint64_t max;
	uint64_t hist[APIPROF_HIST_BUCKETS];
	struct top_acct acct; /* zero unless the function declares them */
};

/* One call site of a (thread, function) (apiprof_abi.h "Call sites"):
 * the caller's return address (0: not known) and the profiled call it was
 * made in, parent = 1 + its function's index (below the table's count),
 * APIPROF_PARENT_NONE or APIPROF_PARENT_UNKNOWN. */
struct top_site {
	uint64_t addr;
	uint32_t parent;
	bool other; /* the "(other callers)" entry */
	uint64_t calls;
	uint64_t ticks; /* of the timed calls */
	uint64_t timed;
	uint64_t key;   /* as the record has it, for its quantiles (struct top_siteq) */
	uint32_t entry; /* its index in the record */
	/* the site had from calls to calls + err calls (struct apiprof_rec_sites
	 * calls_error); for "(other callers)", the most any one of its sites had */
	uint64_t err;
};

/* The used entries of an APIPROF_REC_SITES record, cumulative. */
struct top_sites {
	uint32_t n;
	struct top_site site[APIPROF_SITES + 1];
};

/* The latency quantiles of the call sites of an APIPROF_REC_SITEQ
 * record, q[k] for entry k of the APIPROF_REC_SITES record of the same
 * snapshot (tick), or of a later one with the same timed calls (0: not
 * known), if its key is that entry's; ticks, APIPROF_SITEQ_NONE when not
 * known. */
struct top_siteq {
	uint64_t timed;
	struct {
		uint64_t key;
		uint64_t p50, p99;
	} q[APIPROF_SITES + 1];
};

/* One record copied out of the ring, already validated: its times, with
 * APIPROF_REC_ACCT in flags only st.acct, with APIPROF_REC_SITES only
 * st.calls and sites, with APIPROF_REC_SITEQ only st.calls and siteq. */
struct top_snap {
	uint32_t tid;
	uint32_t func;
	uint32_t flags;
	char comm[TOP_COMM_LEN];
	uint64_t tick;
	uint64_t
	        inflight_since; /* APIPROF_REC_INFLIGHT in flags: when the call in progress began */
	struct top_stat st;
	struct top_sites sites;
	struct top_siteq siteq;
	/* APIPROF_REC_NODES: nodes of the thread's tree (top_tree.h) */
	uint32_t nnodes;
	struct apiprof_shm_node nodes[APIPROF_NREC_NODES];
};

struct top_func {
	char api[TOP_API_LEN];
	char name[TOP_NAME_LEN];
	uint32_t flags;
	uint32_t api_id; /* its api's id, below APIPROF_SHM_APIS (api_mode); 0: not known */
};

#endif /* TOP_SNAP_H */
