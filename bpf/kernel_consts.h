/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel numbers that vmlinux.h (BTF) does not carry: task state and
 * flag bits, error codes, syscall numbers.  Plain #defines, so that the
 * BPF programs (through core_fixes.bpf.h) and the host compiler can both
 * read them: bpf/gen-stap-consts.c makes stap/fsaio.stp's constants from
 * here and from fsaio.h.  The syscall numbers are the one place that knows
 * the architecture (__TARGET_ARCH_*, as the BPF build defines it).
 */
#ifndef FSAIO_KERNEL_CONSTS_H
#define FSAIO_KERNEL_CONSTS_H

#define FSAIO_TASK_UNINTERRUPTIBLE	0x0002	/* include/linux/sched.h */
#define FSAIO_TASK_NOLOAD		0x0400	/* TASK_IDLE = D | NOLOAD: idle kthreads */
#define FSAIO_PF_EXITING		0x00000004	/* in do_exit() */
/* include/linux/percpu-refcount.h: a killed ref (io_ring_ctx.refs once the
 * ring is being torn down, io_ring_ctx_wait_and_kill) */
#define FSAIO_PERCPU_REF_DEAD		(1UL << 1)
#define FSAIO_PF_IO_WORKER		0x00000010	/* io-wq / sqpoll thread */
#define FSAIO_PF_WQ_WORKER		0x00000020	/* workqueue worker */
#define FSAIO_PF_KTHREAD		0x00200000

#define FSAIO_EIOCBQUEUED	529	/* include/linux/errno.h: -EIOCBQUEUED */
#define FSAIO_EIOCBRETRY	530	/* the 2006 FSAIO series' code */
#define FSAIO_ENOSYS		38
#define FSAIO_ECANCELED		125

#if defined(__TARGET_ARCH_x86)
/* arch/x86/entry/syscalls/syscall_64.tbl */
#define FSAIO_NR_read		0
#define FSAIO_NR_write		1
#define FSAIO_NR_pread64	17
#define FSAIO_NR_pwrite64	18
#define FSAIO_NR_readv		19
#define FSAIO_NR_writev		20
#define FSAIO_NR_io_destroy	207
#define FSAIO_NR_io_getevents	208
#define FSAIO_NR_io_submit	209
#define FSAIO_NR_preadv		295
#define FSAIO_NR_pwritev	296
#define FSAIO_NR_preadv2	327
#define FSAIO_NR_pwritev2	328
#define FSAIO_NR_io_pgetevents	333
#define FSAIO_NR_io_uring_enter	426
#else
/* Other architectures need their syscall table here and their entry
 * convention in core_fixes.bpf.h (fsaio_task_syscall_nr).  Until then no
 * syscall matches these. */
#define FSAIO_NR_read		-100
#define FSAIO_NR_write		-101
#define FSAIO_NR_pread64	-102
#define FSAIO_NR_pwrite64	-103
#define FSAIO_NR_readv		-104
#define FSAIO_NR_writev		-105
#define FSAIO_NR_io_getevents	-106
#define FSAIO_NR_io_submit	-107
#define FSAIO_NR_preadv		-108
#define FSAIO_NR_pwritev	-109
#define FSAIO_NR_preadv2	-110
#define FSAIO_NR_pwritev2	-111
#define FSAIO_NR_io_pgetevents	-112
#define FSAIO_NR_io_uring_enter	-113
#define FSAIO_NR_io_destroy	-114
#endif

#endif /* FSAIO_KERNEL_CONSTS_H */
