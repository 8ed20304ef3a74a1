// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio_prereq: does this kernel have what fsaio's checks need?  One KTAP
 * line per feature, naming the config option behind each failure, so a
 * run of fsaio_check.sh that fails can be told apart from a kernel that
 * was built without AIO, io_uring, BPF or BTF.  Needs root (the BPF map
 * and the tracefs look-up); skips otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/aio_abi.h>
#include <linux/bpf.h>
#include <linux/io_uring.h>

#include "../kselftest.h"

#define NR_TESTS 8

static void btf(void)
{
	struct stat st;

	if (stat("/sys/kernel/btf/vmlinux", &st))
		ksft_test_result_code(KSFT_FAIL, "btf",
			"no /sys/kernel/btf/vmlinux: %s (CONFIG_DEBUG_INFO_BTF)",
			strerror(errno));
	else
		ksft_test_result_code(KSFT_PASS, "btf", "/sys/kernel/btf/vmlinux %lld KiB",
				      (long long)st.st_size / 1024);
}

static void aio(void)
{
	aio_context_t ctx = 0;

	if (syscall(__NR_io_setup, 1, &ctx)) {
		ksft_test_result_code(KSFT_FAIL, "aio", "io_setup: %s%s", strerror(errno),
				      errno == ENOSYS ? " (CONFIG_AIO)" : "");
		return;
	}
	syscall(__NR_io_destroy, ctx);
	ksft_test_result_code(KSFT_PASS, "aio", NULL);
}

static void io_uring(void)
{
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0) {
		/* kernel.io_uring_disabled=2 (or 1 without the group) */
		if (errno == EPERM)
			ksft_test_result_code(KSFT_SKIP, "io_uring",
					      "io_uring_setup: EPERM (kernel.io_uring_disabled?)");
		else
			ksft_test_result_code(KSFT_FAIL, "io_uring", "io_uring_setup: %s%s",
					      strerror(errno),
					      errno == ENOSYS ? " (CONFIG_IO_URING)" : "");
		return;
	}
	close(fd);
	ksft_test_result_code(KSFT_PASS, "io_uring", NULL);
}

static void bpf_syscall(void)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 8;
	attr.max_entries = 1;
	fd = syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0) {
		ksft_test_result_code(KSFT_FAIL, "bpf", "BPF_MAP_CREATE: %s%s", strerror(errno),
				      errno == ENOSYS ? " (CONFIG_BPF_SYSCALL)" : "");
		return;
	}
	close(fd);
	ksft_test_result_code(KSFT_PASS, "bpf", NULL);
}

/* tracefs event directory @ev, under either mount point. */
static int have_event(const char *ev)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char path[256];
	unsigned int i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s", roots[i], ev);
		if (!access(path, F_OK))
			return 1;
	}
	return 0;
}

static void tracepoints(void)
{
	if (have_event("block/block_rq_issue") || have_event("sched/sched_switch"))
		ksft_test_result_code(KSFT_PASS, "tracepoints", NULL);
	else
		ksft_test_result_code(KSFT_FAIL, "tracepoints",
			"no events/ under tracefs (CONFIG_FTRACE, tracefs mounted?)");
}

/* Wanted, not required: without it exactly_once SKIPs for libaio. */
static void syscall_tracepoints(void)
{
	if (have_event("syscalls/sys_enter_io_submit"))
		ksft_test_result_code(KSFT_PASS, "syscall_tracepoints", NULL);
	else
		ksft_test_result_code(KSFT_SKIP, "syscall_tracepoints",
			"no syscalls:sys_enter_io_submit (CONFIG_FTRACE_SYSCALLS): io_submit calls are not observable");
}

/* fio invalidates its files' cache with posix_fadvise(DONTNEED). */
static void fadvise(void)
{
	char name[] = "/tmp/fsaio-prereq.XXXXXX";
	int fd = mkstemp(name), err;

	if (fd < 0) {
		ksft_test_result_code(KSFT_SKIP, "fadvise", "mkstemp: %s", strerror(errno));
		return;
	}
	unlink(name);
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	if (err)
		ksft_test_result_code(KSFT_FAIL, "fadvise", "posix_fadvise: %s%s", strerror(err),
				      err == ENOSYS ? " (CONFIG_ADVISE_SYSCALLS)" : "");
	else
		ksft_test_result_code(KSFT_PASS, "fadvise", NULL);
}

/* fsaio check puts its scratch filesystem on a loop device. */
static void loop(void)
{
	if (!access("/dev/loop-control", F_OK) || !access("/sys/module/loop", F_OK))
		ksft_test_result_code(KSFT_PASS, "loop", NULL);
	else
		ksft_test_result_code(KSFT_FAIL, "loop",
				      "no /dev/loop-control (CONFIG_BLK_DEV_LOOP)");
}

int main(void)
{
	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("fsaio needs root\n");
	ksft_set_plan(NR_TESTS);
	btf();
	aio();
	io_uring();
	bpf_syscall();
	tracepoints();
	syscall_tracepoints();
	fadvise();
	loop();
	ksft_finished();
}
