/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest entry helpers: the return trampoline a guest_code() returns to,
 * and the 32 exception stubs the IDT points at. Both realign the stack
 * before calling C (a `ret` or an exception frame leaves it 16-aligned,
 * a C function expects rsp % 16 == 8 at entry).
 */
	.text
	.code64

	.globl	guest_code_returned
	.type	guest_code_returned, @function
	.align	16
guest_code_returned:
	andq	$-16, %rsp
	call	guest_report_return
1:	hlt
	jmp	1b
	.size	guest_code_returned, . - guest_code_returned

/* Vectors for which the CPU pushes an error code */
.macro	EXC_STUB vec
	.align	16
guest_exc_\vec:
	.if (\vec == 8) || (\vec >= 10 && \vec <= 14) || (\vec == 17) || \
	    (\vec == 21) || (\vec == 29) || (\vec == 30)
	.else
	pushq	$0
	.endif
	pushq	$\vec
	jmp	guest_exception_common
.endm

.irp	vec, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	EXC_STUB \vec
.endr

	.align	16
guest_exception_common:
	movq	0(%rsp), %rdi		/* vector */
	movq	8(%rsp), %rsi		/* error code */
	movq	16(%rsp), %rdx		/* rip */
	movq	%cr2, %rcx
	andq	$-16, %rsp
	call	guest_report_exception
2:	hlt
	jmp	2b

	.section .rodata
	.globl	guest_exception_stubs
	.align	8
guest_exception_stubs:
.irp	vec, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.quad	guest_exc_\vec
.endr

	.section .note.GNU-stack, "", @progbits
