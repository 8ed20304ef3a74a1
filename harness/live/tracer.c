// SPDX-License-Identifier: GPL-2.0
/*
 * The live tracer: probe what the kernel allows, open the skeleton, choose
 * programs (bpf_program__set_autoload), load, attach one by one, and deliver
 * ring buffer records in sequence order, decoded and with SLEEP stacks
 * classified by wait site.  The only file that knows libbpf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bpf/fsaio_fold.h"	/* the skeleton's .bss holds fold_slots */
#include "fsaio.skel.h"
#include "core/decode.h"
#include "core/features.h"
#include "core/waitsite.h"
#include "live/ksyms.h"
#include "live/tracer.h"

#define DEFAULT_RINGBUF		(8u << 20)
#define MAX_LINKS		48
/* BPF wakes the consumer when 1/WAKEUP_FRACTION of the ring buffer is
 * filled; below that, records wait for the poll timeout (see rec_submit). */
#define WAKEUP_FRACTION		16
/* How long a record waits for a lower sequence number still being written
 * by another CPU (reserve order and sequence order may differ). */
#define REORDER_WAIT_NS		(20 * 1000 * 1000ull)

/* An optional program and what decides whether it is loaded. */
enum prog_kind {
	PK_REQUIRED,		/* raw_tp: loads wherever BPF tracing does */
	PK_TP,			/* tracepoint: needs tracefs events/<cat>/<name> */
	PK_SWITCH_BTF,		/* tp_btf/sched_switch */
	PK_SWITCH_RAW,		/* raw_tp/sched_switch fallback */
	PK_FENTRY,		/* fentry/fexit: needs the probe to load+attach */
	PK_FSAIO_TP,		/* raw_tp on a patched kernel's fsaio:* event */
	PK_RAW_TP,		/* raw_tp on a tracepoint whose prototype (kernel
				 * BTF) is one we know; its classic PK_TP twin
				 * (same name, later in progs[]) is then not used */
	PK_TP_OLD,		/* tracepoint: an older kernel's name for the
				 * PK_TP `alt` (used only where that is missing,
				 * and stands in for it) */
};

struct prog_desc {
	const char *prog;	/* program (function) name in the object */
	enum prog_kind kind;
	const char *cat, *name;	/* PK_TP: tracepoint; PK_FENTRY: name = function;
				 * PK_FSAIO_TP: name = fsaio event */
	uint32_t feat;		/* feature bit it contributes to */
	bool fexit;
	const char *alt;	/* PK_TP_OLD: the current name */
};

static const struct prog_desc progs[] = {
	{ "fsaio_fork", PK_REQUIRED },
	{ "fsaio_exit", PK_REQUIRED },
	{ "fsaio_sched_switch_btf", PK_SWITCH_BTF, NULL, NULL, FEAT_STACK },
	{ "fsaio_sched_switch_raw", PK_SWITCH_RAW, NULL, NULL, FEAT_STACK },
	{ "fsaio_io_submit_enter", PK_TP, "syscalls", "sys_enter_io_submit", FEAT_SYSCALL_TP },
	{ "fsaio_io_submit_exit", PK_TP, "syscalls", "sys_exit_io_submit", FEAT_SYSCALL_TP },
	{ "fsaio_io_getevents_enter", PK_TP, "syscalls", "sys_enter_io_getevents", FEAT_SYSCALL_TP },
	{ "fsaio_io_getevents_exit", PK_TP, "syscalls", "sys_exit_io_getevents", FEAT_SYSCALL_TP },
	{ "fsaio_io_destroy_enter", PK_TP, "syscalls", "sys_enter_io_destroy", 0 },
	{ "fsaio_io_destroy_exit", PK_TP, "syscalls", "sys_exit_io_destroy", 0 },
	{ "fsaio_io_pgetevents_enter", PK_TP, "syscalls", "sys_enter_io_pgetevents", 0 },
	{ "fsaio_io_pgetevents_exit", PK_TP, "syscalls", "sys_exit_io_pgetevents", 0 },
	{ "fsaio_io_uring_enter_enter", PK_TP, "syscalls", "sys_enter_io_uring_enter", 0 },
	{ "fsaio_io_uring_enter_exit", PK_TP, "syscalls", "sys_exit_io_uring_enter", 0 },
	{ "fsaio_uring_create", PK_TP, "io_uring", "io_uring_create", 0 },
	{ "fsaio_uring_submit_req_raw", PK_RAW_TP, "io_uring", "io_uring_submit_req", FEAT_IO_URING_TP },
	{ "fsaio_uring_complete_raw", PK_RAW_TP, "io_uring", "io_uring_complete", FEAT_IO_URING_TP },
	{ "fsaio_uring_submit_req", PK_TP, "io_uring", "io_uring_submit_req", FEAT_IO_URING_TP },
	{ "fsaio_uring_submit_sqe", PK_TP_OLD, "io_uring", "io_uring_submit_sqe", FEAT_IO_URING_TP,
	  .alt = "io_uring_submit_req" },
	{ "fsaio_uring_req_failed", PK_TP, "io_uring", "io_uring_req_failed", 0 },
	{ "fsaio_uring_cqe_overflow", PK_TP, "io_uring", "io_uring_cqe_overflow", 0 },
	{ "fsaio_uring_fail_link", PK_TP, "io_uring", "io_uring_fail_link", 0 },
	{ "fsaio_uring_queue_async_work", PK_TP, "io_uring", "io_uring_queue_async_work", 0 },
	{ "fsaio_uring_complete", PK_TP, "io_uring", "io_uring_complete", FEAT_IO_URING_TP },
	{ "fsaio_work_end", PK_TP, "workqueue", "workqueue_execute_end", FEAT_WORKQUEUE_TP },
	/* patched kernel: before the fentry programs, which attach_all()
	 * tells whether these took over libaio retries and completions */
	{ "fsaio_tp_submit", PK_FSAIO_TP, "fsaio", "fsaio_submit", FEAT_FSAIO_TP },
	{ "fsaio_tp_retry", PK_FSAIO_TP, "fsaio", "fsaio_retry", FEAT_FSAIO_TP },
	{ "fsaio_tp_wake", PK_FSAIO_TP, "fsaio", "fsaio_wake", FEAT_FSAIO_TP },
	{ "fsaio_tp_resume", PK_FSAIO_TP, "fsaio", "fsaio_resume", FEAT_FSAIO_TP },
	{ "fsaio_tp_punt", PK_FSAIO_TP, "fsaio", "fsaio_punt", FEAT_FSAIO_TP },
	{ "fsaio_tp_complete", PK_FSAIO_TP, "fsaio", "fsaio_complete", FEAT_FSAIO_TP },
	{ "fsaio_fexit_get_pages", PK_FENTRY, NULL, "filemap_get_pages", FEAT_FEXIT_GET_PAGES, true },
	{ "fsaio_fentry_async_buf", PK_FENTRY, NULL, "io_async_buf_func", FEAT_FENTRY_ASYNC_BUF },
	/* the resume half of the wake/resume pair: FEAT_FENTRY_ASYNC_BUF needs both */
	{ "fsaio_fentry_io_read", PK_FENTRY, NULL, "io_read", FEAT_FENTRY_ASYNC_BUF },
	{ "fsaio_fentry_aio_complete", PK_FENTRY, NULL, "aio_complete_rw", FEAT_FENTRY_AIO_COMPLETE },
	{ "fsaio_fentry_fsync", PK_FENTRY, NULL, "vfs_fsync_range", FEAT_FENTRY_FSYNC },
};
#define NR_PROGS (sizeof(progs) / sizeof(progs[0]))

struct tracer {
	struct tracer_opts opts;
	struct fsaio_bpf *skel;
	struct ring_buffer *rb;
	struct ksyms *ksyms;
	struct bpf_link *links[MAX_LINKS];
	int nr_links;
	uint32_t feat;
	size_t ringbuf_bytes;
	const char *tracefs;
	bool use[NR_PROGS];		/* autoload decision per program */
	bool attached[NR_PROGS];
	uint32_t feat_missing;		/* a contributing program failed */
	char why_tp_btf[96];
	char why_fentry[96];		/* first fentry/fexit probe failure */
	char why_prog[NR_PROGS][96];	/* per fentry target */
	char why_ksyms[128];
	bool fentry_load_fell_back;
	bool skel_uring_complete_cqe;	/* rodata uring_complete_cqe at load */
	bool fsaio_events_present;	/* some fsaio:* event exists */
	char why_fsaio[128];		/* why FEAT_FSAIO_TP is off although present */
	int ncpus;

	/* in-order delivery */
	struct fsaio_record *pend;	/* sorted by seq, [pend_head, pend_nr) */
	size_t pend_head, pend_nr, pend_cap;
	uint64_t next_seq;
	uint64_t gap_since;		/* CLOCK_MONOTONIC ns, 0: no gap */
	uint64_t bad_records;
	int oom;
};

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void vlog(const struct tracer *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->opts.verbose)
		return;
	va_start(ap, fmt);
	fputs("fsaio: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ------------------------------ probing --------------------------------- */

static const char *find_tracefs(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing" };
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (!access(path, F_OK))
			return dirs[i];
	}
	if (!mount("tracefs", dirs[0], "tracefs", 0, NULL) &&
	    !access("/sys/kernel/tracing/events", F_OK))
		return dirs[0];
	return NULL;
}

static bool tp_exists(const struct tracer *t, const char *cat, const char *name)
{
	char path[256];

	if (!t->tracefs)
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", t->tracefs, cat, name);
	return !access(path, F_OK);
}

/*
 * Load a two-instruction BTF-attached program (fentry/fexit on a function,
 * or tp_btf on a raw tracepoint) and attach it: this tells EPERM (fentry
 * refused), ENOENT (not in BTF) and EBUSY/EINVAL (not traceable by ftrace)
 * apart before the real object is loaded.  0 or negative errno.
 */
static int probe_btf_attach(const struct btf *vmlinux, const char *name,
			    enum bpf_attach_type type)
{
	struct bpf_insn insns[2] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = type);
	char tname[128];
	int id, fd, lfd, err;

	if (type == BPF_TRACE_RAW_TP) {
		snprintf(tname, sizeof(tname), "btf_trace_%s", name);
		id = btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF);
	} else {
		id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_FUNC);
	}
	if (id <= 0)
		return -ENOENT;
	lo.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "fsaio_probe", "GPL", insns, 2, &lo);
	if (fd < 0)
		return -errno;
	lfd = bpf_raw_tracepoint_open(NULL, fd);
	err = lfd < 0 ? -errno : 0;
	if (lfd >= 0)
		close(lfd);
	close(fd);
	return err;
}

/* A patched kernel's fsaio:* event: its raw tracepoint's BTF typedef
 * (btf_trace_<name>, what raw_tp/tp_btf attach by) or its tracefs dir. */
static bool fsaio_event_exists(const struct tracer *t, const struct btf *vmlinux,
			       const char *name)
{
	char tname[128];

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	if (btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) > 0)
		return true;
	return tp_exists(t, "fsaio", name);
}

/* Parameters of tracepoint name's prototype in the kernel's BTF (the
 * typedef btf_trace_<name>, whose first parameter is the probe's data
 * pointer), -1 if absent. */
static int btf_tp_nargs(const struct btf *vmlinux, const char *name)
{
	const struct btf_type *t;
	char tname[128];
	int id;

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	id = btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(vmlinux, btf__resolve_type(vmlinux, id));
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(vmlinux, t->type);
	return t && btf_is_func_proto(t) ? btf_vlen(t) : -1;
}

/* A raw_tp program we know the arguments of on this kernel */
static bool raw_tp_usable(struct tracer *t, const struct btf *vmlinux, const char *name)
{
	int n = btf_tp_nargs(vmlinux, name);

	if (!strcmp(name, "io_uring_submit_req"))
		return n == 2;				/* (data, req) */
	if (!strcmp(name, "io_uring_complete")) {
		if (n == 4)				/* (data, ctx, req, cqe) */
			t->skel_uring_complete_cqe = true;
		return n == 4 || n == 8;		/* (data, ctx, req, user_data, res, cflags, e1, e2) */
	}
	return false;
}

/* The PK_TP_OLD entry standing in for d's tracepoint on older kernels */
static const struct prog_desc *old_name_of(const struct prog_desc *d)
{
	size_t i;

	for (i = 0; i < NR_PROGS; i++)
		if (progs[i].kind == PK_TP_OLD && !strcmp(progs[i].alt, d->name))
			return &progs[i];
	return NULL;
}

/* The raw_tp twin of a classic tracepoint program is in use */
static bool raw_twin_used(const struct tracer *t, const char *name, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (progs[i].kind == PK_RAW_TP && t->use[i] && !strcmp(progs[i].name, name))
			return true;
	return false;
}

static const char *errname(int err)
{
	switch (-err) {
	case EPERM: return "EPERM";
	case ENOENT: return "not in kernel BTF";
	case EBUSY: return "EBUSY, not traceable by ftrace";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case 524: return "ENOTSUPP";
	default: return strerror(-err);
	}
}

/* The patched kernel's switch; absent (stock kernel) reads as off. */
static bool libaio_async_enabled(void)
{
	char c = '0';
	FILE *f = fopen("/proc/sys/fs/aio-buffered-async", "r");

	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '0';
		fclose(f);
	}
	return c == '1';
}

/* FSAIO_BTF names the kernel's BTF when it is not in sysfs (as bpftool's
 * --btf); the tests also use it to play a kernel without BTF. */
static const char *kernel_btf_path(void)
{
	const char *p = getenv("FSAIO_BTF");

	return p && *p ? p : "/sys/kernel/btf/vmlinux";
}

static int probe_features(struct tracer *t, char *err, size_t errlen)
{
	struct btf *vmlinux;
	bool fentry_refused = false;
	int fsaio_missing = 0;
	size_t i;
	int ret;

	if (access(kernel_btf_path(), R_OK)) {
		snprintf(err, errlen, "kernel BTF missing (%s): fsaio needs a kernel "
			 "built with CONFIG_DEBUG_INFO_BTF=y", kernel_btf_path());
		return -EOPNOTSUPP;
	}
	t->feat |= FEAT_BTF;
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) != 1) {
		snprintf(err, errlen, "BPF ring buffer not supported: fsaio needs Linux 5.8 or later");
		return -EOPNOTSUPP;
	}
	t->feat |= FEAT_RINGBUF;
	vmlinux = btf__parse(kernel_btf_path(), NULL);
	if (!vmlinux) {
		snprintf(err, errlen, "cannot parse kernel BTF %s: %s",
			 kernel_btf_path(), strerror(errno));
		return -EOPNOTSUPP;
	}

	t->tracefs = find_tracefs();
	if (!t->tracefs)
		vlog(t, "tracefs not found and cannot be mounted: tracepoint programs disabled");

	ret = probe_btf_attach(vmlinux, "sched_switch", BPF_TRACE_RAW_TP);
	if (!ret)
		t->feat |= FEAT_TP_BTF;
	else
		snprintf(t->why_tp_btf, sizeof(t->why_tp_btf), "%s", errname(ret));
	vlog(t, "tp_btf/sched_switch: %s", ret ? t->why_tp_btf : "loads");

	for (i = 0; i < NR_PROGS; i++) {
		const struct prog_desc *d = &progs[i];

		switch (d->kind) {
		case PK_REQUIRED:
			t->use[i] = true;
			break;
		case PK_SWITCH_BTF:
			t->use[i] = t->feat & FEAT_TP_BTF;
			break;
		case PK_SWITCH_RAW:
			t->use[i] = !(t->feat & FEAT_TP_BTF);
			break;
		case PK_RAW_TP:
			/* counting in the kernel only (trace, or check folding):
			 * with every event sent, a cheaper producer outran its
			 * consumer (fio io_uring at ~500k IOPS: 8007 records
			 * lost) */
			t->use[i] = (t->opts.aggregate || t->opts.fold) &&
				    raw_tp_usable(t, vmlinux, d->name);
			vlog(t, "raw_tp/%s: %s", d->name, t->use[i] ? "prototype known, used" :
			     "prototype not known here: the classic tracepoint instead");
			break;
		case PK_TP:
			if (raw_twin_used(t, d->name, i)) {
				t->use[i] = false;
				break;
			}
			t->use[i] = tp_exists(t, d->cat, d->name);
			if (!t->use[i]) {
				const struct prog_desc *o = old_name_of(d);

				if (o && tp_exists(t, o->cat, o->name)) {
					vlog(t, "tracepoint %s:%s missing: %s:%s instead",
					     d->cat, d->name, o->cat, o->name);
					break;
				}
				if (d->feat)
					t->feat_missing |= d->feat;
				vlog(t, "tracepoint %s:%s missing", d->cat, d->name);
			}
			break;
		case PK_TP_OLD:
			t->use[i] = !tp_exists(t, d->cat, d->alt) && tp_exists(t, d->cat, d->name);
			break;
		case PK_FSAIO_TP:
			t->use[i] = fsaio_event_exists(t, vmlinux, d->name);
			if (t->use[i]) {
				t->fsaio_events_present = true;
			} else {
				t->feat_missing |= d->feat;
				fsaio_missing++;
			}
			break;
		case PK_FENTRY:
			if (t->opts.no_fentry) {
				snprintf(t->why_prog[i], sizeof(t->why_prog[i]), "disabled (--no-fentry)");
				if (!t->why_fentry[0])
					snprintf(t->why_fentry, sizeof(t->why_fentry), "disabled by option");
				t->feat_missing |= d->feat;
				break;
			}
			if (fentry_refused) {
				ret = -EPERM;
			} else {
				ret = probe_btf_attach(vmlinux, d->name,
						       d->fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY);
				if (ret == -EPERM || ret == -EOPNOTSUPP || ret == -524 /* ENOTSUPP */)
					fentry_refused = true;
			}
			if (!ret) {
				t->use[i] = true;
				t->feat |= FEAT_FENTRY;
			} else {
				snprintf(t->why_prog[i], sizeof(t->why_prog[i]), "%s", errname(ret));
				if (fentry_refused && !t->why_fentry[0])
					snprintf(t->why_fentry, sizeof(t->why_fentry), "%s", errname(ret));
				t->feat_missing |= d->feat;
			}
			vlog(t, "%s/%s: %s", d->fexit ? "fexit" : "fentry", d->name,
			     ret ? t->why_prog[i] : "loads and attaches");
			break;
		}
	}
	if (fentry_refused)
		vlog(t, "fentry/fexit refused by this kernel (%s): tracepoints only; "
		     "retry/wake/resume of io_uring buffered reads and libaio kernel "
		     "completions are not observed", t->why_fentry);
	if (t->fsaio_events_present && fsaio_missing)
		snprintf(t->why_fsaio, sizeof(t->why_fsaio),
			 "%d fsaio:* events missing (another patch series?)", fsaio_missing);
	vlog(t, "fsaio:* tracepoints: %s", !t->fsaio_events_present ? "not present (stock kernel)" :
	     fsaio_missing ? t->why_fsaio : "present");
	if (libaio_async_enabled())
		t->feat |= FEAT_LIBAIO_ASYNC;
	btf__free(vmlinux);
	return 0;
}

/* --------------------------- load and attach ---------------------------- */

static size_t ringbuf_size(size_t want)
{
	size_t sz = 4096;

	if (!want)
		want = DEFAULT_RINGBUF;
	while (sz < want && sz < (1ul << 30))
		sz <<= 1;
	return sz;
}

static int open_and_load(struct tracer *t, const char *comm, char *err, size_t errlen)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	size_t i;
	int ret;

	{
		LIBBPF_OPTS(bpf_object_open_opts, oo,
			    .btf_custom_path = getenv("FSAIO_BTF") ? kernel_btf_path() : NULL);

		t->skel = fsaio_bpf__open_opts(&oo);
	}
	if (!t->skel) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-ret));
		return ret;
	}
	obj = t->skel->obj;
	t->skel->rodata->trace_all = t->opts.all_tasks;
	if (comm)
		strncpy((char *)t->skel->rodata->targ_comm, comm,
			sizeof(t->skel->rodata->targ_comm) - 1);
	t->skel->rodata->aio_complete_rw_addr = ksyms_addr(t->ksyms, "aio_complete_rw");
	t->skel->rodata->wakeup_bytes = t->ringbuf_bytes / WAKEUP_FRACTION;
	t->skel->rodata->aggregate = t->opts.aggregate;
	t->skel->rodata->fold = t->opts.fold && !t->opts.aggregate;
	t->skel->rodata->uring_complete_cqe = t->skel_uring_complete_cqe;
	ret = bpf_map__set_max_entries(t->skel->maps.events, t->ringbuf_bytes);
	if (ret) {
		snprintf(err, errlen, "cannot size the ring buffer to %zu bytes: %s",
			 t->ringbuf_bytes, strerror(-ret));
		return ret;
	}
	for (i = 0; i < NR_PROGS; i++) {
		prog = bpf_object__find_program_by_name(obj, progs[i].prog);
		if (!prog) {
			snprintf(err, errlen, "BPF object lacks program %s (stale build?)",
				 progs[i].prog);
			return -ENOENT;
		}
		/* fsaio trace: io_uring_enter's calls and time are not worth a
		 * syscall tracepoint program on every call (enrich_sleep()) */
		if (t->opts.aggregate && (!strcmp(progs[i].prog, "fsaio_io_uring_enter_enter") ||
					  !strcmp(progs[i].prog, "fsaio_io_uring_enter_exit")))
			t->use[i] = false;
		bpf_program__set_autoload(prog, t->use[i]);
		/* the programs that fill the armed map */
		if (t->use[i] && (!strcmp(progs[i].prog, "fsaio_fexit_get_pages") ||
				  !strcmp(progs[i].prog, "fsaio_fentry_async_buf")))
			t->skel->rodata->armed_tier = true;
	}
	ret = fsaio_bpf__load(t->skel);
	if (ret)
		snprintf(err, errlen, "loading the BPF programs failed: %s "
			 "(run with -v for the verifier log)", strerror(-ret));
	return ret;
}

/* Did every fsaio:* program attach? */
static bool fsaio_all_attached(const struct tracer *t)
{
	size_t i;
	bool any = false;

	for (i = 0; i < NR_PROGS; i++) {
		if (progs[i].kind != PK_FSAIO_TP)
			continue;
		if (!t->attached[i])
			return false;
		any = true;
	}
	return any;
}

static int attach_all(struct tracer *t, char *err, size_t errlen)
{
	struct bpf_program *prog;
	struct bpf_link *link;
	bool fsaio_checked = false, fsaio_on = false;
	size_t i;
	int ret;

	for (i = 0; i < NR_PROGS; i++) {
		const struct prog_desc *d = &progs[i];

		if (d->kind == PK_FENTRY && !fsaio_checked) {
			/* every fsaio:* program is attached (they come first):
			 * libaio retries/completions come from them from now on */
			fsaio_checked = true;
			fsaio_on = fsaio_all_attached(t);
			if (fsaio_on)
				t->skel->bss->fsaio_tp_on = 1;
		}
		if (!t->use[i])
			continue;
		if (fsaio_on && !strcmp(d->prog, "fsaio_fentry_aio_complete")) {
			/* fsaio_complete reports libaio completions: a second
			 * COMPLETE per request would read as a double completion */
			t->use[i] = false;
			snprintf(t->why_prog[i], sizeof(t->why_prog[i]),
				 "not attached: fsaio_complete reports libaio completions");
			continue;
		}
		prog = bpf_object__find_program_by_name(t->skel->obj, d->prog);
		link = bpf_program__attach(prog);
		if (!link) {
			ret = -errno;
			/* out of descriptors or memory is this process's limit,
			 * not a feature the kernel lacks: a trace missing
			 * programs for it would look complete */
			if (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM) {
				snprintf(err, errlen, "cannot attach %s: %s (raise ulimit -n or free"
					 " memory)", d->prog, strerror(-ret));
				return ret;
			}
			if (d->kind == PK_REQUIRED || d->kind == PK_SWITCH_BTF ||
			    d->kind == PK_SWITCH_RAW) {
				snprintf(err, errlen, "cannot attach %s: %s", d->prog,
					 strerror(-ret));
				return ret;
			}
			vlog(t, "attaching %s failed: %s; feature off", d->prog, strerror(-ret));
			if (d->kind == PK_FSAIO_TP && !t->why_fsaio[0])
				snprintf(t->why_fsaio, sizeof(t->why_fsaio),
					 "attaching raw_tp/%s: %s", d->name, errname(ret));
			if (d->kind == PK_FENTRY)
				snprintf(t->why_prog[i], sizeof(t->why_prog[i]),
					 "attach: %s", errname(ret));
			t->feat_missing |= d->feat;
			continue;
		}
		if (t->nr_links == MAX_LINKS) {
			bpf_link__destroy(link);
			snprintf(err, errlen, "too many BPF links");
			return -E2BIG;
		}
		t->links[t->nr_links++] = link;
		t->attached[i] = true;
	}
	/* a feature is on when every program contributing to it attached */
	for (i = 0; i < NR_PROGS; i++)
		if (t->attached[i] && progs[i].feat)
			t->feat |= progs[i].feat;
	t->feat &= ~t->feat_missing;
	/* the fentry/fexit bits describe what attached; FEAT_FENTRY "loads" */
	return 0;
}

static int on_sample(void *ctx, void *data, size_t size);

int tracer_open(struct tracer **out, const struct tracer_opts *opts,
		char *err, size_t errlen)
{
	struct tracer *t;
	int ret;
	size_t i;

	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (geteuid() != 0) {
		snprintf(err, errlen, "tracing needs root (CAP_BPF+CAP_PERFMON)");
		return -EPERM;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->opts = *opts;
	t->opts.comm = NULL;	/* copied into rodata at load, not kept */
	t->ringbuf_bytes = ringbuf_size(opts->ringbuf_bytes);
	t->ncpus = libbpf_num_possible_cpus();
	t->next_seq = 1;
	libbpf_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);
	/* libbpf 1.x: no RLIMIT_MEMLOCK bump where memcg accounts BPF memory;
	 * if it tries and fails, it only warns. */
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);

	t->ksyms = ksyms_load(t->why_ksyms, sizeof(t->why_ksyms));
	if (!t->ksyms)
		vlog(t, "kernel symbols unavailable (%s): sleep sites stay UNKNOWN", t->why_ksyms);

	ret = probe_features(t, err, errlen);
	if (ret)
		goto cleanup;
	ret = open_and_load(t, opts->comm, err, errlen);
	if (ret && (t->feat & FEAT_FENTRY)) {
		/* a probe-approved fentry program failed verification: go on
		 * with tracepoints alone */
		vlog(t, "load with fentry/fexit programs failed (%s); retrying without", err);
		fsaio_bpf__destroy(t->skel);
		t->skel = NULL;
		for (i = 0; i < NR_PROGS; i++) {
			if (progs[i].kind != PK_FENTRY || !t->use[i])
				continue;
			t->use[i] = false;
			snprintf(t->why_prog[i], sizeof(t->why_prog[i]), "verifier rejected");
			t->feat_missing |= progs[i].feat;
		}
		t->feat &= ~FEAT_FENTRY;
		t->fentry_load_fell_back = true;
		snprintf(t->why_fentry, sizeof(t->why_fentry), "our programs fail verification");
		err[0] = 0;
		ret = open_and_load(t, opts->comm, err, errlen);
	}
	if (ret)
		goto cleanup;
	ret = attach_all(t, err, errlen);
	if (ret)
		goto cleanup;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_sample, t, NULL);
	if (!t->rb) {
		ret = -errno;
		snprintf(err, errlen, "cannot open the ring buffer: %s", strerror(-ret));
		goto cleanup;
	}
	*out = t;
	return 0;

cleanup:
	tracer_close(t);
	return ret < 0 ? ret : -EINVAL;
}

const struct ksyms *tracer_ksyms(const struct tracer *t)
{
	return t ? t->ksyms : NULL;
}

uint32_t tracer_features(const struct tracer *t)
{
	return t ? t->feat : 0;
}

static const char *prog_why(const struct tracer *t, const char *prog)
{
	size_t i;

	for (i = 0; i < NR_PROGS; i++)
		if (!strcmp(progs[i].prog, prog))
			return t->why_prog[i][0] ? t->why_prog[i] :
			       t->why_fentry[0] ? t->why_fentry : "not loaded";
	return "?";
}

/* Why a feature is off, as far as the probes and attaches know. */
static const char *feature_why(const struct tracer *t, uint32_t feat)
{
	size_t i;

	switch (feat) {
	case FEAT_TP_BTF:
		return t->why_tp_btf;
	case FEAT_FENTRY:
		return t->why_fentry[0] ? t->why_fentry : "not probed";
	case FEAT_FSAIO_TP:
		return t->fsaio_events_present ? (t->why_fsaio[0] ? t->why_fsaio :
			"present but not attached") : "not present";
	case FEAT_LIBAIO_ASYNC:
		return "/proc/sys/fs/aio-buffered-async absent or 0";
	}
	for (i = 0; i < NR_PROGS; i++)
		if (progs[i].feat == feat && t->use[i] + t->attached[i] != 2 &&
		    progs[i].kind == PK_FENTRY)
			return prog_why(t, progs[i].prog);
	for (i = 0; i < NR_PROGS; i++)
		if (progs[i].feat == feat && !t->attached[i])
			return progs[i].kind == PK_TP ? "tracepoint missing" : "not attached";
	return "";
}

void tracer_print_features(const struct tracer *t, FILE *f)
{
	unsigned i;

	for (i = 0; i < nr_features; i++) {
		const struct feature_desc *d = &feature_table[i];
		const char *why;

		if (t->feat & d->bit) {
			fprintf(f, "%-26s yes  %s", d->json, d->gives);
			if (d->bit == FEAT_STACK && !t->ksyms)
				fprintf(f, "; but /proc/kallsyms unreadable: wait sites UNKNOWN");
			if (d->bit == FEAT_RINGBUF)
				fprintf(f, " (%zu MiB)", t->ringbuf_bytes >> 20);
			fputc('\n', f);
			continue;
		}
		why = feature_why(t, d->bit);
		fprintf(f, "%-26s no   %s%s%s%s; %s\n", d->json, d->gives,
			why[0] ? " (" : "", why, why[0] ? ")" : "", d->costs);
	}
}

int tracer_track_pid(struct tracer *t, pid_t tgid)
{
	__u32 key = tgid;
	__u8 one = 1;

	if (!t || !t->skel)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.tracked_tgids), &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

uint64_t tracer_drops(struct tracer *t, uint64_t drops[FSAIO_DROP__COUNT])
{
	uint64_t sum = 0;
	__u64 *vals;
	__u32 cause;
	int i;

	for (cause = 0; cause < FSAIO_DROP__COUNT; cause++)
		drops[cause] = 0;
	if (!t || !t->skel || t->ncpus <= 0)
		return 0;
	vals = calloc(t->ncpus, sizeof(*vals));
	if (!vals)
		return 0;
	for (cause = 0; cause < FSAIO_DROP__COUNT; cause++) {
		if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.lost), &cause, vals))
			continue;
		for (i = 0; i < t->ncpus; i++)
			drops[cause] += vals[i];
		sum += drops[cause];
	}
	free(vals);
	return sum;
}

_Static_assert(sizeof(struct fsaio_agg) % sizeof(__u64) == 0, "fsaio_agg: __u64 counters only");
_Static_assert(sizeof(struct fsaio_fold_counts) % sizeof(__u64) == 0,
	       "fsaio_fold_counts: __u64 counters only");

/* Sum a per-CPU array map's only value over the CPUs into out: a struct
 * of __u64 counters (fsaio_agg, fsaio_fold_counts), size a multiple of 8
 * (so each CPU's copy is exactly size bytes). */
static int read_percpu_sum(struct tracer *t, struct bpf_map *map, void *out, size_t size)
{
	size_t words = size / sizeof(__u64), w;
	__u64 *vals, *sum = out;
	__u32 zero = 0;
	int i;

	memset(out, 0, size);
	if (!t || !t->skel || t->ncpus <= 0 || size % sizeof(__u64))
		return -EINVAL;
	vals = calloc(t->ncpus, size);
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, vals)) {
		int err = -errno;

		free(vals);
		return err;
	}
	for (i = 0; i < t->ncpus; i++)
		for (w = 0; w < words; w++)
			sum[w] += vals[i * words + w];
	free(vals);
	return 0;
}

int tracer_read_agg(struct tracer *t, struct fsaio_agg *out)
{
	return read_percpu_sum(t, t && t->skel ? t->skel->maps.agg : NULL, out, sizeof(*out));
}

int tracer_read_fold(struct tracer *t, struct fsaio_fold_counts *out)
{
	return read_percpu_sum(t, t && t->skel ? t->skel->maps.fold_counts : NULL, out,
			       sizeof(*out));
}

static int fold_pending_cmp(const void *a, const void *b)
{
	const struct fsaio_fold_req *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

int tracer_fold_flush(struct tracer *t, tracer_record_fn fn, void *ctx)
{
	struct fsaio_fold_req *slots, *pend;
	size_t np = 0, i;

	if (!t || !t->skel)
		return -EINVAL;
	if (!t->opts.fold || t->opts.aggregate)
		return 0;
	if (!t->skel->bss)
		return -ENOTSUP;	/* .bss not mmapped: folding was off */
	slots = t->skel->bss->fold_slots;
	pend = calloc(FSAIO_FOLD_SLOTS, sizeof(*pend));
	if (!pend)
		return -ENOMEM;
	/* the pending ones in submit order, then every slot forgotten */
	for (i = 0; i < FSAIO_FOLD_SLOTS; i++)
		if (FSAIO_FOLD_ST(slots[i].state) == FSAIO_FOLD_PENDING)
			pend[np++] = slots[i];
	memset(slots, 0, FSAIO_FOLD_SLOTS * sizeof(*slots));
	if (np)
		qsort(pend, np, sizeof(*pend), fold_pending_cmp);
	for (i = 0; i < np; i++) {
		struct fsaio_record r = { .version = FSAIO_RECORD_VERSION };

		fsaio_fold_submit_record(&r, &pend[i]);
		fn(&r, ctx);
	}
	free(pend);
	return np;
}

uint64_t tracer_lost(struct tracer *t)
{
	uint64_t drops[FSAIO_DROP__COUNT];

	return tracer_drops(t, drops);
}

/* ------------------------------ delivery -------------------------------- */

/* Symbolize a SLEEP stack and classify its wait site. */
static void enrich_sleep(const struct tracer *t, struct fsaio_record *rec)
{
	const char *names[FSAIO_STACK_DEPTH];
	int n = wait_stack_names(rec, ksyms_symbolize, t->ksyms, names);

	rec->site = classify_wait_site(names, n);
	/* aggregating, io_uring_enter has no syscall tracepoints attached
	 * (they put every syscall of every task on the slow path): the stack
	 * says whether the sleep is inside its submit */
	if (t->opts.aggregate && rec->ctx == FSAIO_CTX_OTHER && stack_in_uring_submit(names, n)) {
		rec->ctx = FSAIO_CTX_SUBMIT_IO_URING;
		rec->engine = FSAIO_ENGINE_IO_URING;
	}
}

static int pend_grow(struct tracer *t)
{
	size_t cap;
	void *p;

	if (t->pend_head) {
		memmove(t->pend, t->pend + t->pend_head,
			(t->pend_nr - t->pend_head) * sizeof(*t->pend));
		t->pend_nr -= t->pend_head;
		t->pend_head = 0;
		if (t->pend_nr < t->pend_cap)
			return 0;
	}
	cap = t->pend_cap ? t->pend_cap * 2 : 4096;
	p = realloc(t->pend, cap * sizeof(*t->pend));
	if (!p)
		return -ENOMEM;
	t->pend = p;
	t->pend_cap = cap;
	return 0;
}

static int on_sample(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;
	struct fsaio_record rec;
	char err[160];
	size_t i;

	if (fsaio_decode(data, size, &rec, err, sizeof(err))) {
		if (!t->bad_records++)
			fprintf(stderr, "fsaio: undecodable ring buffer record: %s\n", err);
		return 0;
	}
	if (t->pend_nr == t->pend_cap && pend_grow(t)) {
		t->oom = 1;
		return -ENOMEM;
	}
	/* insertion from the tail: records arrive almost in order */
	i = t->pend_nr;
	while (i > t->pend_head && t->pend[i - 1].seq > rec.seq) {
		t->pend[i] = t->pend[i - 1];
		i--;
	}
	t->pend[i] = rec;
	t->pend_nr++;
	return 0;
}

static int deliver(struct tracer *t, tracer_record_fn fn, void *ctx)
{
	int n = 0;

	while (t->pend_head < t->pend_nr) {
		struct fsaio_record *rec = &t->pend[t->pend_head];

		if (rec->seq > t->next_seq) {
			uint64_t now = now_ns();

			/* a lower seq is still being written on another CPU */
			if (!t->gap_since)
				t->gap_since = now;
			if (now - t->gap_since < REORDER_WAIT_NS)
				break;
			if (t->opts.verbose)
				fprintf(stderr, "fsaio: records %llu..%llu never arrived\n",
					(unsigned long long)t->next_seq,
					(unsigned long long)rec->seq - 1);
			t->next_seq = rec->seq;
		}
		t->gap_since = 0;
		if (rec->seq == t->next_seq)
			t->next_seq++;
		if (rec->type == FSAIO_EV_SLEEP)
			enrich_sleep(t, rec);
		fn(rec, ctx);
		t->pend_head++;
		n++;
	}
	if (t->pend_head == t->pend_nr)
		t->pend_head = t->pend_nr = 0;
	return n;
}

int tracer_poll(struct tracer *t, int timeout_ms, tracer_record_fn fn, void *ctx)
{
	int ret, n;

	if (!t || !t->rb)
		return -EINVAL;
	ret = ring_buffer__poll(t->rb, timeout_ms);
	/* records below the wakeup threshold raise no epoll event */
	if (ret >= 0 || ret == -EINTR) {
		int c = ring_buffer__consume(t->rb);

		if (c < 0 && ret >= 0)
			ret = c;
	}
	if (t->oom)
		return -ENOMEM;
	n = deliver(t, fn, ctx);
	if (t->pend_head < t->pend_nr) {
		/* waiting for a record still being committed: pick it up now */
		ring_buffer__consume(t->rb);
		n += deliver(t, fn, ctx);
	}
	if (ret < 0 && !n)
		return ret;
	return n;
}

void tracer_close(struct tracer *t)
{
	int i;

	if (!t)
		return;
	ring_buffer__free(t->rb);
	for (i = 0; i < t->nr_links; i++)
		bpf_link__destroy(t->links[i]);
	fsaio_bpf__destroy(t->skel);
	ksyms_free(t->ksyms);
	free(t->pend);
	free(t);
}
