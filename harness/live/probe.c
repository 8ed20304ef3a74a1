// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel lets the tracer do: tracefs events, BTF
 * prototypes, which optional programs can load and attach (probe_features),
 * and why a feature is off (tracer_print_features, fsaio features and -v).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "core/features.h"
#include "live/tracer_int.h"


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
const struct prog_desc *old_name_of(const struct prog_desc *d)
{
	size_t i;

	for (i = 0; i < NR_PROGS; i++)
		if (progs[i].kind == PK_TP_OLD && !strcmp(progs[i].alt, d->name))
			return &progs[i];
	return NULL;
}

/* The raw_tp twin of a classic tracepoint program is in use */
bool raw_twin_used(const struct tracer *t, const char *name, size_t upto)
{
	size_t i;

	for (i = 0; i < upto; i++)
		if (progs[i].kind == PK_RAW_TP && t->use[i] && !strcmp(progs[i].name, name))
			return true;
	return false;
}

const char *errname(int err)
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

/* The patched kernel's switch: 0 off, 1 requests that ask for it
 * (IOCB_FLAG_BUFFERED_ASYNC), 2 every one; absent (stock) reads as off. */
static int libaio_async_mode(void)
{
	char c = '0';
	FILE *f = fopen("/proc/sys/fs/aio-buffered-async", "r");

	if (f) {
		if (fread(&c, 1, 1, f) != 1)
			c = '0';
		fclose(f);
	}
	return c >= '0' && c <= '2' ? c - '0' : 0;
}

/* FSAIO_BTF names the kernel's BTF when it is not in sysfs (as bpftool's
 * --btf); the tests also use it to play a kernel without BTF. */
const char *kernel_btf_path(void)
{
	const char *p = getenv("FSAIO_BTF");

	return p && *p ? p : "/sys/kernel/btf/vmlinux";
}

int probe_features(struct tracer *t, char *err, size_t errlen)
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
		tracer_vlog(t, "tracefs not found and cannot be mounted: tracepoint programs disabled");

	ret = probe_btf_attach(vmlinux, "sched_switch", BPF_TRACE_RAW_TP);
	if (!ret)
		t->feat |= FEAT_TP_BTF;
	else
		snprintf(t->why_tp_btf, sizeof(t->why_tp_btf), "%s", errname(ret));
	tracer_vlog(t, "tp_btf/sched_switch: %s", ret ? t->why_tp_btf : "loads");

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
			tracer_vlog(t, "raw_tp/%s: %s", d->name, t->use[i] ? "prototype known, used" :
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
					tracer_vlog(t, "tracepoint %s:%s missing: %s:%s instead",
					     d->cat, d->name, o->cat, o->name);
					break;
				}
				if (d->feat)
					t->feat_missing |= d->feat;
				tracer_vlog(t, "tracepoint %s:%s missing", d->cat, d->name);
			}
			break;
		case PK_TP_OLD:
			t->use[i] = !tp_exists(t, d->cat, d->alt) && tp_exists(t, d->cat, d->name);
			break;
		case PK_FSAIO_TP:
			t->use[i] = fsaio_event_exists(t, vmlinux, d->name);
			if (t->use[i]) {
				t->fsaio_events_present = true;
			} else if (!d->feat) {
				tracer_vlog(t, "fsaio:%s missing (an older series): optional",
					    d->name);
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
			tracer_vlog(t, "%s/%s: %s", d->fexit ? "fexit" : "fentry", d->name,
			     ret ? t->why_prog[i] : "loads and attaches");
			break;
		}
	}
	if (fentry_refused)
		tracer_vlog(t, "fentry/fexit refused by this kernel (%s): tracepoints only; "
		     "retry/wake/resume of io_uring buffered reads and libaio kernel "
		     "completions are not observed", t->why_fentry);
	if (t->fsaio_events_present && fsaio_missing)
		snprintf(t->why_fsaio, sizeof(t->why_fsaio),
			 "%d fsaio:* events missing (another patch series?)", fsaio_missing);
	tracer_vlog(t, "fsaio:* tracepoints: %s", !t->fsaio_events_present ? "not present (stock kernel)" :
	     fsaio_missing ? t->why_fsaio : "present");
	switch (libaio_async_mode()) {
	case 1:
		t->feat |= FEAT_LIBAIO_ASYNC | FEAT_LIBAIO_OPT_IN;
		break;
	case 2:
		t->feat |= FEAT_LIBAIO_ASYNC;
		break;
	}
	btf__free(vmlinux);
	return 0;
}

/* --------------------------- load and attach ---------------------------- */


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
	case FEAT_LIBAIO_OPT_IN:
		return "/proc/sys/fs/aio-buffered-async is not 1";
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
