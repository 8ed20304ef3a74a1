// SPDX-License-Identifier: GPL-2.0
/* Live tracer -> checker (+ event log) plumbing shared by trace and check. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "core/decode.h"
#include "live/session.h"

static void on_record(const struct fsaio_record *rec, void *ctx)
{
	struct session *s = ctx;

	if (s->log) {
		s->log_records++;
		s->log_hash = fsaio_record_hash(s->log_hash, rec);
	}
	if (s->log && fsaio_log_write(s->log, rec) && !s->log_errno) {
		s->log_errno = errno ? errno : EIO;
		fsaio_err("writing the event log: %s; the log is incomplete",
			  strerror(s->log_errno));
	}
	checker_feed(s->checker, rec);
}

/* File descriptors the tracer may hold: each program, link, map and the
 * ring buffer's epoll take one (about 150 today), with room to grow; below
 * TRACER_NOFILE_MIN programs would fail to attach. */
#define TRACER_NOFILE	4096
#define TRACER_NOFILE_MIN	256

/*
 * A low RLIMIT_NOFILE (ulimit -n 70) made attaching fail with EMFILE,
 * which looked like a missing kernel feature: a blind trace.  Raise the
 * soft limit, and as root the hard one, to what the tracer needs; what
 * cannot be raised leaves the tracer to fail loudly on EMFILE.
 */
int session_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= TRACER_NOFILE)
		return EXIT_PASS;
	if (rl.rlim_max < TRACER_NOFILE) {
		struct rlimit want = { TRACER_NOFILE, TRACER_NOFILE };

		if (!setrlimit(RLIMIT_NOFILE, &want))
			return EXIT_PASS;
	}
	rl.rlim_cur = rl.rlim_max < TRACER_NOFILE ? rl.rlim_max : TRACER_NOFILE;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= TRACER_NOFILE_MIN)
		return EXIT_PASS;
	fsaio_err("the BPF programs need %d open files and the limit is %llu"
		  " (ulimit -n), which cannot be raised here: raise it", TRACER_NOFILE_MIN,
		  (unsigned long long)rl.rlim_cur);
	return EXIT_ERROR;
}

int session_open(struct session *s, const struct tracer_opts *o,
		 const char *record_path, const char *label)
{
	char err[512] = "";
	int ret;

	memset(s, 0, sizeof(*s));
	if (geteuid() != 0) {
		fsaio_err("tracing needs root (CAP_BPF and CAP_PERFMON); run as root or with sudo");
		return EXIT_SKIP;
	}
	ret = session_nofile();
	if (ret)
		return ret;
	ret = tracer_open(&s->tracer, o, err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err[0] ? err : strerror(-ret));
		/* A kernel that lacks what we need is a SKIP, not a failure. */
		return ret == -EOPNOTSUPP || ret == -ENOENT ? EXIT_SKIP : EXIT_ERROR;
	}
	s->features = tracer_features(s->tracer);
	if (verbose)
		tracer_print_features(s->tracer, stderr);
	if (record_path) {
		struct fsaio_log_header h = { .log_version = FSAIO_LOG_VERSION };

		s->log = fopen(record_path, "w");
		if (!s->log) {
			fsaio_err("cannot write %s: %s", record_path, strerror(errno));
			session_close(s);
			return EXIT_USAGE;
		}
		memcpy(h.magic, FSAIO_LOG_MAGIC, sizeof(h.magic));
		h.record_size = sizeof(struct fsaio_record);
		h.record_version = FSAIO_RECORD_VERSION;
		h.features = s->features;
		snprintf(h.release, sizeof(h.release), "%s", kernel_release());
		snprintf(h.label, sizeof(h.label), "%s", label);
		/* one line in a text log, byte for byte: the seal covers it */
		for (char *p = h.label; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
		s->log_hash = fsaio_header_hash(&h);
		if (fsaio_log_write_header(s->log, &h)) {
			fsaio_err("cannot write %s: %s", record_path, strerror(errno));
			session_close(s);
			return EXIT_ERROR;
		}
	}
	return EXIT_PASS;
}

int session_begin(struct session *s)
{
	struct checker_config cfg = checker_config_for(s->features);

	cfg.keep_stacks = s->keep_stacks;

	s->checker = checker_new(&cfg);
	if (!s->checker) {
		fsaio_err("out of memory for the checker");
		return -ENOMEM;
	}
	tracer_drops(s->tracer, s->drops_base);
	tracer_ringbuf_bytes(s->tracer, &s->grows_base);
	tracer_read_fold(s->tracer, &s->fold_base);
	return 0;
}

int session_poll(struct session *s, int timeout_ms)
{
	return tracer_poll(s->tracer, timeout_ms, on_record, s);
}

/* Nice value of the consumer thread: on a machine whose CPUs are busy
 * with other work (CI runners), a nice-0 consumer gets a share per
 * runnable task and the ring buffer fills; -10 weighs ~10x a nice-0 task
 * and still yields to real-time work.  Without CAP_SYS_NICE it stays 0. */
#define CONSUMER_NICE	-10

static void *consumer_main(void *arg)
{
	struct session *s = arg;

	if (setpriority(PRIO_PROCESS, gettid(), CONSUMER_NICE) && verbose)
		fsaio_err("consumer thread keeps its priority: %s", strerror(errno));
	while (!s->consumer_stop) {
		int n = session_poll(s, 20);

		if (n < 0 && n != -EINTR) {
			/* the tracer's own errors (out of memory) end up in
			 * its drop counts; don't spin on them */
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int session_consume_start(struct session *s)
{
	int ret;

	s->consumer_stop = false;
	ret = pthread_create(&s->consumer, NULL, consumer_main, s);
	if (ret) {
		fsaio_err("cannot start the consumer thread: %s", strerror(ret));
		return -ret;
	}
	s->consuming = true;
	return 0;
}

void session_consume_stop(struct session *s)
{
	if (!s->consuming)
		return;
	s->consumer_stop = true;
	pthread_join(s->consumer, NULL);
	s->consuming = false;
}

static void on_sleeps(const struct fsaio_record *like, const struct fsaio_sleep_agg *a,
		      void *ctx)
{
	struct session *s = ctx;

	/* __u64 and uint64_t: one size, two spellings */
	checker_add_sleeps(s->checker, like, a->count, a->total_ns, a->max_ns,
			   (const uint64_t *)a->hist);
}

/* The segment's folded lifecycles (bpf/fsaio_fold.h): the kept submits
 * still in flight go to the checker as SUBMIT records, the folded ones as
 * counts; and the sleeps counted in the kernel (bpf/fsaio_sleeps.h), as
 * sums.  Returns 1 if that failed: the checks are then inconclusive, as
 * for a lost record. */
static int end_folded(struct session *s)
{
	struct fsaio_fold_counts now, d;
	int n = tracer_fold_flush(s->tracer, on_record, s), ret = 0;

	if (n < 0 || tracer_read_fold(s->tracer, &now)) {
		fsaio_err("reading the io_uring requests kept in the kernel: %s",
			  strerror(n < 0 ? -n : errno));
		ret = 1;
	} else {
		COUNTERS_SINCE(&d, &now, &s->fold_base);
		checker_add_folded(s->checker, &d);
	}
	n = tracer_sleep_flush(s->tracer, on_sleeps, s);
	if (n < 0) {
		fsaio_err("reading the sleeps counted in the kernel: %s", strerror(-n));
		ret = 1;
	}
	return ret;
}

struct checker *session_end(struct session *s)
{
	struct fsaio_record end = {
		.version = FSAIO_RECORD_VERSION,
		.type = FSAIO_EV_TRACE_END,
	};
	uint64_t drops[FSAIO_DROP__COUNT];
	struct checker *c = s->checker;
	struct timespec ts;
	int idle = 0, polls = 0, fold_lost, i;
	unsigned int grows;

	session_consume_stop(s);
	/* Records of the segment may still sit in the ring buffer; under a
	 * live load it never goes idle, so stop after ~500 ms. */
	while (idle < 2 && polls++ < 10) {
		int n = session_poll(s, 50);

		idle = n > 0 ? 0 : idle + 1;
		if (n < 0 && n != -EINTR)
			break;
	}
	fold_lost = end_folded(s);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end.ts_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	tracer_drops(s->tracer, drops);
	for (i = 0; i < FSAIO_DROP__COUNT; i++) {
		end.stack[i] = drops[i] - s->drops_base[i];
		end.arg0 += end.stack[i];
	}
	end.stack[FSAIO_DROP_MAP_FULL] += fold_lost;
	end.arg0 += fold_lost;
	end.arg2 = tracer_ringbuf_bytes(s->tracer, &grows);
	end.res = grows - s->grows_base;
	on_record(&end, s);
	checker_finish(c);
	s->checker = NULL;
	return c;
}

int session_close(struct session *s)
{
	struct fsaio_record end = {
		.version = FSAIO_RECORD_VERSION,
		.type = FSAIO_EV_TRACE_END,
		.arg1 = FSAIO_END_LOG,
	};
	int err = s->log_errno;

	session_consume_stop(s);
	if (s->checker)
		checker_free(s->checker);
	/* The log's closing record: without it replay knows it was cut; it
	 * seals the count and hash of every record before it. */
	end.arg0 = s->log_records;
	end.arg2 = s->log_hash;
	end.stack[0] = FSAIO_END_SEALED;
	if (s->log && !err && fsaio_log_write(s->log, &end)) {
		err = errno ? errno : EIO;
		fsaio_err("writing the event log: %s; the log is incomplete", strerror(err));
	}
	if (s->log && fclose(s->log) && !err) {
		err = errno ? errno : EIO;
		fsaio_err("writing the event log: %s; the log is incomplete", strerror(err));
	}
	tracer_close(s->tracer);
	memset(s, 0, sizeof(*s));
	return -err;
}
