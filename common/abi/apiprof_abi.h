/* SPDX-License-Identifier: MIT */
/*
 * apiprof_abi.h - the shared-memory ABI between a profiled process (the
 * writer, preload/) and its readers (apiprof-top, the tests).
 *
 * One segment per process, created by the runtime with
 *   shm_open("/apiprof-<uid>-<pid>-<starttime>-<pidns>-<nonce>",
 *            O_CREAT|O_EXCL|O_RDWR|O_NOFOLLOW, 0600)
 * so it shows up in /dev/shm under that name (apiprof_segname.h says what
 * each field is).  <starttime> is the process start time from
 * /proc/self/stat (field 22) and tells a reused pid apart; <pidns>, the
 * inode of the process's pid namespace, tells apart two processes with the
 * same pid in two namespaces (two containers' pid 1); <nonce> is random, so
 * that no one can take the name beforehand.  The runtime never unlinks a
 * name it did not create, but its own euid's segments of dead processes
 * (apiprof_segment.c).  A process that changes its effective uid (a
 * server's worker dropping privileges) hands the file over to the new uid
 * with fchown and keeps the name.
 *
 * Layout (all offsets from the start of the segment, all little-endian,
 * all multi-byte fields naturally aligned):
 *
 *   [0, header_size)                     struct apiprof_shm_header
 *   [func_off, func_off + func_cap*func_size)  struct apiprof_shm_func[func_cap]
 *   [ring_off, ring_off + (1<<ring_order)*rec_size) struct apiprof_shm_rec[]
 *
 * The ring's records, how its writers and readers share it, and the
 * sizes the records have (histograms, errno slots, a thread's name), are
 * apiprof_abi_rec.h's.
 *
 * While a reader watches, every interval the runtime writes a snapshot of
 * each function a thread called since its previous snapshot, and every
 * APIPROF_KEYFRAME-th interval a snapshot of everything (a "keyframe").  A
 * reader says it watches, and asks for a keyframe, through the header's
 * control block (struct apiprof_shm_ctl; the protocol, both halves, is
 * apiprof_ctl.h), so a reader that attaches late gets complete cumulative
 * totals.
 * Threads that exit write their last snapshot themselves, watched or not.
 *
 * Publication order, which readers may rely on:
 *  - magic is stored last when the segment is created (release): a reader
 *    that sees it sees a formatted header;
 *  - a function entry is published (func_count, release) before any record
 *    that names it is written;
 *  - with the TSC clock, tick_hz is 0 until the first flush has calibrated
 *    it (the one a reader's first look wakes): such a segment is not ready
 *    yet, not bad;
 *  - the ring's pages are taken when a reader first looks.  When /dev/shm
 *    has no room for them, the runtime sets APIPROF_SHM_NO_RING in flags
 *    before that flush moves heartbeat_tick (release): the process stays
 *    visible, without numbers, and its stderr says why.
 *
 * Readers must treat every byte as hostile: check magic, version,
 * header_size, the sizes and offsets against the real size of the mapping,
 * every function index against func_count/func_cap, and never trust a
 * string to be NUL-terminated.
 */
#ifndef APIPROF_ABI_H
#define APIPROF_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "apiprof_abi_rec.h"

#define APIPROF_SHM_MAGIC 0x464f525049504141ull /* "AAPIPROF" little-endian */
/* 12: the modes (proc_mode, api_mode: issue 37) */
#define APIPROF_SHM_VERSION                                                                        \
	13u /* 13: the modes (issue 37): proc_mode and api_mode in the header;                  \
	     * 12: steering requests and answers in the control block, marks and resets;           \
	     * 11: one record head with a kind and a size (struct apiprof_rec_head);               \
	     * 10: the readers' words become the control block (struct apiprof_shm_ctl);           \
	     * 9: both of issue 35's: the sites' error bounds (calls_error, a larger slot) and     \
	     * APIPROF_REC_NODES (the call tree's nodes); 7: APIPROF_REC_SITEQ;                    \
	     * 6: APIPROF_REC_SITES; 5: APIPROF_REC_ACCT */
#define APIPROF_SHM_PREFIX "apiprof-"

#define APIPROF_NAME_MAX        64 /* function and api names, NUL-padded */
#define APIPROF_API_NAME_MAX    32
#define APIPROF_SHM_HEADER_SIZE 4096u
#define APIPROF_SHM_APIS        64 /* api ids are 1..61 (api_mode) */

enum apiprof_clock {
	APIPROF_CLOCK_TSC = 1,       /* rdtsc; tick_hz is the calibrated frequency */
	APIPROF_CLOCK_MONOTONIC = 2, /* clock_gettime(CLOCK_MONOTONIC); tick_hz = 1e9 */
};

enum apiprof_proc_state {
	APIPROF_PROC_RUNNING = 1,
	APIPROF_PROC_EXITED = 2, /* the runtime's exit flush completed */
};

/* The header's `mode`. */
enum apiprof_proc_mode {
	APIPROF_PROC_MODE_SHIM = 0,    /* generated shims (apiprof-gen) */
	APIPROF_PROC_MODE_DYNAMIC = 1, /* libffi dynamic mode (libapiprof-dyn.so) */
};

/* Collectors of one uid at a time that can promise a look: each holds an
 * OFD write lock on its own byte [k, k + 1) of the uid's watching marker
 * (apiprof_watch.h). */
#define APIPROF_WATCH_SLOTS 16

/* The header's `flags`. */
#define APIPROF_SHM_NO_RING 0x1u /* the ring could not get its pages: no record will come */
/* Left at the end of the image, with its final totals, for the collectors
 * (apiprof_watch.h: a lock held on a watching marker) to read and then
 * remove, once each collector still holding its lock has said so in
 * `collected`: set before state becomes EXITED.  A segment without it
 * that outlives its process (APIPROF_KEEP_SHM) is the user's to remove. */
#define APIPROF_SHM_LEFT 0x2u
/* The runtime answers a reader's request (ctl.req) with a full snapshot
 * and then ctl.done: a first look can wait for everything done before. */
#define APIPROF_SHM_FLUSH_ACK 0x4u
/* Some calls were counted and not timed (sampled or count mode, once
 * used, for good): a function's time is an estimate from its timed calls
 * (apiprof_stat_total_ticks), as when sample > 1. */
#define APIPROF_SHM_UNTIMED 0x8u

/* Flags of a function entry. */
#define APIPROF_FUNC_NORETURN 0x1u /* counted, never timed */
#define APIPROF_FUNC_MISSING  0x2u /* the real symbol could not be resolved */
/* The api's library is not loaded in the process (yet): set on every
 * function of the api by the flusher, cleared once the library appears.
 * A viewer says so in the process's title (a static binary, a wrong
 * library name). */
#define APIPROF_FUNC_UNLOADED 0x4u
/* What the spec declares about the function's calls (issue 24): their
 * bytes ("bytes"), when one failed ("fails"), errno on a failed call
 * ("errno").  A function with any of them gets APIPROF_REC_ACCT records. */
#define APIPROF_FUNC_BYTES 0x8u
#define APIPROF_FUNC_FAILS 0x10u
#define APIPROF_FUNC_ERRNO 0x20u
#define APIPROF_FUNC_ACCT  (APIPROF_FUNC_BYTES | APIPROF_FUNC_FAILS | APIPROF_FUNC_ERRNO)

/* The control block: readers' requests to the runtime, and its answers.
 * The protocol, both halves, and the commands are apiprof_ctl.h's.
 * Readers write their words with pwrite(2); the runtime uses what they
 * write only to decide what to do, never as an index or a size. */
#define APIPROF_CTL_TEXT_MAX 64 /* a request's text: an api name or a mark's label */
struct apiprof_shm_ctl {
	uint64_t until_ns; /* readers': CLOCK_MONOTONIC, a reader means to look again before then */
	uint64_t arg;      /* readers': the steering request's argument (MODE: the mode's word) */
	uint32_t cmd;      /* readers': the latest request's command (enum apiprof_ctl_cmd) */
	uint32_t req;      /* readers': futex word, one more per request, then FUTEX_WAKE */
	uint32_t idle;     /* the runtime's: 1 while the flusher waits for a reader */
	/* The runtime's (APIPROF_SHM_FLUSH_ACK): the latest req whose answer
	 * is in the ring, release-stored and FUTEX_WAKEd after it. */
	uint32_t done;
	/* A steering request (issue 37), one at a time: its body (ask_cmd,
	 * arg, text), then its number ask_seq, then req + 1 and a wake. */
	uint32_t ask_seq;                /* readers': the request's number, never 0 */
	uint32_t ask_cmd;                /* readers': enum apiprof_ctl_cmd */
	char text[APIPROF_CTL_TEXT_MAX]; /* readers': MODE: an api ("": all); MARK: the label */
	/* The runtime's answer to request ans_seq: set once it is applied
	 * (ans_seq release-stored last, then FUTEX_WAKE on it). */
	uint32_t ans_seq;
	uint32_t ans_cmd;   /* the command as taken (APIPROF_CTL_NONE: not known) */
	int32_t ans_result; /* enum apiprof_ctl_result */
	uint32_t ans_n;     /* RESET: resets so far; MARK: marks so far; DUMP: the dump's number */
};

/* Marks (apiprof_ctl.h's MARK) and resets, kept by the runtime: the
 * newest APIPROF_MARKS marks, mark k in slot k % APIPROF_MARKS (marks
 * counts all of them, so marks - APIPROF_MARKS were dropped).  seq is a
 * seqlock: odd while the runtime writes the block. */
#define APIPROF_MARKS 8
struct apiprof_shm_mark {
	uint64_t tick;                    /* when the mark was taken */
	uint64_t calls;                   /* the process's calls up to then, since start */
	char label[APIPROF_CTL_TEXT_MAX]; /* NUL-padded, not trusted to end in one */
};
struct apiprof_shm_marks {
	uint32_t seq;
	uint32_t marks;       /* marks ever taken */
	uint32_t resets;      /* resets ever taken */
	uint32_t reserved;    /* 0 */
	uint64_t reset_tick;  /* the latest reset; 0: none */
	uint64_t reset_calls; /* the process's calls up to it, since start */
	struct apiprof_shm_mark mark[APIPROF_MARKS];
};

struct apiprof_shm_header {
	uint64_t magic;       /* APIPROF_SHM_MAGIC */
	uint32_t version;     /* APIPROF_SHM_VERSION */
	uint32_t header_size; /* sizeof the header area, >= sizeof(struct apiprof_shm_header) */
	uint64_t segment_size;

	/* The process. */
	int32_t pid;                /* in the process's own pid namespace */
	uint32_t uid;               /* the file's owner: the process's effective uid */
	uint64_t starttime;         /* /proc/<pid>/stat field 22, clock ticks since boot */
	uint64_t pidns;             /* inode of /proc/<pid>/ns/pid, 0 if unknown; as in the name */
	uint64_t nonce;             /* random, as in the name */
	uint64_t start_realtime_ns; /* CLOCK_REALTIME when the runtime started */
	char comm[APIPROF_COMM_MAX];
	uint32_t state; /* enum apiprof_proc_state */
	uint32_t mode;  /* enum apiprof_proc_mode: how calls reach the profiler */

	/* The clock. ticks -> ns: ns = (ticks - tick0) * 1e9 / tick_hz */
	uint32_t clock;          /* enum apiprof_clock */
	uint32_t interval_ms;    /* the flush interval */
	uint64_t tick_hz;        /* ticks per second, refreshed at each flush */
	uint64_t tick0;          /* tick at runtime start */
	uint64_t mono0_ns;       /* CLOCK_MONOTONIC at runtime start */
	uint64_t heartbeat_tick; /* tick of the latest flush: a reader sees liveness */
	uint32_t sample;         /* 0 or 1: every call timed; N: about one call in N timed */
	uint32_t flags;          /* APIPROF_SHM_*; was a reserved 0, so older readers ignore it */

	/* The function table. */
	uint32_t func_off;
	uint32_t func_size; /* sizeof(struct apiprof_shm_func) */
	uint32_t func_cap;
	uint32_t func_count; /* entries [0, func_count) are valid; release-published */

	/* The ring. */
	uint64_t ring_off;
	uint32_t rec_size;   /* sizeof(struct apiprof_shm_rec) */
	uint32_t ring_order; /* capacity = 1 << ring_order records */

	uint8_t pad0[64];
	/* Written by producers with atomic fetch-add; each on its own cache line. */
	uint64_t head; /* next position to reserve (free-running) */
	uint8_t pad1[56];
	uint64_t dropped; /* records not written because a writer held their slot */
	uint8_t pad2[56];
	/* Readers' requests.  The flusher runs only while a reader watches:
	 * it waits in the kernel otherwise, and costs nothing. */
	struct apiprof_shm_ctl ctl;
	/* Written by collectors (apiprof_watch.h), a byte each: 1 once the
	 * collector holding slot k of the segment owner's watching marker
	 * ([k]) or of root's ([APIPROF_WATCH_SLOTS + k]) has read the final
	 * totals of a segment left for collectors (APIPROF_SHM_LEFT).  Was
	 * padding (0): the runtime never reads it. */
	uint8_t collected[2 * APIPROF_WATCH_SLOTS];
	/* The runtime's: marks and resets (apiprof_ctl.h). */
	struct apiprof_shm_marks marks;
	/* The modes (issue 37), as apiprof_mode_pack words: the process's, and
	 * api id k's own at [k] (0: the process's), written by the runtime's
	 * steering (apiprof_steer.c).  Untrusted: apiprof_mode_shown. */
	uint64_t proc_mode;
	uint64_t api_mode[APIPROF_SHM_APIS];
};

struct apiprof_shm_func {
	char api[APIPROF_API_NAME_MAX]; /* group shown in the viewer */
	char name[APIPROF_NAME_MAX];    /* display name */
	uint32_t flags;                 /* APIPROF_FUNC_* */
	uint32_t api_id;                /* dense id of the api within the process (1..61) */
};

#endif /* APIPROF_ABI_H */
