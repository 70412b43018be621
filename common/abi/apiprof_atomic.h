/* SPDX-License-Identifier: MIT */
/*
 * apiprof_atomic.h - the one vocabulary of memory ordering used across
 * apiprof: the runtime, the ring, the viewer and the launcher.
 *
 * Every shared word is accessed through one of these, never with a plain
 * load or store and never with a raw __atomic_* builtin, so that grep
 * finds every ordering decision.  The rules they encode:
 *
 *  - apiprof_read_once / apiprof_write_once: relaxed.  A word with one
 *    writer (a thread's own counter, a flag only its owner sets) read by
 *    others that need it untorn but order nothing by it.  Pairs with
 *    nothing.
 *  - apiprof_store_release pairs with apiprof_load_acquire of the same
 *    word: whoever loads the new value also sees every write made before
 *    the store (a header's magic published last, a pointer to a filled
 *    object).  Each call site says which load or store it pairs with.
 *  - apiprof_fence_release pairs with apiprof_fence_acquire: the
 *    seqlock's two fences (common/abi/apiprof_ringbuf.h), where the ordered
 *    accesses are plain copies of a payload.
 *  - *_seq_cst: a total order with other seq_cst accesses; used only
 *    where a thread stores one word and then reads another that a second
 *    thread stores before reading the first (a request and its answer,
 *    the flusher's command word).
 *  - apiprof_compiler_barrier: orders this thread against its own signal
 *    handler only; no instruction is emitted.
 *  - Read-modify-writes (fetch_add, cas, xchg) name their ordering the
 *    same way; a cas names the success order, and its failure order is
 *    the same without the release half.
 *
 * The hot path's own counters use apiprof_load / apiprof_store /
 * apiprof_add in apiprof_shim.h (relaxed, single writer), which the
 * generated shims inline.
 */
#ifndef APIPROF_ATOMIC_H
#define APIPROF_ATOMIC_H

/* --- loads and stores -------------------------------------------------- */
#define apiprof_read_once(p)        __atomic_load_n((p), __ATOMIC_RELAXED)
#define apiprof_write_once(p, v)    __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define apiprof_load_acquire(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define apiprof_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define apiprof_load_seq_cst(p)     __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define apiprof_store_seq_cst(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)

/* --- fences ------------------------------------------------------------ */
#define apiprof_fence_acquire()    __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define apiprof_fence_release()    __atomic_thread_fence(__ATOMIC_RELEASE)
#define apiprof_fence_seq_cst()    __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define apiprof_compiler_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* --- read-modify-writes ------------------------------------------------ */
#define apiprof_fetch_add_relaxed(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELAXED)
#define apiprof_fetch_add_release(p, v) __atomic_fetch_add((p), (v), __ATOMIC_RELEASE)
#define apiprof_fetch_add_acq_rel(p, v) __atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL)
#define apiprof_add_fetch_relaxed(p, v) __atomic_add_fetch((p), (v), __ATOMIC_RELAXED)
#define apiprof_add_fetch_seq_cst(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define apiprof_or_fetch_relaxed(p, v)  __atomic_or_fetch((p), (v), __ATOMIC_RELAXED)
#define apiprof_and_fetch_relaxed(p, v) __atomic_and_fetch((p), (v), __ATOMIC_RELAXED)
#define apiprof_xchg_relaxed(p, v)      __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#define apiprof_xchg_acquire(p, v)      __atomic_exchange_n((p), (v), __ATOMIC_ACQUIRE)
#define apiprof_xchg_acq_rel(p, v)      __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define apiprof_xchg_seq_cst(p, v)      __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

/* Compare *p with *expected; if equal store desired, else load *p into
 * *expected.  True when it stored.  Strong (never fails spuriously). */
#define apiprof_cas_relaxed(p, expected, desired)                                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false, __ATOMIC_RELAXED,           \
	                            __ATOMIC_RELAXED)
#define apiprof_cas_acquire(p, expected, desired)                                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false, __ATOMIC_ACQUIRE,           \
	                            __ATOMIC_ACQUIRE)
#define apiprof_cas_release(p, expected, desired)                                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false, __ATOMIC_RELEASE,           \
	                            __ATOMIC_RELAXED)
#define apiprof_cas_acq_rel(p, expected, desired)                                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false, __ATOMIC_ACQ_REL,           \
	                            __ATOMIC_ACQUIRE)
#define apiprof_cas_seq_cst(p, expected, desired)                                                  \
	__atomic_compare_exchange_n((p), (expected), (desired), false, __ATOMIC_SEQ_CST,           \
	                            __ATOMIC_SEQ_CST)

#endif /* APIPROF_ATOMIC_H */
