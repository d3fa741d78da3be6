main:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbx
	subq	$520, %rsp
	.cfi_offset %rbx, -56
	.cfi_offset %r12, -48
	.cfi_offset %r13, -40
	.cfi_offset %r14, -32
	.cfi_offset %r15, -24
	movq	%rsi, %rbx
	movl	$12352, %edi
	callq	malloc@PLT
	movq	%rax, -416(%rbp)
	movq	%rax, %r14
	addq	$63, %r14
	andq	$-64, %r14
	xorl	%r15d, %r15d
	xorl	%edi, %edi
	callq	loupe_ral_dispatch_begin@PLT
	leaq	12288(%r14), %rax
	leaq	12288(%rbx), %rcx
	cmpq	%r14, %rcx
	seta	%cl
	cmpq	%rbx, %rax
	seta	%al
	andb	%cl, %al
	vmovaps	.LCPI0_0(%rip), %ymm0
	vmovaps	.LCPI0_1(%rip), %zmm1
	jmp	.LBB0_1
	.p2align	4, 0x90
.LBB0_3:
	vmovss	(%rdx), %xmm2
	vmovss	%xmm2, (%rcx)
	vmovss	4096(%rdx), %xmm2
	vmovss	%xmm2, 4(%rcx)
	vmovss	8192(%rdx), %xmm2
	vmovss	%xmm2, 8(%rcx)
	vmovss	4(%rdx), %xmm2
	vmovss	%xmm2, 12(%rcx)
