// SPDX-License-Identifier: GPL-2.0
/*
 * The live tracer: open the skeleton, choose programs
 * (bpf_program__set_autoload) from what live/probe.c found the kernel
 * allows, load, attach one by one, and deliver ring buffer records in
 * sequence order, decoded and with SLEEP stacks classified by wait site.
 * With probe.c, the only code that knows libbpf.
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
#include "bpf/fsaio_fold_aio.h"	/* ... and fold_aio_slots */
#include "bpf/fsaio_sleeps.h"
#include "fsaio.skel.h"
#include "core/decode.h"
#include "core/features.h"
#include "core/waitsite.h"
#include "live/ksyms.h"
#include "live/tracer.h"

#define DEFAULT_RINGBUF		(8u << 20)
/* The ring grows (ring_grow) up to this many times its first size by
 * default, and never past MAX_RINGBUF. */
#define DEFAULT_GROWTH		8
#define MAX_RINGBUF		(1ul << 30)
/* ... when more than 1/GROW_FRACTION of it waits to be read: the consumer
 * fell behind by half a ring, one more such burst would lose records. */
#define GROW_FRACTION		2
/* BPF wakes the consumer when 1/WAKEUP_FRACTION of the ring buffer is
 * filled; below that, records wait for the poll timeout (see rec_submit). */
#define WAKEUP_FRACTION		16
/* How long a record waits for a lower sequence number still being written
 * by another CPU (reserve order and sequence order may differ). */
#define REORDER_WAIT_NS		(20 * 1000 * 1000ull)
/* ... and how long for numbers a fold promote took before writing their
 * records, while its CPU says so (fold_unsent, bpf/maps.bpf.h): a task
 * preempted, or a vCPU descheduled, inside a BPF program may take that
 * long, and skipping the numbers would feed the checker out of order. */
#define UNSENT_WAIT_NS		(5000 * 1000 * 1000ull)

/* deliver() reads the rings again every READ_EVERY records it hands on.
 * Records read wait in pend to be handed on in seq order; when PEND_MAX
 * (~1 GiB) wait, the checker is slower than the workload makes them:
 * reading stops, and records wait in the ring or are lost, counted. */
#define READ_EVERY		1024
#define PEND_MAX		(4u << 20)

#include "live/tracer_int.h"

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!libbpf_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void tracer_vlog(const struct tracer *t, const char *fmt, ...)
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

static size_t ringbuf_size(size_t want)
{
	size_t sz = 4096;

	if (!want)
		want = DEFAULT_RINGBUF;
	while (sz < want && sz < MAX_RINGBUF)
		sz <<= 1;
	return sz;
}

static int on_sample(void *ctx, void *data, size_t size);

/* The thresholds BPF compares the ring's waiting data against (maps.bpf.h). */
static void ring_thresholds(struct tracer *t)
{
	t->skel->bss->wakeup_bytes = t->ringbuf_bytes / WAKEUP_FRACTION;
	t->skel->bss->grow_bytes = t->ringbuf_bytes < t->ringbuf_max ?
		t->ringbuf_bytes / GROW_FRACTION : 0;
	t->skel->bss->ring_pressure = 0;
}

/* Send records to ring fd from now on (event_rings slot 0). */
static int ring_install(struct tracer *t, int fd)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.event_rings), &zero, &fd, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * BPF asked for a larger ring (ring_pressure): records arrive faster than
 * the consumer reads them.  Put a ring twice the size in event_rings; the
 * old ring stays in the consumer's set until the tracer closes, so what it
 * still holds, and records reserved in it just before the switch, arrive
 * (seq puts them in order).  A ring that cannot be made just ends growth:
 * records then go on to the current one, and a full ring still counts as
 * lost.
 */
static void ring_grow(struct tracer *t)
{
	size_t sz = t->ringbuf_bytes * 2;
	int fd, ret;

	if (!t->skel->bss->ring_pressure)
		return;
	if (t->ringbuf_bytes >= t->ringbuf_max || t->nr_rings == MAX_RINGS) {
		t->skel->bss->grow_bytes = 0;
		t->skel->bss->ring_pressure = 0;
		return;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "fsaio_events", 0, 0, sz, NULL);
	ret = fd < 0 ? -errno : ring_buffer__add(t->rb, fd, on_sample, t);
	if (!ret)
		ret = ring_install(t, fd);
	if (ret) {
		tracer_vlog(t, "cannot grow the ring buffer to %zu MiB: %s; it stays %zu MiB",
			    sz >> 20, strerror(-ret), t->ringbuf_bytes >> 20);
		if (fd >= 0)
			t->ring_fds[t->nr_rings++] = fd;	/* may be in the epoll set */
		t->ringbuf_max = t->ringbuf_bytes;
		t->skel->bss->grow_bytes = 0;
		t->skel->bss->ring_pressure = 0;
		return;
	}
	t->ring_fds[t->nr_rings++] = fd;
	t->ringbuf_bytes = sz;
	t->ring_grows++;
	tracer_vlog(t, "records arrive faster than they are read: ring buffer grown to %zu MiB",
		    sz >> 20);
	ring_thresholds(t);
}

size_t tracer_ringbuf_bytes(const struct tracer *t, unsigned int *grows)
{
	if (grows)
		*grows = t ? t->ring_grows : 0;
	return t ? t->ringbuf_bytes : 0;
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
	t->skel->rodata->aggregate = t->opts.aggregate;
	t->skel->rodata->fold = t->opts.fold && !t->opts.aggregate;
	t->skel->rodata->uring_complete_cqe = t->skel_uring_complete_cqe;
	ret = bpf_map__set_max_entries(t->skel->maps.events, t->ringbuf_bytes);
	if (ret) {
		snprintf(err, errlen, "cannot size the ring buffer to %zu bytes: %s",
			 t->ringbuf_bytes, strerror(-ret));
		return ret;
	}
	/* sleeps are counted in the kernel only under fold: no table else */
	if (!t->skel->rodata->fold)
		bpf_map__set_max_entries(t->skel->maps.sleep_aggs, 1);
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
	if (ret) {
		snprintf(err, errlen, "loading the BPF programs failed: %s "
			 "(run with -v for the verifier log)", strerror(-ret));
		return ret;
	}
	ring_thresholds(t);
	ret = ring_install(t, bpf_map__fd(t->skel->maps.events));
	if (ret)
		snprintf(err, errlen, "cannot install the ring buffer: %s", strerror(-ret));
	return ret;
}

/* Did every fsaio:* program attach? */
static bool fsaio_all_attached(const struct tracer *t)
{
	size_t i;
	bool any = false;

	for (i = 0; i < NR_PROGS; i++) {
		if (progs[i].kind != PK_FSAIO_TP || (!progs[i].feat && !t->use[i]))
			continue;
		if (!t->attached[i])
			return false;
		any = true;
	}
	return any;
}

/*
 * Whether libaio lifecycles fold (bpf/fsaio_fold_aio.h, maps.bpf.h
 * fold_aio), and whether a folded one must have the kernel's COMPLETE
 * before its REAP, as the checker then expects
 * (checker_config.see_libaio_kernel_complete).  Not where fentry
 * aio_complete_rw alone reports that COMPLETE: it may run in another
 * process's interrupt, without the submitter's tgid the table is keyed by.
 */
static __u32 fold_aio_mode(const struct tracer *t)
{
	if (!t->opts.fold || t->opts.aggregate)
		return 0;
	if (t->feat & FEAT_FSAIO_TP)
		return FOLD_AIO_KCOMPLETE;
	if (t->feat & FEAT_FENTRY_AIO_COMPLETE)
		return 0;
	return FOLD_AIO_BARE;
}

static void pairs_baseline(struct tracer *t);

/* A pair's second attached without its first would send every event
 * unmarked, beside whatever else reports it: it goes.  (A first alone is
 * the hook as it was before pairs: its misses count as lost.) */
static void detach_lone_seconds(struct tracer *t)
{
	size_t i, j;
	int k;

	for (i = 0; i < NR_PROGS; i++) {
		if (!progs[i].pair || t->attached[i])
			continue;
		for (j = 0; j < NR_PROGS; j++) {
			if (progs[j].second_of != progs[i].pair || !t->attached[j])
				continue;
			for (k = 0; k < t->nr_links; k++)
				if (t->links[k] == t->link[j])
					t->links[k] = t->links[--t->nr_links];
			bpf_link__destroy(t->link[j]);
			t->link[j] = NULL;
			t->attached[j] = false;
			tracer_vlog(t, "%s detached: %s is not attached", progs[j].prog,
				    progs[i].prog);
		}
	}
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
			if (fsaio_on) {
				t->skel->bss->fsaio_tp_on = 1;
				t->skel->bss->libaio_opt_in = !!(t->feat & FEAT_LIBAIO_OPT_IN);
			}
		}
		if (!t->use[i])
			continue;
		if (fsaio_on && !strncmp(d->prog, "fsaio_fentry_aio_complete",
					 strlen("fsaio_fentry_aio_complete"))) {
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
			tracer_vlog(t, "attaching %s failed: %s; feature off", d->prog, strerror(-ret));
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
		t->link[i] = link;
		t->attached[i] = true;
	}
	detach_lone_seconds(t);
	pairs_baseline(t);
	/* a feature is on when every program contributing to it attached */
	for (i = 0; i < NR_PROGS; i++)
		if (t->attached[i] && progs[i].feat)
			t->feat |= progs[i].feat;
	t->feat &= ~t->feat_missing;
	/* the fentry/fexit bits describe what attached; FEAT_FENTRY "loads" */
	t->skel->bss->fold_aio = fold_aio_mode(t);
	return 0;
}

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
	t->ringbuf_max = opts->ringbuf_max_bytes ? ringbuf_size(opts->ringbuf_max_bytes) :
		ringbuf_size(t->ringbuf_bytes * DEFAULT_GROWTH);
	if (t->ringbuf_max < t->ringbuf_bytes)
		t->ringbuf_max = t->ringbuf_bytes;
	t->ncpus = libbpf_num_possible_cpus();
	t->next_seq = 1;
	libbpf_verbose = opts->verbose;
	libbpf_set_print(libbpf_print);
	/* libbpf 1.x: no RLIMIT_MEMLOCK bump where memcg accounts BPF memory;
	 * if it tries and fails, it only warns. */
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);

	t->ksyms = ksyms_load(t->why_ksyms, sizeof(t->why_ksyms));
	if (!t->ksyms)
		tracer_vlog(t, "kernel symbols unavailable (%s): sleep sites stay UNKNOWN", t->why_ksyms);

	ret = probe_features(t, err, errlen);
	if (ret)
		goto cleanup;
	ret = open_and_load(t, opts->comm, err, errlen);
	if (ret && (t->feat & FEAT_FENTRY)) {
		/* a probe-approved fentry program failed verification: go on
		 * with tracepoints alone */
		fprintf(stderr, "fsaio: the kernel's verifier rejected fsaio's fentry/fexit programs:"
			" tracing with tracepoints only (-v shows why)\n");
		tracer_vlog(t, "load with fentry/fexit programs failed (%s); retrying without", err);
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

/* The kernel's count of skipped runs of progs[i] (0 if not attached) */
static uint64_t recursion_misses(struct tracer *t, size_t i)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(t->skel->obj, progs[i].prog);
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (!t->attached[i] || !prog ||
	    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * Runs of the attached programs the kernel skipped: a program is not run
 * on a CPU where it is active (an interrupt that completes an aio request
 * while aio_complete_rw's program runs, say), and the event it would have
 * sent is lost, unless the hook's second program (*_nested) sent it
 * (bpf/fsaio_nest.h).  A second program's own misses lose nothing: the
 * first ran for those events.  Per pair, what the first missed beyond
 * what the second caught is lost; what the second caught beyond what the
 * first missed went twice (*twice).  Both add up from one read to the
 * next, so the totals only grow, as a session's baseline needs.
 */
static uint64_t prog_misses(struct tracer *t, uint64_t *twice)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < NR_PROGS; i++) {
		uint64_t missed = recursion_misses(t, i), caught, dm, dc;
		int h = progs[i].pair - 1;

		if (missed)
			tracer_vlog(t, "the kernel skipped %llu runs of %s (recursion)",
				    (unsigned long long)missed, progs[i].prog);
		if (h < 0) {
			if (!progs[i].second_of)
				sum += missed;
			continue;
		}
		caught = t->skel->bss->nest_caught[h];
		dm = missed - t->pair_missed[h];
		dc = caught - t->pair_caught[h];
		t->pair_missed[h] = missed;
		t->pair_caught[h] = caught;
		if (dm > dc)
			t->pair_lost += dm - dc;
		else if (dc > dm && !t->pair_twice)
			fprintf(stderr, "fsaio: %s's second program sent %llu events the kernel"
				" ran the first for: the checks are inconclusive\n", progs[i].prog,
				(unsigned long long)(dc - dm));
		if (dc > dm)
			t->pair_twice += dc - dm;
	}
	*twice = t->pair_twice;
	return sum + t->pair_lost;
}

/* Where prog_misses() counts from: after both programs of each pair are
 * attached (an fentry second goes on first and may catch alone meanwhile) */
static void pairs_baseline(struct tracer *t)
{
	size_t i;

	for (i = 0; i < NR_PROGS; i++) {
		int h = progs[i].pair - 1;

		if (h < 0)
			continue;
		t->pair_missed[h] = recursion_misses(t, i);
		t->pair_caught[h] = t->skel->bss->nest_caught[h];
	}
}

uint64_t tracer_drops(struct tracer *t, uint64_t drops[FSAIO_DROP__COUNT])
{
	uint64_t sum = 0, misses, twice;
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
	misses = prog_misses(t, &twice);
	drops[FSAIO_DROP_PROG_MISSED] += misses;
	drops[FSAIO_DROP_PAIR_TWICE] += twice;
	return sum + misses + twice;
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

static int fold_aio_pending_cmp(const void *a, const void *b)
{
	const struct fsaio_fold_aio *x = a, *y = b;

	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/*
 * Take a fold slot from the BPF side for the drain: *copy the slot as it
 * was, then its state word swapped to FREE with a new generation.  A
 * promote or a take still running on some CPU (a traced task that outlives
 * the run) then fails its own swap instead of succeeding on a slot the
 * drain has sent, as it could if the drain zeroed the word (generation 0
 * again).  A word that keeps changing is given up after a while (the slot
 * is left to the BPF side).
 */
#define DRAIN_SLOT(slot, copy) do {						\
	int try_;								\
										\
	for (try_ = 0; try_ < 1000; try_++) {					\
		__u64 w_ = __atomic_load_n(&(slot)->state, __ATOMIC_ACQUIRE);	\
										\
		*(copy) = *(slot);						\
		if ((copy)->state == w_ &&					\
		    __atomic_compare_exchange_n(&(slot)->state, &w_,		\
				FSAIO_FOLD_NEW_WORD(w_, FSAIO_FOLD_FREE), false,	\
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))		\
			break;							\
		(copy)->state = FSAIO_FOLD_FREE;				\
	}									\
} while (0)

/* The libaio requests kept in flight: their SUBMIT (their batch was
 * accepted in full: the syscall has returned) and a folded kernel
 * COMPLETE, in submit order; every slot taken back (DRAIN_SLOT). */
static int fold_aio_flush(struct tracer *t, tracer_record_fn fn, void *ctx)
{
	struct fsaio_fold_aio *slots = t->skel->bss->fold_aio_slots, *pend;
	size_t np = 0, i;

	pend = calloc(FSAIO_FOLD_AIO_SLOTS, sizeof(*pend));
	if (!pend)
		return -ENOMEM;
	for (i = 0; i < FSAIO_FOLD_AIO_SLOTS; i++) {
		DRAIN_SLOT(&slots[i], &pend[np]);
		if (fsaio_fold_aio_kept(FSAIO_FOLD_ST(pend[np].state)))
			np++;
	}
	if (np)
		qsort(pend, np, sizeof(*pend), fold_aio_pending_cmp);
	for (i = 0; i < np; i++) {
		struct fsaio_record r = { .version = FSAIO_RECORD_VERSION };

		fsaio_fold_aio_submit_record(&r, &pend[i], 1);
		r.flags |= FSAIO_F_INFERRED;	/* no seq: not from the ring buffer */
		fn(&r, ctx);
		if (FSAIO_FOLD_ST(pend[i].state) != FSAIO_FOLD_KDONE)
			continue;
		memset(&r, 0, sizeof(r));
		r.version = FSAIO_RECORD_VERSION;
		fsaio_fold_aio_end_record(&r, &pend[i], 1);
		r.flags |= FSAIO_F_INFERRED;
		fn(&r, ctx);
	}
	free(pend);
	return np;
}

int tracer_fold_flush(struct tracer *t, tracer_record_fn fn, void *ctx)
{
	struct fsaio_fold_req *slots, *pend;
	size_t np = 0, i;
	int na;

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
	/* the pending ones in submit order; every slot taken back */
	for (i = 0; i < FSAIO_FOLD_SLOTS; i++) {
		DRAIN_SLOT(&slots[i], &pend[np]);
		if (FSAIO_FOLD_ST(pend[np].state) == FSAIO_FOLD_PENDING)
			np++;
	}
	if (np)
		qsort(pend, np, sizeof(*pend), fold_pending_cmp);
	for (i = 0; i < np; i++) {
		struct fsaio_record r = { .version = FSAIO_RECORD_VERSION };

		__u64 note;

		fsaio_fold_submit_record(&r, &pend[i]);
		/* no seq (not from the ring buffer): the checker takes it as
		 * the harness's */
		r.flags |= FSAIO_F_INFERRED;
		fn(&r, ctx);
		for (note = FSAIO_FOLD_F_PUNTED; note <= FSAIO_FOLD_F_LINK_FAILED; note <<= 1) {
			if (!(pend[i].state & note))
				continue;
			memset(&r, 0, sizeof(r));
			r.version = FSAIO_RECORD_VERSION;
			fsaio_fold_note_record(&r, &pend[i], note);
			r.flags |= FSAIO_F_INFERRED;
			fn(&r, ctx);
		}
	}
	free(pend);
	na = fold_aio_flush(t, fn, ctx);
	return na < 0 ? na : (int)np + na;
}

static void enrich_sleep(const struct tracer *t, struct fsaio_record *rec);

int tracer_sleep_flush(struct tracer *t, tracer_sleeps_fn fn, void *ctx)
{
	struct fsaio_sleep_key *keys;
	struct fsaio_sleep_agg a;
	size_t nk = 0, i;
	int fd, n = 0, err = 0;
	__u32 gen;

	if (!t || !t->skel)
		return -EINVAL;
	if (!t->opts.fold || t->opts.aggregate)
		return 0;
	if (!t->skel->bss)
		return -ENOTSUP;	/* .bss not mmapped */
	fd = bpf_map__fd(t->skel->maps.sleep_aggs);
	keys = calloc(FSAIO_SLEEP_KEYS, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	/* Sleeps that end from now on add to the other generation's keys
	 * (the next run's); a program that read the old one before the flip
	 * is done with it long before the walk (BPF programs do not sleep). */
	gen = __atomic_fetch_xor(&t->skel->bss->sleep_gen, 1, __ATOMIC_SEQ_CST) & 1;
	usleep(1000);
	/* every key first: deleting while walking would restart the walk */
	while (nk < FSAIO_SLEEP_KEYS &&
	       !bpf_map_get_next_key(fd, nk ? &keys[nk - 1] : NULL, &keys[nk]))
		nk++;
	for (i = 0; i < nk; i++) {
		struct fsaio_record like = { 0 };

		if (keys[i].gen != gen)
			continue;
		if (bpf_map_lookup_elem(fd, &keys[i], &a)) {
			if (!err)
				err = -errno;
			continue;
		}
		if (bpf_map_delete_elem(fd, &keys[i]) && !err)
			err = -errno;
		if (!a.count)
			continue;	/* all its sleeps went as records */
		fsaio_sleep_record(&like, &keys[i], &a);
		enrich_sleep(t, &like);
		fn(&like, &a, ctx);
		n++;
	}
	free(keys);
	return err ? err : n;
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
	/* BPF asks for a larger ring: stop reading (this record is taken)
	 * so that tracer_poll grows it now.  A consumer that fell behind
	 * reads on and on while records keep coming; waiting for it to run
	 * dry first would lose them. */
	if (t->pend_nr - t->pend_head >= PEND_MAX)
		return -ENOBUFS;	/* the checker is behind: a larger ring won't help */
	if (t->skel->bss->ring_pressure)
		return -EBUSY;
	return 0;
}



/* ring_buffer__poll()'s or __consume()'s result ret: while on_sample
 * stopped for a larger ring, grow it and read on; on_sample stopping for
 * a full pend is no error (records wait in the ring). */
static int consume_growing(struct tracer *t, int ret)
{
	while (ret == -EBUSY) {
		ring_grow(t);
		ret = ring_buffer__consume(t->rb);
	}
	return ret == -ENOBUFS ? 0 : ret;
}

/* Has some CPU numbered fold records it has not written yet? */
static bool numbers_unsent(const struct tracer *t)
{
	const __u64 *u = t->skel->bss->fold_unsent;
	unsigned int i;

	for (i = 0; i < FSAIO_FOLD_UNSENT; i++)
		if (__atomic_load_n(&u[i], __ATOMIC_ACQUIRE))
			return true;
	return false;
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
			if (now - t->gap_since < REORDER_WAIT_NS ||
			    (now - t->gap_since < UNSENT_WAIT_NS && numbers_unsent(t)))
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
		/* the checker is slower than the ring fills: read between
		 * its records, so that checking a burst does not starve the
		 * ring, while the backlog stays bounded (rec is re-read:
		 * reading may move pend) */
		if (!(n % READ_EVERY))
			consume_growing(t, ring_buffer__consume(t->rb));
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
	ret = consume_growing(t, ring_buffer__poll(t->rb, timeout_ms));
	/* records below the wakeup threshold raise no epoll event */
	if (ret >= 0 || ret == -EINTR) {
		int c = consume_growing(t, ring_buffer__consume(t->rb));

		if (c < 0 && ret >= 0)
			ret = c;
	}
	if (t->oom)
		return -ENOMEM;
	n = deliver(t, fn, ctx);
	if (t->pend_head < t->pend_nr) {
		/* waiting for a record still being committed: pick it up now */
		consume_growing(t, ring_buffer__consume(t->rb));
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
	for (i = 0; i < t->nr_rings; i++)
		close(t->ring_fds[i]);
	for (i = 0; i < t->nr_links; i++)
		bpf_link__destroy(t->links[i]);
	fsaio_bpf__destroy(t->skel);
	ksyms_free(t->ksyms);
	free(t->pend);
	free(t);
}
