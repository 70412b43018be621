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
 * The ring
 * --------
 * Records are *cumulative snapshots* of one thread's statistics for one
 * function: losing a record loses no information, the next snapshot of the
 * same (thread, function) carries everything.  That is what lets any number
 * of readers watch without consuming anything, lets a reader attach at any
 * time and still get totals since the process started, and lets producers
 * overwrite old records without ever waiting for a reader.
 *
 * Producers (several threads of the process) reserve a position with one
 * fetch-add on `head` (a free-running 64-bit index; slot = pos & (cap-1)) and
 * publish the slot with a per-slot sequence word used as a seqlock:
 *
 *   seq = 2*pos + 1   (odd: being written)        -- relaxed store, then release fence
 *   ... payload ...
 *   seq = 2*pos + 2   (even: record pos complete) -- release store
 *
 * A producer that finds its slot still odd (a producer one lap behind is
 * still writing it) does not wait: it drops the record and adds one to
 * `dropped`.  A reader that wants position pos reads seq (acquire), copies
 * the payload, issues an acquire fence and reads seq again; the copy is good
 * only when both reads equal 2*pos+2.  Anything else means the slot was
 * overwritten or is being written: the reader counts it as lost, it never
 * retries in a loop.
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
 * Statistics in a record: calls counts every call; ticks, min, max and hist
 * cover only the timed calls (`timed` of them), and only calls that have
 * returned: a call in progress is told apart (APIPROF_REC_INFLIGHT).  Unless sampling
 * (header.sample > 1), timed == calls; when sampling, the time inside the
 * function is estimated as ticks * calls / timed.
 *
 * Every record is a struct apiprof_shm_rec: one head (struct
 * apiprof_rec_head), whose kind says which payload of the union follows
 * (the table apiprof_rec_kinds: name, flag, payload size).  A function's
 * snapshot is its times record (APIPROF_REC_KIND_TIMES), then for a
 * function whose entry has APIPROF_FUNC_ACCT flags (its spec declares
 * "bytes", "fails" or "errno") its bytes and failures
 * (APIPROF_REC_KIND_ACCT, counted in full in sampled mode too), then its
 * calls by call site and by the profiled call they were made in (the
 * call tree; APIPROF_REC_KIND_SITES, issue 23), then each site's latency
 * quantiles (APIPROF_REC_KIND_SITEQ), only when they changed (see
 * there).  All have the same tid, func, thread_seq and tick.  Each may be
 * lost on its own, or (sites, quantiles) not written for a snapshot (its
 * owner was busy updating it; then that snapshot's sites have no
 * quantiles, unless an earlier one still holds): the next snapshot
 * carries everything.
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

#define APIPROF_SHM_MAGIC 0x464f525049504141ull /* "AAPIPROF" little-endian */
/* 12: the modes (proc_mode, api_mode: issue 37) */
#define APIPROF_SHM_VERSION                                                                        \
	12u /* 11: one record head with a kind and a size (struct apiprof_rec_head);               \
	     * 10: the readers' words become the control block (struct apiprof_shm_ctl);           \
	     * 9: both of issue 35's: the sites' error bounds (calls_error, a larger slot) and     \
	     * APIPROF_REC_NODES (the call tree's nodes); 7: APIPROF_REC_SITEQ;                    \
	     * 6: APIPROF_REC_SITES; 5: APIPROF_REC_ACCT */
#define APIPROF_SHM_PREFIX "apiprof-"

/* Bucket b counts the durations d (in ticks) with floor(log2(d|1)) == b. */
#define APIPROF_HIST_BUCKETS    64
#define APIPROF_NAME_MAX        64 /* function and api names, NUL-padded */
#define APIPROF_API_NAME_MAX    32
#define APIPROF_COMM_MAX        16 /* thread and process names, as in /proc/<pid>/comm */
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

/* Bucket b of a size histogram counts the sizes n (bytes) with
 * floor(log2(n|1)) == b; the last bucket also counts every larger one. */
#define APIPROF_SIZE_BUCKETS 40
/* The errno values of failed calls are counted in slots: slot s > 0 counts
 * errno apiprof_errno_values[s] (Linux numbers), slot 0 every other.  The
 * one list of them, X(NAME, Linux number) in slot order from 1: the
 * readers' table below and the shims' switch (apiprof_errno_slot) are both
 * made from it, and apiprof_shim.h asserts each number against <errno.h>. */
#define APIPROF_ERRNO_LIST(X)                                                                      \
	X(EPERM, 1)                                                                                \
	X(ENOENT, 2)                                                                               \
	X(EINTR, 4)                                                                                \
	X(EIO, 5)                                                                                  \
	X(EBADF, 9)                                                                                \
	X(EAGAIN, 11)                                                                              \
	X(ENOMEM, 12)                                                                              \
	X(EACCES, 13)                                                                              \
	X(EEXIST, 17)                                                                              \
	X(ENOTDIR, 20)                                                                             \
	X(EISDIR, 21)                                                                              \
	X(EINVAL, 22)                                                                              \
	X(EMFILE, 24)                                                                              \
	X(ENOSPC, 28)                                                                              \
	X(ESPIPE, 29)                                                                              \
	X(EPIPE, 32)                                                                               \
	X(ENOSYS, 38)                                                                              \
	X(EADDRINUSE, 98)                                                                          \
	X(ECONNRESET, 104)                                                                         \
	X(ENOTCONN, 107)                                                                           \
	X(ETIMEDOUT, 110)                                                                          \
	X(ECONNREFUSED, 111)                                                                       \
	X(EINPROGRESS, 115)

/* Slot numbers by name (APIPROF_ERRNO_SLOT_EPERM is 1), and their count. */
#define APIPROF_ERRNO_ENUM(name, linux_no) APIPROF_ERRNO_SLOT_##name,
enum { APIPROF_ERRNO_SLOT_OTHER, APIPROF_ERRNO_LIST(APIPROF_ERRNO_ENUM) APIPROF_ERRNO_SLOTS };
#undef APIPROF_ERRNO_ENUM

#define APIPROF_ERRNO_VALUE(name, linux_no) linux_no,
__attribute__((unused)) static const uint16_t apiprof_errno_values[APIPROF_ERRNO_SLOTS] = {
        0, APIPROF_ERRNO_LIST(APIPROF_ERRNO_VALUE)};
#undef APIPROF_ERRNO_VALUE
_Static_assert(APIPROF_ERRNO_SLOTS == 24, "a record's errno counts are 24 slots");

/* Flags of a record. */
#define APIPROF_REC_THREAD_EXITED 0x1u /* last snapshot of an exited thread */
#define APIPROF_REC_KEYFRAME      0x2u /* part of a periodic full snapshot */
#define APIPROF_REC_FOLDED        0x4u /* totals of exited threads folded together (tid 0) */
/* The thread was inside this function (its outermost call of the api)
 * when the snapshot was taken, since inflight_since; the call is not in the
 * statistics yet.  The flusher writes such a record every interval while
 * the call lasts, and the function's record again once it is over
 * (without the flag), so the newest record of a (thread, function) says
 * whether it is still in progress.  Older readers ignore both flags. */
#define APIPROF_REC_INFLIGHT 0x8u
/* With APIPROF_REC_INFLIGHT: the call's start is not known (sampled mode,
 * a shim built before the start was kept): inflight_since is the first
 * snapshot that saw the call, so it has run at least tick - inflight_since. */
#define APIPROF_REC_INFLIGHT_BOUND 0x10u
/* The flags of the record kinds other than the times (apiprof_rec_kinds:
 * the head's kind says which payload follows; a reader's copy of the
 * flags carries the kind's flag). */
#define APIPROF_REC_ACCT  0x20u  /* bytes and failures */
#define APIPROF_REC_SITES 0x40u  /* the call sites of the same snapshot */
#define APIPROF_REC_SITEQ 0x80u  /* their latency quantiles */
#define APIPROF_REC_NODES 0x100u /* nodes of the thread's calling-context tree; func is 0 */

/* Call sites (issue 23, issue 35).  A thread's calls of a function are
 * kept by site in a table of heavy hitters (space-saving by sets,
 * preload/stats/apiprof_sites.c): a new site takes the place of the entry with
 * the fewest calls of its set, whose calls move to one more entry,
 * "(other callers)", so that the sites' calls add up to the function's.
 * A record carries the APIPROF_SITES entries with the most calls, and
 * the rest in "(other callers)".  A site is the return address of the
 * call (where the caller resumes: the address after its call instruction,
 * in the process's address space; an address inside apiprof's own code,
 * where a library function tail-called another api, is replaced by the
 * site of the profiled call it was made in), and an entry's key also
 * says the parent, the profiled call of another api that was in progress
 * on the thread when the calls were made (zlib's deflate for the malloc
 * it calls), which makes the call tree:
 *
 *	key = return address << 16 | parent
 *
 * parent is 1 + the parent's index in the function table, or one of the
 * two values below (APIPROF_PARENT_UNKNOWN: the entry's calls had several).
 * (In the runtime, a run key's parent is a node of the thread's call tree,
 * preload/stats/apiprof_cct.h; an entry's key has it as its function.)
 * A key is never 0, which marks an unused entry.
 * Return addresses are below 2^47 on x86-64 (below 2^48 the key keeps
 * them whole); 0 is a call whose site is not known (dynamic mode). */
#define APIPROF_SITES            16
#define APIPROF_PARENT_NONE      0xffffu /* no profiled call in progress: a root */
#define APIPROF_PARENT_UNKNOWN   0xfffeu /* several (the "(other callers)" entry) */
#define APIPROF_PARENT_MAX       0xfffdu /* the last 1 + index a parent can have */
#define APIPROF_SITE_ADDR(key)   ((uint64_t)(key) >> 16)
#define APIPROF_SITE_PARENT(key) ((uint32_t)((key)&0xffffu))

/* The control block: readers' requests to the runtime, and its answers.
 * The protocol, both halves, and the commands are apiprof_ctl.h's.
 * Readers write their words with pwrite(2); the runtime uses what they
 * write only to decide what to do, never as an index or a size. */
struct apiprof_shm_ctl {
	uint64_t until_ns; /* readers': CLOCK_MONOTONIC, a reader means to look again before then */
	uint64_t arg;      /* readers': the command's argument (no command takes one yet) */
	uint32_t cmd;      /* readers': the latest request's command (enum apiprof_ctl_cmd) */
	uint32_t req;      /* readers': futex word, one more per request, then FUTEX_WAKE */
	uint32_t idle;     /* the runtime's: 1 while the flusher waits for a reader */
	/* The runtime's (APIPROF_SHM_FLUSH_ACK): the latest req whose answer
	 * is in the ring, release-stored and FUTEX_WAKEd after it. */
	uint32_t done;
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

/* What every ring record starts with: the slot's seqlock word, then the
 * snapshot the record is part of (the records of one snapshot of a
 * (thread, function) have the same tid, func, thread_seq and tick), and
 * what the payload is.  A reader copies the slot, then goes by kind: a
 * kind it does not know, or a size that is not the kind's
 * (apiprof_rec_kinds), was not written by this version's runtime. */
struct apiprof_rec_head {
	uint64_t seq;                /* 2*pos+1 while written, 2*pos+2 when complete */
	uint32_t tid;                /* 0 for a folded record */
	uint32_t func;               /* index into the function table */
	uint32_t flags;              /* APIPROF_REC_*, the kind's flag among them */
	uint32_t thread_seq;         /* per-thread snapshot generation, increasing */
	char comm[APIPROF_COMM_MAX]; /* thread name */
	uint64_t tick;               /* when the snapshot was taken */
	uint16_t kind;               /* enum apiprof_rec_kind */
	uint16_t size;               /* bytes of the payload: the kind's (apiprof_rec_kinds) */
	uint32_t reserved;           /* 0 */
};

/* The kinds of record, one row each: X(KIND, name, flag) makes
 * APIPROF_REC_KIND_<KIND>, whose payload is struct apiprof_rec_<name>
 * (the union's member <name>) and which sets flag in the head's flags.
 * The kind's enum value, its member of the union and its row of
 * apiprof_rec_kinds all come from here; the reader's read function
 * (read_<name>) too.  Adding a kind: a row, its payload struct, a fill
 * function in the runtime (apiprof_flush.c) and a read function in the
 * reader (top_shm.c). */
#define APIPROF_REC_KIND_LIST(X)                                                                   \
	X(TIMES, times, 0)                                                                         \
	X(ACCT, acct, APIPROF_REC_ACCT)                                                            \
	X(SITES, sites, APIPROF_REC_SITES)                                                         \
	X(SITEQ, siteq, APIPROF_REC_SITEQ)                                                         \
	X(NODES, nodes, APIPROF_REC_NODES)

/* 0 is no kind: a slot that was never written. */
#define APIPROF_REC_KIND_ENUM(K, name, flag) APIPROF_REC_KIND_##K,
enum apiprof_rec_kind {
	APIPROF_REC_KIND_NONE,
	APIPROF_REC_KIND_LIST(APIPROF_REC_KIND_ENUM) APIPROF_REC_KIND_END,
};
#undef APIPROF_REC_KIND_ENUM

/* The calls and time of one thread's calls of one function
 * (APIPROF_REC_KIND_TIMES, no flag of its own). */
struct apiprof_rec_times {
	uint64_t calls;     /* cumulative since the thread started */
	uint64_t ticks;     /* cumulative time inside the function */
	uint64_t min_ticks; /* UINT64_MAX when no timed call yet */
	uint64_t max_ticks;
	uint64_t timed; /* calls that were timed (== calls unless sampling) */
	uint64_t hist[APIPROF_HIST_BUCKETS];
	uint64_t inflight_since; /* APIPROF_REC_INFLIGHT: when the call in progress started, else 0
	                          */
};

/* The bytes and failures of one thread's calls of one function
 * (APIPROF_REC_KIND_ACCT, flag APIPROF_REC_ACCT), written right after
 * the times of the same snapshot of a function that has
 * APIPROF_FUNC_ACCT flags.  Bytes count only calls that did not fail;
 * failures count calls, which are also in the times' calls and time. */
struct apiprof_rec_acct {
	uint64_t calls;    /* as in the times */
	uint64_t bytes;    /* the sum of the sizes */
	uint64_t failures; /* calls that failed */
	uint64_t size_hist[APIPROF_SIZE_BUCKETS];
	uint64_t errnos[APIPROF_ERRNO_SLOTS]; /* failed calls by errno, with "errno" */
};

/* One call site's share of a function's calls.  timed of the calls were
 * timed and took ticks; when sampling (timed < calls) the site's calls
 * are an estimate: the calls made between two timed calls are counted at
 * the site of the first, which is unbiased since the timed calls are
 * drawn at random.  Without sampling they are exact. */
struct apiprof_shm_site {
	uint64_t key; /* see APIPROF_SITES; 0: an unused entry */
	uint64_t calls;
	uint64_t ticks;
	uint64_t timed;
};

/* The call sites of one thread's calls of one function
 * (APIPROF_REC_KIND_SITES, flag APIPROF_REC_SITES).  site[APIPROF_SITES]
 * is "(other callers)": its key has address 0 and the parent of all of
 * its calls, or APIPROF_PARENT_UNKNOWN.  The entries' calls add up to
 * `calls`.  calls_error[k] bounds entry k's count: the site had at least
 * site[k].calls calls (those counted since it last took an entry) and at
 * most site[k].calls + calls_error[k] (0: exact; in sampled mode, of the
 * estimate).  calls_error[APIPROF_SITES] is the most calls that any one
 * site counted in "(other callers)" may have had. */
struct apiprof_rec_sites {
	uint64_t calls; /* as in the times */
	struct apiprof_shm_site site[APIPROF_SITES + 1];
	uint64_t calls_error[APIPROF_SITES + 1];
};

/* One call site's latency quantiles since the start, from its own log2
 * histogram (as a record's p50/p99 are from hist): exact to the bucket
 * when every call is timed, estimates of the timed calls when sampling. */
#define APIPROF_SITEQ_NONE UINT64_MAX /* no timed call, or no histogram */
struct apiprof_shm_siteq {
	uint64_t key;       /* the entry's key, as in the sites record */
	uint64_t p50_ticks; /* APIPROF_SITEQ_NONE: not known */
	uint64_t p99_ticks;
};

/* The quantiles of the call sites of one thread's calls of one function
 * (APIPROF_REC_KIND_SITEQ, flag APIPROF_REC_SITEQ): the same snapshot as
 * the sites record with the same tid, func and thread_seq, entry k for
 * its entry k (key 0: unused).  The runtime writes one only when the
 * sites had timed calls since the row's previous one (or that one is
 * more than half a ring old), so a reader pairs it with the sites of the
 * same snapshot, or of a later one whose entries (key != 0) add up to
 * the same timed calls: the quantiles of a histogram with no new call
 * are the same. */
struct apiprof_rec_siteq {
	uint64_t calls; /* as in the times */
	/* the timed calls of the used entries (key != 0) of the sites
	 * record of the same snapshot; 0: not known */
	uint64_t timed;
	struct apiprof_shm_siteq site[APIPROF_SITES + 1];
};

/* One node of a thread's calling-context tree (issue 35.2): a path of
 * profiled calls, a root (parent 0) from call site ret (0: its context is
 * not known) or the child of node parent, for function func.  A parent's
 * id is always below its child's (made first), so a reader refuses a
 * node whose parent is not below it (a cycle) or whose function is
 * beyond the table.  Its figures are cumulative: calls, the ticks and
 * count of the timed ones (all of them in full timing), the calls under
 * it that the bounded table had no node for ("other paths", ovf_*), and
 * the calls made inside those, at any depth, in no path (lost).  Node 0
 * is the pseudo node above the roots: only its ovf_* and lost count. */
struct apiprof_shm_node {
	uint16_t id;
	uint16_t parent;
	uint32_t func;
	uint64_t ret;
	uint64_t calls, ticks, timed;
	uint64_t ovf_calls, ovf_ticks, ovf_timed;
	uint64_t lost;
};

#define APIPROF_NREC_NODES 7       /* nodes a record carries */
#define APIPROF_NODE_MAX   0x3fffu /* the highest id a node can have */

/* Nodes of one thread's tree (APIPROF_REC_KIND_NODES, flag
 * APIPROF_REC_NODES, func 0); each node as of the snapshot's tick.  The
 * flusher writes the nodes that changed since its previous snapshot of
 * the thread, and every node on a keyframe, so a reader that keeps the
 * newest of each id has the tree. */
struct apiprof_rec_nodes {
	uint32_t n;     /* nodes in this record */
	uint32_t count; /* nodes in the thread's tree (ids 1..count) */
	struct apiprof_shm_node node[APIPROF_NREC_NODES];
};

/* A ring slot: the head, then the payload of its kind. */
struct apiprof_shm_rec {
	struct apiprof_rec_head h;
#define APIPROF_REC_KIND_MEMBER(K, name, flag) struct apiprof_rec_##name name;
	union {
		APIPROF_REC_KIND_LIST(APIPROF_REC_KIND_MEMBER)
	} u;
#undef APIPROF_REC_KIND_MEMBER
};

/* The kinds' table, which the writer and the reader both go by: a name
 * for messages, the flag the kind sets in the head's flags, and the size
 * of its payload. */
struct apiprof_rec_kind_info {
	const char *name;
	uint32_t flag;
	uint16_t size;
};
#define APIPROF_REC_KIND_FLAG(K, name, flag) | (flag)
#define APIPROF_REC_KIND_FLAGS               (0u APIPROF_REC_KIND_LIST(APIPROF_REC_KIND_FLAG))
#define APIPROF_REC_KIND_ROW(K, name, flag)                                                        \
	[APIPROF_REC_KIND_##K] = {#name, flag, sizeof(struct apiprof_rec_##name)},
__attribute__((unused)) static const struct apiprof_rec_kind_info apiprof_rec_kinds[] = {
        [APIPROF_REC_KIND_NONE] = {"none", 0, 0}, APIPROF_REC_KIND_LIST(APIPROF_REC_KIND_ROW)};
#undef APIPROF_REC_KIND_ROW

_Static_assert(sizeof(apiprof_rec_kinds) / sizeof(apiprof_rec_kinds[0]) == APIPROF_REC_KIND_END,
               "one row per record kind");
_Static_assert(sizeof(struct apiprof_rec_head) == 56, "the head is 56 bytes");
_Static_assert(sizeof(struct apiprof_shm_rec) == 744, "a ring slot is 744 bytes (version 9's)");
_Static_assert(sizeof(((struct apiprof_shm_rec *)0)->u) <= UINT16_MAX, "a size fits the head");

/* The kind's table row, or NULL for a kind no row has. */
static inline const struct apiprof_rec_kind_info *apiprof_rec_kind(uint32_t kind)
{
	return kind > 0 && kind < APIPROF_REC_KIND_END ? &apiprof_rec_kinds[kind] : NULL;
}

/* Marks r as a record of kind k (a row of the table): its kind, its
 * payload's size and its flag. */
static inline void apiprof_rec_set_kind(struct apiprof_rec_head *r, enum apiprof_rec_kind k)
{
	r->kind = (uint16_t)k;
	r->size = apiprof_rec_kinds[k].size;
	r->flags = (r->flags & ~APIPROF_REC_KIND_FLAGS) | apiprof_rec_kinds[k].flag;
}

#endif /* APIPROF_ABI_H */
