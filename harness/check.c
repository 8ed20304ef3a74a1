// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio check / replay / list: run workloads (or any command) under
 * tracing, join their own results with the trace, print KTAP, write JSON.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "commands.h"
#include "common.h"
#include "decode.h"
#include "report.h"
#include "scratch.h"
#include "session.h"
#include "workload.h"

#define MAX_WORKLOADS 64
#define SCRATCH_MB 512

static struct check_args {
	const char *json;
	const char *record;
	const char *fstype;
	int timeout;
	bool list;
	char **names;
	int nr_names;
	char **cmd;		/* after "--" */
} args = { .fstype = "ext4", .timeout = 300 };

static const struct argp_option check_options[] = {
	{ "json", 'j', "FILE", 0, "write the JSON summary to FILE" },
	{ "record", 'r', "FILE", 0, "record every event to FILE (for 'fsaio replay')" },
	{ "timeout", 't', "SEC", 0, "kill a workload still running after SEC seconds (default 300)" },
	{ "fs", 'f', "TYPE", 0, "scratch filesystem for the suite: ext4 (default) or xfs" },
	{ "list", 'l', NULL, 0, "list the workloads and exit" },
	{ "verbose", 'v', NULL, 0, "print feature probes and workload output" },
	{},
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	char *end;

	switch (key) {
	case 'j':
		args.json = arg;
		break;
	case 'r':
		args.record = arg;
		break;
	case 'f':
		args.fstype = arg;
		break;
	case 'l':
		args.list = true;
		break;
	case 'v':
		verbose = true;
		break;
	case 't':
		errno = 0;
		args.timeout = strtol(arg, &end, 10);
		if (errno || *end || args.timeout <= 0)
			argp_error(state, "--timeout wants a positive number of seconds, not '%s'", arg);
		break;
	case ARGP_KEY_ARGS:
		/* argp stops at "--": everything after it is the command. */
		if (state->next > 1 && !strcmp(state->argv[state->next - 1], "--")) {
			args.cmd = state->argv + state->next;
		} else {
			args.names = state->argv + state->next;
			args.nr_names = state->argc - state->next;
		}
		break;
	case ARGP_KEY_END:
		if (!args.cmd && state->next > 1 &&
		    !strcmp(state->argv[state->next - 1], "--"))
			argp_error(state, "nothing after '--': give a command to run");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char check_doc[] =
	"Run workloads, or any command, under tracing and check the invariants.\v"
	"With no WORKLOAD the whole default suite runs (see 'fsaio check --list'):\n"
	"custom libaio/io_uring programs that verify every byte they read, and fio\n"
	"jobs, on a scratch filesystem on a loop device that fsaio creates and always\n"
	"removes.  With '-- CMD ARGS', CMD runs in the current directory and is traced\n"
	"with all its children.\n\n"
	"Output is KTAP: one subtest per workload, one line per invariant; '# SKIP'\n"
	"where this kernel cannot observe a property, '# XFAIL' where the kernel is\n"
	"known not to provide it (stock libaio buffered reads sleep in io_submit).\n"
	"Exit status: 0 pass, 1 fail or error, 2 usage, 4 skip.";

/* Project root: the fsaio binary lives there. */
static const char *project_root(void)
{
	static char root[PATH_MAX];
	ssize_t n;

	if (root[0])
		return root;
	n = readlink("/proc/self/exe", root, sizeof(root) - 1);
	if (n <= 0)
		return strcpy(root, ".");
	root[n] = '\0';
	*strrchr(root, '/') = '\0';
	return root;
}

static void set_check(struct invariant_result *ir, const char *name,
		      enum verdict v, uint64_t obs, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void set_check(struct invariant_result *ir, const char *name,
		      enum verdict v, uint64_t obs, const char *fmt, ...)
{
	va_list ap;

	ir->name = name;
	ir->verdict = v;
	ir->observations = obs;
	va_start(ap, fmt);
	vsnprintf(ir->detail, sizeof(ir->detail), fmt, ap);
	va_end(ap);
}

/* The running workload. */
struct child {
	pid_t pid;
	int out_fd;		/* its stdout, -1 once closed */
	char line[1024];	/* partial line */
	size_t len;
	struct workload_report report;
	bool timed_out;
	int status;
};

/* Relay the workload's stdout as KTAP diagnostics; catch its summary. */
static void child_read(struct child *c)
{
	char buf[4096];
	ssize_t n = read(c->out_fd, buf, sizeof(buf));
	ssize_t i;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		close(c->out_fd);
		c->out_fd = -1;
		n = 0;
		buf[n++] = '\n';	/* flush a last unterminated line */
		if (!c->len)
			return;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] != '\n' && c->len < sizeof(c->line) - 1) {
			c->line[c->len++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue;
		c->line[c->len] = '\0';
		if (!workload_parse_summary(c->line, &c->report) || verbose)
			printf("    # | %s\n", c->line);
		c->len = 0;
	}
	fflush(stdout);
}

/*
 * Fork the workload stopped on a pipe, track it, then let it exec: so the
 * tracer sees it from its first syscall.  Returns 0, or EXIT_USAGE when the
 * command cannot be run (message printed).
 */
static int child_start(struct session *s, struct child *c, char *const argv[],
		       const char *dir)
{
	int out[2], go[2], errp[2], e = 0;
	char ch;

	memset(c, 0, sizeof(*c));
	c->out_fd = -1;
	if (pipe2(out, O_CLOEXEC) || pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		fsaio_err("pipe: %s", strerror(errno));
		return EXIT_ERROR;
	}
	c->pid = fork();
	if (c->pid < 0) {
		fsaio_err("fork: %s", strerror(errno));
		return EXIT_ERROR;
	}
	if (c->pid == 0) {
		setpgid(0, 0);	/* so a timeout can kill the whole tree */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		dup2(out[1], STDOUT_FILENO);
		if (dir)
			setenv("FSAIO_DIR", dir, 1);
		if (read(go[0], &ch, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(errp[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(out[1]);
	close(go[0]);
	close(errp[1]);
	tracer_track_pid(s->tracer, c->pid);
	if (write(go[1], "g", 1) != 1)
		fsaio_err("cannot start workload: %s", strerror(errno));
	close(go[1]);
	if (read(errp[0], &e, sizeof(e)) == sizeof(e)) {
		close(errp[0]);
		close(out[0]);
		waitpid(c->pid, NULL, 0);
		fsaio_err("cannot run '%s': %s", argv[0], strerror(e));
		return EXIT_USAGE;
	}
	close(errp[0]);
	c->out_fd = out[0];
	fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Trace until the workload exits, times out, or we are interrupted. */
static void child_wait(struct session *s, struct child *c, int timeout)
{
	double deadline = now_seconds() + timeout;
	bool exited = false;

	while (!exited || c->out_fd >= 0) {
		struct pollfd pfd = { .fd = c->out_fd, .events = POLLIN };

		session_poll(s, 20);
		if (c->out_fd >= 0 && poll(&pfd, 1, 0) > 0)
			child_read(c);
		if (!exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
			exited = true;
		if (exited)
			continue;
		if (fsaio_interrupted || now_seconds() > deadline) {
			c->timed_out = !fsaio_interrupted;
			kill(-c->pid, SIGKILL);
			waitpid(c->pid, &c->status, 0);
			exited = true;
		}
	}
}

static const struct engine_stats *engine_for(const struct checker_stats *st,
					      const char *engine)
{
	if (!strcmp(engine, "libaio") || !strcmp(engine, "mixed"))
		return &st->engine[FSAIO_ENGINE_LIBAIO];
	if (!strcmp(engine, "io_uring"))
		return &st->engine[FSAIO_ENGINE_IO_URING];
	return NULL;
}

/*
 * The workload's own counts must equal the traced ones: the tracer is only
 * trustworthy if it sees exactly what the program did.  For fio, its mean
 * submission latency must agree with the traced submit syscall time, and
 * the traced blocked time must fit inside it.
 */
static void check_agreement(struct run_result *r, const struct workload *w,
			    const struct child *c)
{
	const struct checker_stats *st = checker_stats(r->checker);
	const struct workload_report *wr = &c->report;
	struct invariant_result *ir = &r->run_checks[RUN_CHECK_AGREEMENT];
	const struct engine_stats *es;
	const char *name = "workload_agreement";

	if (w->kind == WL_COMMAND) {
		set_check(ir, name, VERDICT_SKIP, 0,
			  "arbitrary command: it reports no counts of its own");
		return;
	}
	if (!wr->valid) {
		set_check(ir, name, r->exit_status == 0 ? VERDICT_FAIL : VERDICT_SKIP, 0,
			  "workload reported no counts (exit status %d)", r->exit_status);
		return;
	}
	es = engine_for(st, wr->engine);
	if (!es) {
		/* Synchronous engines: nothing async may have been traced. */
		uint64_t n = st->engine[FSAIO_ENGINE_LIBAIO].submitted +
			     st->engine[FSAIO_ENGINE_IO_URING].submitted;

		set_check(ir, name, n ? VERDICT_FAIL : VERDICT_PASS, wr->submitted,
			  "%s: %" PRIu64 " I/Os, %" PRIu64 " async requests traced",
			  wr->engine, wr->submitted, n);
		return;
	}
	/* Requests left to io_destroy or exit are joined too: the workload
	 * says how many it never reaped on purpose (abandoned=, 0 if absent). */
	if (es->submitted != wr->submitted || es->completed != wr->completed ||
	    es->abandoned != wr->abandoned) {
		set_check(ir, name, VERDICT_FAIL, wr->submitted,
			  "%s: workload submitted/completed/abandoned %" PRIu64 "/%" PRIu64
			  "/%" PRIu64 ", traced %" PRIu64 "/%" PRIu64 "/%" PRIu64,
			  wr->engine, wr->submitted, wr->completed, wr->abandoned,
			  es->submitted, es->completed, es->abandoned);
		return;
	}
	if (wr->abandoned) {
		set_check(ir, name, VERDICT_PASS, wr->submitted,
			  "%s: submitted/completed/abandoned %" PRIu64 "/%" PRIu64 "/%" PRIu64
			  " as traced", wr->engine, wr->submitted, wr->completed,
			  wr->abandoned);
		return;
	}
	if (w->kind == WL_FIO && es->submit_calls && wr->slat_samples) {
		double traced_us = es->submit_ns / 1e3 / es->submit_calls;
		double fio_us = wr->slat_mean_ns / 1e3;
		double blocked_us = es->blocked_ns / 1e3 / es->submit_calls;

		/* fio's slat adds its own user-space work per I/O, so allow
		 * 50% + 50 us; a tracer that missed or invented blocking time
		 * would be off by the device latency.  Sleeps inside submit
		 * cannot outlast the submit calls themselves. */
		double slack = 0.5 * (fio_us > traced_us ? fio_us : traced_us) + 50;
		/* A verify write job's slat also counts buffer filling (slow
		 * under TCG): then only "the trace saw no more than fio did". */
		int fio_over = !wr->slat_has_fill && fio_us - traced_us > slack;

		if (fio_over || traced_us - fio_us > slack ||
		    blocked_us > traced_us * 1.01 + 1) {
			set_check(ir, name, VERDICT_FAIL, wr->submitted,
				  "%s: fio slat mean %.1f us but traced submit %.1f us/call"
				  " (blocked %.1f us/call)", wr->engine, fio_us,
				  traced_us, blocked_us);
			return;
		}
		set_check(ir, name, VERDICT_PASS, wr->submitted,
			  "%s: %" PRIu64 "/%" PRIu64 " as traced; fio slat mean %.1f us%s,"
			  " traced submit %.1f us/call, blocked %.1f us/call",
			  wr->engine, wr->submitted, wr->completed, fio_us,
			  wr->slat_has_fill ? " (incl. verify buffer fill: upper bound)" : "",
			  traced_us, blocked_us);
		return;
	}
	set_check(ir, name, VERDICT_PASS, wr->submitted,
		  "%s: submitted/completed %" PRIu64 "/%" PRIu64 " as traced",
		  wr->engine, wr->submitted, wr->completed);
}

static void check_exit(struct run_result *r, const struct workload *w,
		       const struct child *c)
{
	struct invariant_result *ir = &r->run_checks[RUN_CHECK_EXIT];
	const char *name = "workload_exit";
	int st = c->status;

	r->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (c->timed_out)
		set_check(ir, name, VERDICT_ERROR, 1,
			  "workload hung: killed after %d s (--timeout)", args.timeout);
	else if (fsaio_interrupted)
		set_check(ir, name, VERDICT_ERROR, 1, "interrupted");
	else if (WIFSIGNALED(st))
		set_check(ir, name, VERDICT_FAIL, 1, "workload killed by signal %d (%s)",
			  WTERMSIG(st), strsignal(WTERMSIG(st)));
	else if (r->exit_status == EXIT_SKIP)
		set_check(ir, name, VERDICT_SKIP, 1, "workload skipped itself");
	else if (r->exit_status)
		set_check(ir, name, VERDICT_FAIL, 1,
			  "workload exited with status %d (data or result check failed)",
			  r->exit_status);
	else
		set_check(ir, name, VERDICT_PASS, 1, "%s",
			  w->kind == WL_PROGRAM ? "exit 0, every byte read verified" :
			  w->kind == WL_FIO ? "fio exit 0 (verify where the job asks)" :
			  "exit 0");
}

static int run_workload(struct session *s, const struct workload *w,
			char *const *cmd, const char *dir, struct run_result *r)
{
	char fio_json[PATH_MAX] = "", err[512];
	char *argv[8];
	struct child c;
	double t0;
	int ret, i, n = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", w->name);
	if (w->kind == WL_PROGRAM) {
		argv[n++] = (char *)w->path;
		argv[n++] = "-d";
		argv[n++] = (char *)dir;
	} else if (w->kind == WL_FIO) {
		snprintf(fio_json, sizeof(fio_json), "%s/.fio-%s.json", dir, w->name);
		argv[n++] = "fio";
		argv[n++] = "--output-format=json";
		argv[n++] = (char *)"--output";
		argv[n++] = fio_json;
		argv[n++] = (char *)w->path;
	}
	argv[n] = NULL;
	if (w->kind != WL_COMMAND)
		cmd = argv;
	for (i = 0, n = 0; cmd[i] && n < (int)sizeof(r->command) - 1; i++)
		n += snprintf(r->command + n, sizeof(r->command) - n, "%s%s",
			      i ? " " : "", cmd[i]);

	session_begin(s);
	t0 = now_seconds();
	ret = child_start(s, &c, cmd, dir);
	if (ret) {
		checker_free(session_end(s));
		return ret;
	}
	child_wait(s, &c, args.timeout);
	r->wall_seconds = now_seconds() - t0;
	r->checker = session_end(s);

	if (w->kind == WL_FIO && !c.timed_out && !fsaio_interrupted &&
	    workload_parse_fio_json(fio_json, &c.report, err, sizeof(err)))
		printf("    # %s\n", err);
	if (fio_json[0])
		unlink(fio_json);
	snprintf(r->summary_line, sizeof(r->summary_line), "%s", c.report.line);
	check_exit(r, w, &c);
	check_agreement(r, w, &c);
	return 0;
}

static struct scratch scratch;

static void cleanup_at_exit(void)
{
	scratch_teardown_all();
}

int cmd_check(int argc, char **argv)
{
	static const struct argp argp = { check_options, check_parse,
		"[WORKLOAD...] | -- CMD [ARGS...]", check_doc };
	static struct workload suite[MAX_WORKLOADS], chosen[MAX_WORKLOADS];
	struct tracer_opts topts = { .verbose = verbose };
	struct run_result *runs;
	struct session s;
	enum verdict all = VERDICT_SKIP;
	char err[512];
	int nr_suite, nr = 0, i, j, ret;
	bool need_scratch = false;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	topts.verbose = verbose;

	nr_suite = workload_discover(project_root(), suite, MAX_WORKLOADS);
	if (args.list) {
		for (i = 0; i < nr_suite; i++)
			printf("%-24s %-4s %s\n", suite[i].name,
			       suite[i].kind == WL_FIO ? "fio" : "prog", suite[i].what);
		return EXIT_PASS;
	}
	if (args.cmd) {
		chosen[0].kind = WL_COMMAND;
		snprintf(chosen[0].name, sizeof(chosen[0].name), "%s",
			 strrchr(args.cmd[0], '/') ? strrchr(args.cmd[0], '/') + 1 :
			 args.cmd[0]);
		nr = 1;
	} else if (args.nr_names) {
		for (i = 0; i < args.nr_names; i++) {
			for (j = 0; j < nr_suite; j++)
				if (!strcmp(args.names[i], suite[j].name))
					break;
			if (j == nr_suite) {
				fsaio_err("unknown workload '%s'; 'fsaio check --list' shows them%s",
					  args.names[i], nr_suite ? "" : " (none built: run make)");
				return EXIT_USAGE;
			}
			chosen[nr++] = suite[j];
		}
	} else {
		if (!nr_suite) {
			fsaio_err("no workloads found under %s: run 'make' first",
				  project_root());
			return EXIT_USAGE;
		}
		memcpy(chosen, suite, nr_suite * sizeof(suite[0]));
		nr = nr_suite;
	}
	for (i = 0; i < nr; i++)
		need_scratch |= chosen[i].kind != WL_COMMAND;

	fsaio_install_signals();
	atexit(cleanup_at_exit);
	ret = session_open(&s, &topts, args.record, args.cmd ? args.cmd[0] : "suite");
	if (ret)
		return ret;
	if (need_scratch) {
		fsaio_info("creating a %u MiB %s scratch filesystem on a loop device",
			   SCRATCH_MB, args.fstype);
		if (scratch_setup(&scratch, SCRATCH_MB, args.fstype, err, sizeof(err))) {
			fsaio_err("%s", err);
			session_close(&s);
			return EXIT_ERROR;
		}
	}
	runs = calloc(nr, sizeof(*runs));
	report_ktap_header(stdout, nr);
	fprintf(stdout, "# fsaio %s on %s\n", FSAIO_VERSION, kernel_release());
	for (i = 0; i < nr && !fsaio_interrupted; i++) {
		if (need_scratch && drop_caches())
			fsaio_info("could not drop caches; reads may hit the page cache");
		ret = run_workload(&s, &chosen[i], args.cmd,
				   need_scratch ? scratch.mountpoint : NULL, &runs[i]);
		if (ret) {
			/* Cannot run it at all: bad input, not a failed check. */
			nr = i;
			break;
		}
		report_ktap_run(stdout, i + 1, &runs[i]);
		fflush(stdout);
		all = verdict_worse(all, run_verdict(&runs[i]));
	}
	if (fsaio_interrupted && !ret) {
		fsaio_err("interrupted (signal %d); cleaned up", fsaio_interrupted);
		all = VERDICT_ERROR;
		nr = i;
	}
	if (nr && !ret) {
		uint64_t lost = 0;

		for (i = 0; i < nr; i++) {
			lost += checker_stats(runs[i].checker)->lost;
		}
		printf("# totals over %d run(s): verdict %s, lost events %" PRIu64 "\n",
		       nr, verdict_name(all), lost);
	}
	if (args.json && nr &&
	    report_json_write(args.json, "check", kernel_release(), s.features,
			      runs, nr, err, sizeof(err))) {
		fsaio_err("%s", err);
		all = VERDICT_ERROR;
	}
	for (i = 0; i < nr; i++)
		checker_free(runs[i].checker);
	free(runs);
	scratch_teardown(&scratch);
	session_close(&s);
	if (ret)
		return ret;
	return verdict_exit_code(all);
}

int cmd_list(int argc, char **argv)
{
	char *av[] = { "check", "--list", NULL };

	return cmd_check(2, av);
}

/* ---- replay ---- */

static const struct argp_option replay_options[] = {
	{ "json", 'j', "FILE", 0, "write the JSON summary to FILE" },
	{ "verbose", 'v', NULL, 0, "also print statistics tables" },
	{},
};

static const char *replay_file;

static error_t replay_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		args.json = arg;
		break;
	case 'v':
		verbose = true;
		break;
	case ARGP_KEY_ARG:
		if (replay_file)
			argp_error(state, "one log file at a time");
		replay_file = arg;
		break;
	case ARGP_KEY_END:
		if (!replay_file)
			argp_error(state, "which log? 'fsaio replay FILE' (written by --record)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct argp argp = { replay_options, replay_parse, "FILE",
		"Re-check the invariants on an event log recorded with --record.\v"
		"Each trace segment in the log (one per workload) is checked on its own,\n"
		"with the features of the kernel that recorded it.  A truncated log or a\n"
		"record of an unknown version is an ERROR.  Exit status as 'check'." };
	struct fsaio_log_header h;
	struct checker_config cfg;
	struct run_result *runs = NULL;
	struct checker *cur = NULL;
	struct fsaio_record rec;
	enum verdict all = VERDICT_SKIP;
	char err[512];
	int nr = 0, i, ret;
	FILE *f;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	f = fopen(replay_file, "r");
	if (!f) {
		fsaio_err("cannot open %s: %s", replay_file, strerror(errno));
		return EXIT_USAGE;
	}
	if (fsaio_log_read_header(f, &h, err, sizeof(err))) {
		fsaio_err("%s: %s", replay_file, err);
		fclose(f);
		return EXIT_USAGE;
	}
	cfg = session_checker_config(h.features);
	/* One run per segment; TRACE_END closes a segment. */
	for (;;) {
		ret = fsaio_log_read(f, &rec, err, sizeof(err));
		if (ret == 0)
			break;
		if (!cur) {
			struct run_result *r;

			runs = realloc(runs, (nr + 1) * sizeof(*runs));
			r = &runs[nr++];
			memset(r, 0, sizeof(*r));
			snprintf(r->name, sizeof(r->name), "%.50s#%d", h.label, nr);
			snprintf(r->command, sizeof(r->command), "replay %s", replay_file);
			cur = r->checker = checker_new(&cfg);
		}
		if (ret < 0) {
			checker_note_malformed(cur, err);
			fsaio_err("%s: %s", replay_file, err);
			break;
		}
		checker_feed(cur, &rec);
		if (rec.type == FSAIO_EV_TRACE_END) {
			checker_finish(cur);
			cur = NULL;
		}
	}
	fclose(f);
	if (cur)
		checker_finish(cur);	/* truncated: no TRACE_END, trace_integrity says so */

	report_ktap_header(stdout, nr);
	printf("# replay of %s: recorded on %s\n", replay_file, h.release);
	for (i = 0; i < nr; i++) {
		struct run_result *r = &runs[i];

		set_check(&r->run_checks[RUN_CHECK_EXIT], "workload_exit", VERDICT_SKIP, 0,
			  "not recorded in the event log");
		set_check(&r->run_checks[RUN_CHECK_AGREEMENT], "workload_agreement",
			  VERDICT_SKIP, 0, "not recorded in the event log");
		report_ktap_run(stdout, i + 1, r);
		if (verbose)
			report_text_stats(stdout, checker_stats(r->checker));
		all = verdict_worse(all, run_verdict(r));
	}
	if (!nr) {
		fsaio_err("%s holds no records", replay_file);
		all = VERDICT_ERROR;
	}
	if (args.json && report_json_write(args.json, "replay", h.release, h.features,
					   runs, nr, err, sizeof(err))) {
		fsaio_err("%s", err);
		all = VERDICT_ERROR;
	}
	for (i = 0; i < nr; i++)
		checker_free(runs[i].checker);
	free(runs);
	return verdict_exit_code(all);
}
