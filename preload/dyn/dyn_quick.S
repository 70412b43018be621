/* SPDX-License-Identifier: MIT */
/*
 * dyn_quick.S - the closure of a function whose arguments all travel in
 * registers (dyn_fast.c), without libffi: where the gate sends a call that
 * is counted, with the stub's slot still in %r11.
 *
 * libffi's closure saves every argument register, then classifies each
 * argument of the cif on every call to build `args`, and decodes the
 * result the same way: most of a dynamic-mode call's cost.  Here the
 * six integer and eight vector argument registers are saved in a frame
 * (struct dyn_quick_frame), dyn_quick_call (dyn_fast.c) times the call
 * and makes it from that frame, and the result registers come back from
 * it.  Nothing else is touched: the callee gets the registers the program
 * passed, and the program gets %rax, %rdx, %xmm0 and %xmm1 as the callee
 * left them.  %rbp is the frame pointer, with CFI, so an exception or a
 * backtrace goes through as through any C function.
 */
#include "dyn_gate.h"

	.text
	.p2align 4
	.globl	dyn_quick
	.hidden	dyn_quick
	.type	dyn_quick, @function
dyn_quick:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$DYN_QUICK_FRAME, %rsp		/* keeps %rsp 16-byte aligned */
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, 80(%rsp)
	movaps	%xmm2, 96(%rsp)
	movaps	%xmm3, 112(%rsp)
	movaps	%xmm4, 128(%rsp)
	movaps	%xmm5, 144(%rsp)
	movaps	%xmm6, 160(%rsp)
	movaps	%xmm7, 176(%rsp)
	movq	%r11, %rdi			/* the slot */
	movq	%rsp, %rsi			/* the frame */
	movq	8(%rbp), %rdx			/* the call site */
	call	dyn_quick_call
	movq	48(%rsp), %rax
	movq	56(%rsp), %rdx
	movaps	192(%rsp), %xmm0
	movaps	208(%rsp), %xmm1
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	dyn_quick, .-dyn_quick

/* The same for a function with no floating-point parameter and an
 * integer (or no) result: no vector register is saved or given back. */
	.p2align 4
	.globl	dyn_quick_gpr
	.hidden	dyn_quick_gpr
	.type	dyn_quick_gpr, @function
dyn_quick_gpr:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$DYN_QUICK_FRAME, %rsp
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%r11, %rdi
	movq	%rsp, %rsi
	movq	8(%rbp), %rdx
	call	dyn_quick_call
	movq	48(%rsp), %rax
	movq	56(%rsp), %rdx
	leave
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	dyn_quick_gpr, .-dyn_quick_gpr

	.section .note.GNU-stack, "", @progbits
