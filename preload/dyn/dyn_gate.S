/* SPDX-License-Identifier: MIT */
/*
 * dyn_gate.S - where the stub of a profiled function leads (dyn_link.h),
 * with its slot in %r11: to the function itself when the call is nested
 * in a call of its api in progress on this thread or its api is off
 * (issue 37: not counted, so no frame either), else to its closure.
 *
 * A nested call is not counted (apiprof_slow.c), and a closure cannot
 * forward a call without a frame: libffi's saves every argument register
 * and calls the handler, which calls the function, about 720 bytes of
 * stack a call.  A callback that calls the function again then took that
 * much a level more than bare, and crashed on a stack bare recursion
 * fits in.  So the test a generated wrapper makes before its tail jump
 * (apiprof_shim.h apiprof_nested) is made here, where nothing is on the
 * stack yet: the api's frame word on this thread holds the stack address
 * of its outermost call in progress, above a nested call's (stacks grow
 * down).  The others go to the closure as before, which sorts out the
 * rest (a frame an unwinding left, a signal handler's call on an
 * alternate stack).
 *
 * Only %r10, %r11 and the flags are touched, which no call passes
 * anything in (%al, the count of vector registers of a variadic call, is kept):
 * the function or the closure gets the call exactly as it was made.
 * Loads only, no store.  An api's offsets never change once published
 * (tls last): 0 until then, and a thread without its table has its frame
 * word at 0.
 */
#include "dyn_gate.h"

	.text
	.p2align 4
	.globl	dyn_gate
	.hidden	dyn_gate
	.type	dyn_gate, @function
dyn_gate:
	.cfi_startproc
	movq	DYN_GATE_SLOT_API(%r11), %r10
	cmpq	$DYN_GATE_OFF, DYN_GATE_API_GATE(%r10)	/* the api off: through */
	je	2f
	cmpq	$0, DYN_GATE_API_TLS(%r10)	/* not published yet */
	je	1f
	movq	DYN_GATE_API_SLOT(%r10), %r10
	movq	%fs:DYN_GATE_FRAME(%r10), %r10	/* the thread's frame word */
	cmpq	$1, %r10			/* 0: no table; 1: idle */
	jbe	1f
	andq	$~DYN_GATE_FRAME_TAGS, %r10
	cmpq	%rsp, %r10			/* at or below this call: not nested */
	jbe	1f
2:
	cmpq	$0, DYN_GATE_SLOT_REAL(%r11)
	je	1f
	jmp	*DYN_GATE_SLOT_REAL(%r11)	/* nested: the function itself */
1:
	jmp	*DYN_GATE_SLOT_CLOSURE(%r11)
	.cfi_endproc
	.size	dyn_gate, .-dyn_gate

	.section .note.GNU-stack, "", @progbits
