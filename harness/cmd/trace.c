// SPDX-License-Identifier: GPL-2.0
/* fsaio trace / features: watch the live system. */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "common.h"
#include "live/ksyms.h"
#include "live/session.h"
#include "report/report.h"

#define MAX_PIDS 64

static struct trace_args {
	int duration;		/* seconds, 0 = until Ctrl-C */
	int interval;		/* periodic summary, 0 = none */
	pid_t pids[MAX_PIDS];
	int nr_pids;
	const char *comm;
	bool no_fentry;
	int stacks;		/* --stacks: top stacks per wait site, 0 = off */
	bool per_event;		/* every record to user space, as check does */
} targs = { .interval = 5 };

static const struct argp_option trace_options[] = {
	{ "duration", 'd', "SEC", 0, "stop after SEC seconds (default: until Ctrl-C)" },
	{ "interval", 'i', "SEC", 0, "print a summary line every SEC seconds (default 5, 0: off)" },
	{ "pid", 'p', "PID", 0, "trace only this process and its children (repeatable)" },
	{ "comm", 'c', "COMM", 0, "trace only tasks with this command name" },
	{ "no-fentry", 'F', NULL, 0, "use tracepoints only, even where fentry loads" },
	{ "per-event", 'E', NULL, 0, "send every event to user space, as 'fsaio check' "
	  "does, instead of counting requests in the kernel (implied by --record)" },
	{ "stacks", 's', "N", OPTION_ARG_OPTIONAL,
	  "print the N (default 5, at most 16) most frequent kernel stacks of each wait site" },
	{},
};

/* A process that --pid can trace: alive, not a zombie.  kill(0, 0) would
 * succeed for pid 0 (the caller's process group), so pids start at 1. */
static bool pid_traceable(pid_t pid)
{
	char path[64], buf[512], *p, state;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	return p && sscanf(p + 1, " %c", &state) == 1 && state != 'Z' && state != 'X';
}

static error_t trace_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'd':
		targs.duration = option_number(state, "--duration", arg, 0, 86400 * 365);
		break;
	case 'i':
		targs.interval = option_number(state, "--interval", arg, 0, 86400);
		break;
	case 'p':
		if (targs.nr_pids == MAX_PIDS)
			argp_error(state, "at most %d --pid options", MAX_PIDS);
		targs.pids[targs.nr_pids] = option_number(state, "--pid", arg, 1, INT32_MAX);
		if (!pid_traceable(targs.pids[targs.nr_pids]))
			argp_error(state, "no live process with pid %s (gone, or a zombie)", arg);
		targs.nr_pids++;
		break;
	case 'c':
		if (!arg[0])
			argp_error(state, "--comm wants a task name, not ''");
		if (strlen(arg) >= FSAIO_COMM_LEN)
			argp_error(state, "--comm: task names are at most %d characters",
				   FSAIO_COMM_LEN - 1);
		targs.comm = arg;
		break;
	case 'F':
		targs.no_fentry = true;
		break;
	case 'E':
		targs.per_event = true;
		break;
	case 's':
		targs.stacks = arg ? option_number(state, "--stacks", arg, 1, 16) : 5;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'; to trace a command use 'fsaio check -- CMD'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The checker's statistics plus, when aggregating, the kernel's counts
 * so far (a copy: the checker's own are added once, at the end). */
static const struct checker_stats *stats_now(struct session *s, bool aggregate,
					     struct checker_stats *buf)
{
	struct fsaio_agg a;

	*buf = *checker_stats(s->checker);
	if (aggregate && !tracer_read_agg(s->tracer, &a))
		checker_stats_add_aggregate(buf, &a);
	return buf;
}

/* VmRSS of this process in KiB, 0 if unreadable */
static unsigned long rss_kib(void)
{
	unsigned long kib = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %lu kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void print_periodic(double t, const struct checker_stats *st,
			   uint64_t lost)
{
	int e;

	printf("%7.1fs", t);
	for (e = FSAIO_ENGINE_LIBAIO; e < FSAIO_ENGINE__COUNT; e++) {
		const struct engine_stats *es = &st->engine[e];

		printf("  %s: sub %" PRIu64 " comp %" PRIu64 " blocked %" PRIu64
		       " punts %" PRIu64, engine_name(e), es->submitted,
		       es->completed, es->blocked_in_submit, es->punts);
	}
	printf("  records %" PRIu64, st->records);
	if (st->aggregated)
		printf(" (+%" PRIu64 " counted)", st->aggregated);
	printf(" lost %" PRIu64 "\n", lost);
	fflush(stdout);
}

int cmd_trace(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &output_argp }, { &record_argp }, {},
	};
	static const struct argp argp = { trace_options, trace_parse, NULL,
		"Trace asynchronous I/O and every uninterruptible sleep on the live system.\v"
		"Counts, per engine, requests submitted and completed, submits that slept\n"
		"in a page or bit wait (blocked), retries, wakes, resumes and io-wq punts;\n"
		"and a table of D-state sleeps by wait site and context with log2\n"
		"latency histograms.  Without -p/-c every task is traced.  Requests are\n"
		"counted in the kernel; only sleeps, process exits and anomalies reach\n"
		"user space one by one (-E/--per-event or --record: every event).  Lost events\n"
		"(ring buffer full) make the run an error: raise --ringbuf-mb.\n"
		"Exit status: 0 ok, 4 skip, 5 error (events were lost or tracing failed),\n"
		"64 usage.", children };
	struct tracer_opts topts = { 0 };
	const struct checker_stats *st;
	struct checker_stats buf;
	struct run_result run = { 0 };
	struct fsaio_agg agg;
	struct session s;
	double t0, next;
	bool poll_failed = false;
	unsigned long rss0, rss1;
	int ret, i;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	topts.verbose = verbose;
	topts.all_tasks = !targs.nr_pids && !targs.comm;
	topts.comm = targs.comm;
	topts.no_fentry = targs.no_fentry;
	/* a --record log is replayed by the checker: it needs every event */
	topts.aggregate = !targs.per_event && !output_opts.record;
	/* live systems: modest by default, --ringbuf-mb when records are lost */
	topts.ringbuf_bytes = (output_opts.ringbuf_mb ? output_opts.ringbuf_mb : 8) << 20;
	topts.ringbuf_max_bytes = output_opts.ringbuf_max_mb << 20;

	fsaio_install_signals();
	ret = session_open(&s, &topts, output_opts.record, "trace");
	if (ret)
		return ret;
	report_set_symbolizer(ksyms_symbolize, (void *)tracer_ksyms(s.tracer));
	for (i = 0; i < targs.nr_pids; i++) {
		ret = tracer_track_pid(s.tracer, targs.pids[i]);
		if (ret) {
			fsaio_err("cannot trace pid %d: %s", targs.pids[i], strerror(-ret));
			session_close(&s);
			return EXIT_ERROR;
		}
	}
	s.keep_stacks = targs.stacks > 0;
	if (session_begin(&s)) {
		session_close(&s);
		return EXIT_ERROR;
	}
	fprintf(stderr, "fsaio: tracing %s%s; %s\n",
		topts.all_tasks ? "all tasks" : "selected tasks",
		targs.duration ? "" : " until Ctrl-C",
		verbose ? "features above" : "-v shows the features in use");
	rss0 = rss_kib();
	t0 = now_seconds();
	next = t0 + (targs.interval ? targs.interval : 1e12);
	while (!fsaio_interrupted) {
		double now = now_seconds();

		if (targs.duration && now - t0 >= targs.duration)
			break;
		ret = session_poll(&s, 100);
		if (ret < 0 && ret != -EINTR) {
			fsaio_err("ring buffer poll failed: %s", strerror(-ret));
			poll_failed = true;
			break;
		}
		if (now >= next) {
			print_periodic(now - t0, stats_now(&s, topts.aggregate, &buf),
				       session_lost(&s));
			next += targs.interval;
		}
	}
	/* read before session_end(): the counts of events up to its drain */
	if (topts.aggregate && tracer_read_agg(s.tracer, &agg)) {
		fsaio_err("cannot read the kernel's counts");
		poll_failed = true;
		topts.aggregate = false;
	}
	run.checker = session_end(&s);
	if (topts.aggregate)
		checker_add_aggregate(run.checker, &agg);
	snprintf(run.name, sizeof(run.name), "trace");
	snprintf(run.command, sizeof(run.command), "fsaio trace");
	run.wall_seconds = now_seconds() - t0;
	/* a live-system tracer must not grow: resident memory once attached
	 * and at the end, in the text and in the JSON's workload_summary */
	rss1 = rss_kib();
	snprintf(run.summary_line, sizeof(run.summary_line),
		 "fsaio trace: resident %lu KiB once attached, %lu KiB at the end", rss0, rss1);
	st = checker_stats(run.checker);
	printf("\n--- fsaio trace: %.1f s on %s ---\n", run.wall_seconds, kernel_release());
	report_text_stats(stdout, st);
	printf("%s\n", run.summary_line);
	if (targs.stacks)
		report_text_top_stacks(stdout, run.checker, targs.stacks);

	/* Errors after the tables, never inside them (stderr is unbuffered). */
	fflush(stdout);
	ret = poll_failed ? EXIT_ERROR : EXIT_PASS;
	if (st->lost || st->oom) {
		fprintf(stderr, "fsaio: ERROR: %" PRIu64 " events lost", st->lost);
		report_text_losses(stderr, st);
		fprintf(stderr, "%s\n", st->drops[FSAIO_DROP_RINGBUF] ?
			"; rerun with a larger --ringbuf-mb" : "");
		ret = EXIT_ERROR;
	}
	if (report_json(output_opts.json, "trace", kernel_release(), s.features,
			&run, 1, VERDICT_PASS) == VERDICT_ERROR)
		ret = EXIT_ERROR;
	checker_free(run.checker);
	report_set_symbolizer(NULL, NULL);	/* the tracer's symbols go */
	if (session_close(&s))
		ret = EXIT_ERROR;	/* --record log incomplete */
	return ret;
}

int cmd_features(int argc, char **argv)
{
	struct tracer_opts topts = { .verbose = verbose };
	struct tracer *t;
	char err[512];
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: fsaio features\nProbe and print what this kernel lets fsaio observe,\n"
		       "and what each missing feature costs.\n");
		return EXIT_PASS;
	}
	if (argc > 1) {
		fsaio_err("features: unexpected argument '%s' (it takes none)", argv[1]);
		return EXIT_USAGE;
	}
	if (geteuid() != 0) {
		fsaio_err("probing BPF features needs root; run as root or with sudo");
		return EXIT_SKIP;
	}
	ret = session_nofile();
	if (ret)
		return ret;
	ret = tracer_open(&t, &topts, err, sizeof(err));
	if (ret) {
		fsaio_err("%s", err);
		return ret == -EOPNOTSUPP || ret == -ENOENT ? EXIT_SKIP : EXIT_ERROR;
	}
	printf("kernel %s\n", kernel_release());
	tracer_print_features(t, stdout);
	tracer_close(t);
	return EXIT_PASS;
}
