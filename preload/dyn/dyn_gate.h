/* SPDX-License-Identifier: MIT */
/*
 * dyn_gate.h - the offsets dyn_gate.S reads, for the assembler; dyn_fn.c
 * checks them against the structures they are offsets of.
 */
#ifndef DYN_GATE_H
#define DYN_GATE_H

#define DYN_GATE_SLOT_REAL    16  /* struct dyn_slot's real */
#define DYN_GATE_SLOT_API     40  /* its api */
#define DYN_GATE_SLOT_CLOSURE 48  /* its closure */
#define DYN_GATE_API_TLS      128 /* struct apiprof_api's tls */
#define DYN_GATE_API_SLOT     136 /* its slot */
#define DYN_GATE_API_GATE     144 /* its gate (modes) */
#define DYN_GATE_OFF          8   /* APIPROF_GATE_OFF */
#define DYN_GATE_FRAME        8   /* struct apiprof_tls_api's frame */
#define DYN_GATE_FRAME_TAGS   7   /* APIPROF_FRAME_TAGS */

#define DYN_QUICK_FRAME 224 /* sizeof(struct dyn_quick_frame) */

#ifndef __ASSEMBLER__
/* Where the stubs of the profiled functions lead (dyn_gate.S). */
void dyn_gate(void) __attribute__((visibility("hidden")));
/* The closure of a register-only function (dyn_quick.S, dyn_fast.c). */
void dyn_quick(void) __attribute__((visibility("hidden")));
/* The same without vector registers, for integer-only signatures. */
void dyn_quick_gpr(void) __attribute__((visibility("hidden")));
#endif

#endif /* DYN_GATE_H */
