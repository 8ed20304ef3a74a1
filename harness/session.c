// SPDX-License-Identifier: GPL-2.0
/* Live tracer -> checker (+ event log) plumbing shared by trace and check. */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common.h"
#include "decode.h"
#include "session.h"

struct checker_config session_checker_config(uint32_t features)
{
	struct checker_config cfg = { 0 };
	bool fentry_retry = (features & FEAT_FEXIT_GET_PAGES) &&
			    (features & FEAT_FENTRY_ASYNC_BUF);

	cfg.see_sleep = features & FEAT_STACK;
	cfg.see_retry = (features & FEAT_FSAIO_TP) || fentry_retry;
	cfg.see_libaio_kernel_complete = features & (FEAT_FSAIO_TP |
						     FEAT_FENTRY_AIO_COMPLETE);
	cfg.libaio_submit_unseen = !(features & FEAT_SYSCALL_TP);
	cfg.libaio_async_expected = (features & FEAT_FSAIO_TP) &&
				    (features & FEAT_X_LIBAIO_ASYNC);
	cfg.skip_retry_reason = (features & FEAT_FENTRY) ?
		"fexit filemap_get_pages/fentry io_async_buf_func not attachable on this kernel" :
		"per-request retry/wake/resume need fentry (not loadable here) or the patched kernel's fsaio tracepoints";
	return cfg;
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

static void on_record(const struct fsaio_record *rec, void *ctx)
{
	struct session *s = ctx;

	if (s->log)
		fsaio_log_write(s->log, rec);
	checker_feed(s->checker, rec);
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
	ret = tracer_open(&s->tracer, o, err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err[0] ? err : strerror(-ret));
		/* A kernel that lacks what we need is a SKIP, not a failure. */
		return ret == -EOPNOTSUPP || ret == -ENOENT ? EXIT_SKIP : EXIT_ERROR;
	}
	s->features = tracer_features(s->tracer);
	if (libaio_async_enabled())
		s->features |= FEAT_X_LIBAIO_ASYNC;
	if (verbose)
		tracer_print_features(s->tracer, stderr);
	if (record_path) {
		struct fsaio_log_header h = { .log_version = 1 };

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
		fsaio_log_write_header(s->log, &h);
	}
	return EXIT_PASS;
}

void session_begin(struct session *s)
{
	struct checker_config cfg = session_checker_config(s->features);

	s->checker = checker_new(&cfg);
	s->lost_base = tracer_lost(s->tracer);
}

int session_poll(struct session *s, int timeout_ms)
{
	return tracer_poll(s->tracer, timeout_ms, on_record, s);
}

struct checker *session_end(struct session *s)
{
	struct fsaio_record end = {
		.version = FSAIO_RECORD_VERSION,
		.type = FSAIO_EV_TRACE_END,
	};
	struct checker *c = s->checker;
	struct timespec ts;
	int idle = 0, polls = 0;

	/* Records of the segment may still sit in the ring buffer; under a
	 * live load it never goes idle, so stop after ~500 ms. */
	while (idle < 2 && polls++ < 10) {
		int n = session_poll(s, 50);

		idle = n > 0 ? 0 : idle + 1;
		if (n < 0 && n != -EINTR)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	end.ts_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	end.arg0 = tracer_lost(s->tracer) - s->lost_base;
	on_record(&end, s);
	checker_finish(c);
	s->checker = NULL;
	return c;
}

void session_close(struct session *s)
{
	if (s->checker)
		checker_free(s->checker);
	if (s->log)
		fclose(s->log);
	tracer_close(s->tracer);
	memset(s, 0, sizeof(*s));
}
