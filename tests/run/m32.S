/* m32.S - a tiny 32-bit i386 program, assembled without a 32-bit libc:
 * creates the file named by argv[1] (when given) and exits 0. */
	.text
	.globl _start
_start:
	movl 8(%esp), %ebx	/* argv[1] */
	testl %ebx, %ebx
	jz 1f
	movl $5, %eax		/* open(argv[1], O_WRONLY|O_CREAT, 0644) */
	movl $0101, %ecx
	movl $0644, %edx
	int $0x80
1:	movl $1, %eax		/* exit(0) */
	xorl %ebx, %ebx
	int $0x80
	.section .note.GNU-stack,"",@progbits
