// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio check / list: run workloads (or any command) under tracing, join
 * their own results with the trace (run/), print KTAP, write JSON (report/).
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "common.h"
#include "live/ksyms.h"
#include "live/session.h"
#include "report/report.h"
#include "run/agreement.h"
#include "run/cgroup.h"
#include "run/child.h"
#include "run/resources.h"
#include "run/scratch.h"
#include "run/workload.h"

#define MAX_WORKLOADS 64
#define SCRATCH_MB 512

static struct check_args {
	const char *fstype;
	int timeout;
	bool list;
	bool exclusive;		/* fsaio alone on the machine: judge system-wide counters */
	bool per_event;		/* no folding in BPF: every record to user space */
	bool no_fentry;		/* tracepoints only, as SystemTap's source sees */
	int settle_ms;		/* workload_resources: wait this long for frees */
	int skip_code;		/* -- CMD exiting with it skipped itself; 0 none */
	char **names;
	int nr_names;
	char **cmd;		/* after "--" */
} args = { .fstype = "ext4", .timeout = 300, .settle_ms = 10000,
	   .skip_code = COMMAND_SKIP_CODE };

static const struct argp_option check_options[] = {
	{ "timeout", 't', "SEC", 0, "kill a workload still running after SEC seconds (default 300)" },
	{ "fs", 'f', "TYPE", 0, "scratch filesystem for the suite: ext4 (default) or xfs" },
	{ "list", 'l', NULL, 0, "list the workloads and exit" },
	{ "exclusive", 'x', NULL, 0, "fsaio runs alone here (CI, a VM): a system-wide "
	  "resource (fs.aio-nr) not back to its baseline after a workload FAILs "
	  "workload_resources; without it that is a SKIP" },
	{ "settle", 's', "MS", 0, "workload_resources: give the last frees (RCU, deferred "
	  "fput, exit work) up to MS ms after the workload's processes are gone "
	  "(default 10000: before 6.7 struct file is freed by call_rcu(), 3 s "
	  "after the last fput on 6.1 under QEMU TCG; the wait ends as soon as "
	  "the counts are back); a count still up then gets 3 x MS more to show "
	  "a late free (PASS, said so) from a leak (FAIL), until the first leak "
	  "of the run" },
	{ "per-event", 'E', NULL, 0, "send every event to user space: no folding of "
	  "plain io_uring and libaio lifecycles or sleeps in the kernel (--record "
	  "implies it)" },
	{ "no-fentry", 'F', NULL, 0, "use tracepoints only, even where fentry loads "
	  "(what stap/fsaio.stp observes: its logs compare record for record)" },
	{ "skip-code", 'k', "N", 0, "'-- CMD' exiting with N skipped itself: the run is a "
	  "SKIP, not a failure (default 77, the automake and liburing convention; 0: "
	  "none).  The suite's workloads skip with 4, kselftest's KSFT_SKIP" },
	{},
};

/* A week: a workload that runs longer is not a test. */
#define MAX_TIMEOUT_S	(7 * 86400)

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'f':
		if (strcmp(arg, "ext4") && strcmp(arg, "xfs"))
			argp_error(state, "--fs takes ext4 or xfs, not '%s'", arg);
		args.fstype = arg;
		break;
	case 'l':
		args.list = true;
		break;
	case 'x':
		args.exclusive = true;
		break;
	case 'E':
		args.per_event = true;
		break;
	case 'F':
		args.no_fentry = true;
		break;
	case 's':
		args.settle_ms = option_number(state, "--settle (milliseconds)", arg, 0, 600000);
		break;
	case 'k':
		args.skip_code = option_number(state, "--skip-code", arg, 0, 255);
		break;
	case 't':
		args.timeout = option_number(state, "--timeout (seconds)", arg, 1, MAX_TIMEOUT_S);
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
	"known not to provide it (stock libaio buffered reads sleep in io_submit).\n\n"
	"A request with nothing but a plain lifecycle (io_uring: its submit and last\n"
	"CQE; libaio: its submit, completion and one reap) is counted in the kernel\n"
	"and sends no record, and sleeps are summed per stack (-E/--per-event and\n"
	"--record send every event); anything else said about a request sends its\n"
	"whole history.\n"
	"If fsaio is killed (SIGKILL, the OOM killer), the command it ran dies with it\n"
	"(PR_SET_PDEATHSIG); what that command started, its cgroup and the suite's\n"
	"scratch mount are removed by the next 'fsaio check' as root.\n"
	"Exit status: 0 pass, 1 fail, 4 skip, 5 error (no verdict), 64 usage.";

static int track(pid_t pid, void *ctx)
{
	return tracer_track_pid(((struct session *)ctx)->tracer, pid);
}

/* workload_resources' waits over the run (run/resources.h) */
static struct settle_policy settle;

static int run_workload(struct session *s, const struct workload *w,
			char *const *cmd, const char *dir, struct run_result *r)
{
	char fio_json[PATH_MAX] = "", err[512];
	char *argv[8];
	struct resources res;
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

	resources_read(&res);
	if (session_begin(s))
		return EXIT_ERROR;
	if (session_consume_start(s)) {
		checker_free(session_end(s));
		return EXIT_ERROR;
	}
	t0 = now_seconds();
	ret = child_start(&c, cmd, dir, track, s);
	if (ret) {
		checker_free(session_end(s));
		return ret;
	}
	child_wait(&c, args.timeout);
	r->wall_seconds = now_seconds() - t0;
	r->checker = session_end(s);

	if (w->kind == WL_FIO && !c.timed_out && !fsaio_interrupted &&
	    workload_parse_fio_json(fio_json, &c.report, err, sizeof(err)))
		printf("    # %s\n", err);
	if (fio_json[0])
		unlink(fio_json);
	snprintf(r->summary_line, sizeof(r->summary_line), "%s", c.report.line);
	check_exit(r, w, &c, args.timeout,
		   w->kind == WL_COMMAND ? args.skip_code : EXIT_SKIP);
	check_agreement(r, w, &c);
	check_resources(&r->run_checks[RUN_CHECK_RESOURCES], &res, args.exclusive, &settle);
	return 0;
}

static struct scratch scratch;

static void cleanup_at_exit(void)
{
	/* Processes first: they may hold the scratch mount busy. */
	run_cgroup_destroy_all();
	scratch_teardown_all();
}

int cmd_check(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{ &output_argp }, { &record_argp }, {},
	};
	static const struct argp argp = { check_options, check_parse,
		"[WORKLOAD...] | -- CMD [ARGS...]", check_doc, children };
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
	/* A lost record makes a verdict inconclusive: check buffers bursts of
	 * a program that calls io_uring_enter in a tight loop (2-3M records/s,
	 * ~13 ms of 8 MiB) through a consumer's scheduling hiccup. */
	topts.ringbuf_bytes = (output_opts.ringbuf_mb ? output_opts.ringbuf_mb : 32) << 20;
	topts.ringbuf_max_bytes = output_opts.ringbuf_max_mb << 20;
	topts.fold = !args.per_event && !output_opts.record;
	topts.no_fentry = args.no_fentry;
	settle.settle_ms = args.settle_ms;
	settle.late_ms = 4 * args.settle_ms;

	nr_suite = workload_discover(workload_root(), suite, MAX_WORKLOADS);
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
				  workload_root());
			return EXIT_USAGE;
		}
		memcpy(chosen, suite, nr_suite * sizeof(suite[0]));
		nr = nr_suite;
	}
	for (i = 0; i < nr; i++)
		need_scratch |= chosen[i].kind != WL_COMMAND;

	fsaio_install_signals();
	atexit(cleanup_at_exit);
	/* What an fsaio killed before its teardown left: its commands still
	 * running in their cgroups, its scratch mounts (check --help). */
	if (geteuid() == 0) {
		run_cgroup_reap_orphans();
		scratch_reap_orphans();
	}
	ret = session_open(&s, &topts, output_opts.record, args.cmd ? args.cmd[0] : "suite");
	if (ret)
		return ret;
	report_set_symbolizer(ksyms_symbolize, (void *)tracer_ksyms(s.tracer));
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
	if (!runs) {
		fsaio_err("out of memory");
		scratch_teardown(&scratch);
		session_close(&s);
		return EXIT_ERROR;
	}
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
	if (nr)
		all = report_json(output_opts.json, "check", kernel_release(), s.features,
				  runs, nr, all);
	run_results_free(runs, nr);
	scratch_teardown(&scratch);
	report_set_symbolizer(NULL, NULL);	/* the tracer's symbols go */
	if (session_close(&s))
		all = VERDICT_ERROR;	/* --record log incomplete */
	if (ret)
		return ret;
	return verdict_exit_code(all);
}

int cmd_list(int argc, char **argv)
{
	char *av[] = { "check", "--list", NULL };

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: fsaio list\nList the workloads of the default suite"
		       " (the same as 'fsaio check --list').\n");
		return EXIT_PASS;
	}
	if (argc > 1) {
		fsaio_err("list: unexpected argument '%s' (it takes none)", argv[1]);
		return EXIT_USAGE;
	}
	return cmd_check(2, av);
}
