// SPDX-License-Identifier: GPL-2.0
/*
 * fsaio replay: re-check a recorded event log, one run per trace segment,
 * with the same core (decode -> checker) and reports as a live check.  The
 * log is a binary --record log or a text log (core/textlog.h: SystemTap's,
 * stap/fsaio.stp), told apart by its first bytes.
 */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "common.h"
#include "core/decode.h"
#include "core/features.h"
#include "core/textlog.h"
#include "core/waitsite.h"
#include "live/ksyms.h"
#include "report/report.h"

static const char *replay_file;
static const char *text_out;	/* --text FILE */

static const struct argp_option replay_options[] = {
	{ "text", 'T', "FILE", 0, "also write the log's records to FILE as a text log "
	  "(stap/README.md: one line a record, to read or grep)" },
	{},
};

/* One log, binary or text: the next record as fsaio_log_read() says. */
struct log_reader {
	FILE *f;
	bool text;
	unsigned long lineno;
};

static int log_next(struct log_reader *lr, struct fsaio_record *rec, char *err, size_t errlen)
{
	if (lr->text)
		return fsaio_text_read(lr->f, &lr->lineno, rec, err, errlen);
	return fsaio_log_read(lr->f, rec, err, errlen);
}

/* A text log's sleeps come with their stacks only (SystemTap does not
 * classify them): name the frames with the recording kernel's symbols,
 * as the live tracer does (tracer.c enrich_sleep). */
static void classify_sleep(struct fsaio_record *rec, const struct ksyms *syms)
{
	const char *names[FSAIO_STACK_DEPTH];

	if (rec->type != FSAIO_EV_SLEEP || rec->site != FSAIO_SITE_UNKNOWN || !rec->nr_stack)
		return;
	rec->site = classify_wait_site(names, wait_stack_names(rec, ksyms_symbolize,
							       (void *)syms, names));
}

static error_t replay_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'T':
		text_out = arg;
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
	static const struct argp_child children[] = { { &output_argp }, {} };
	static const struct argp argp = { replay_options, replay_parse, "FILE",
		"Re-check the invariants on an event log: one recorded with --record, or\n"
		"a text log written by SystemTap (stap/fsaio-stap.sh, format in\n"
		"stap/README.md).\v"
		"Each trace segment in the log (one per workload) is checked on its own,\n"
		"with the features of the kernel that recorded it.  A truncated log or a\n"
		"record of an unknown version is an ERROR.  A text log's D-state sleeps\n"
		"are classified with the symbols of the kernel that recorded it: replayed\n"
		"elsewhere, the checks that need them SKIP.  Exit status as 'check'.", children };
	struct fsaio_log_header h;
	struct checker_config cfg;
	struct run_result *runs = NULL;
	struct checker *cur = NULL;
	struct fsaio_record rec;
	struct log_reader lr = { 0 };
	FILE *tf = NULL;
	const char *unclassified = NULL;
	enum verdict all = VERDICT_SKIP;
	char err[512];
	int nr = 0, i, ret;
	struct ksyms *syms = NULL;
	bool oom = false, closed = false, cut = false, sealed = false, corrupt = false;
	uint64_t nrec = 0, hash;
	FILE *f;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, NULL))
		return EXIT_USAGE;
	f = fopen(replay_file, "r");
	if (!f) {
		fsaio_err("cannot open %s: %s", replay_file, strerror(errno));
		return EXIT_USAGE;
	}
	lr.f = f;
	lr.text = fsaio_text_detect(f);
	if (lr.text ? fsaio_text_read_header_at(f, &h, &lr.lineno, err, sizeof(err)) :
		      fsaio_log_read_header(f, &h, err, sizeof(err))) {
		fsaio_err("%s: %s", replay_file, err);
		fclose(f);
		return EXIT_USAGE;
	}
	hash = fsaio_header_hash(&h);
	if (text_out) {
		tf = fopen(text_out, "w");
		if (!tf) {
			fsaio_err("cannot write %s: %s", text_out, strerror(errno));
			fclose(f);
			return EXIT_USAGE;
		}
		fsaio_text_write_header(tf, &h);
	}
	/* Stacks name functions only with the kernel that recorded them. */
	if (!strcmp(h.release, kernel_release()))
		syms = ksyms_load(err, sizeof(err));
	if (lr.text && (h.features & FEAT_STACK) && !syms) {
		/* unclassified sleeps would read as "other": not observed */
		h.features &= ~FEAT_STACK;
		unclassified = h.release;
	}
	cfg = checker_config_for(h.features);
	report_set_symbolizer(ksyms_symbolize, syms);
	/* One run per segment; TRACE_END closes a segment. */
	for (;;) {
		ret = log_next(&lr, &rec, err, sizeof(err));
		if (ret == 0)
			break;
		if (closed) {	/* nothing follows the closing record */
			fsaio_err("%s: a record after the log's closing record: not one log",
				  replay_file);
			cut = true;
			break;
		}
		if (ret > 0 && fsaio_is_log_end(&rec)) {
			closed = true;
			sealed = rec.stack[0] == FSAIO_END_SEALED;
			if (sealed && (rec.arg0 != nrec || rec.arg2 != hash)) {
				fsaio_err("%s: corrupt: %" PRIu64 " records whose hash is %#" PRIx64
					  ", but the log was sealed with %" PRIu64 " records, hash %#"
					  PRIx64, replay_file, nrec, hash, (uint64_t)rec.arg0,
					  (uint64_t)rec.arg2);
				corrupt = true;
			}
			if (tf)
				fsaio_text_write(tf, &rec);
			continue;
		}
		if (!cur) {
			struct run_result *r, *more;

			more = realloc(runs, (nr + 1) * sizeof(*runs));
			cur = more ? checker_new(&cfg) : NULL;
			if (!cur) {
				fsaio_err("out of memory after %d trace segments", nr);
				runs = more ? more : runs;
				oom = true;
				break;
			}
			runs = more;
			r = &runs[nr++];
			memset(r, 0, sizeof(*r));
			snprintf(r->name, sizeof(r->name), "%.50s#%d", h.label, nr);
			snprintf(r->command, sizeof(r->command), "replay %s", replay_file);
			r->checker = cur;
		}
		if (ret < 0) {
			checker_note_malformed(cur, err);
			fsaio_err("%s: %s", replay_file, err);
			break;
		}
		if (ret > 0) {	/* as recorded, before replay classifies anything */
			nrec++;
			hash = fsaio_record_hash(hash, &rec);
		}
		if (lr.text && syms)
			classify_sleep(&rec, syms);
		if (tf)
			fsaio_text_write(tf, &rec);
		checker_feed(cur, &rec);
		if (rec.type == FSAIO_EV_TRACE_END) {
			checker_finish(cur);
			cur = NULL;
		}
	}
	fclose(f);
	if (tf && fclose(tf)) {
		fsaio_err("writing %s failed: %s", text_out, strerror(errno));
		all = VERDICT_ERROR;
	}
	if (cur)
		checker_finish(cur);	/* truncated: no TRACE_END, trace_integrity says so */
	if (h.log_version >= FSAIO_LOG_VERSION && !closed && !cut && ret >= 0) {
		/* cut at a segment boundary: every segment read ends well,
		 * but the segments after the cut are gone */
		fsaio_err("%s: cut short after %d trace segment(s): no closing record", replay_file,
			  nr);
		cut = true;
	}

	report_ktap_header(stdout, nr);
	printf("# replay of %s: %srecorded on %s\n", replay_file,
	       lr.text ? "text log " : "", h.release);
	if (corrupt)
		printf("# the log is corrupt: its records are not those it was sealed with;"
		       " the replay is inconclusive\n");
	else if (closed && !sealed)
		printf("# the log is not sealed (no record count and hash): a changed record"
		       " cannot be seen\n");
	if (cut)
		printf("# the log was cut short after %d trace segment(s): the rest is missing,"
		       " the replay is inconclusive\n", nr);
	else if (h.log_version < FSAIO_LOG_VERSION)
		printf("# log version %u has no closing record: a cut at a segment boundary"
		       " cannot be seen\n", h.log_version);
	if (unclassified)
		printf("# sleeps not classified: a text log's stacks need the symbols of %s; "
		       "replay it on that kernel\n", unclassified);
	for (i = 0; i < nr; i++) {
		struct run_result *r = &runs[i];

		invariant_set(&r->run_checks[RUN_CHECK_EXIT], "workload_exit", VERDICT_SKIP, 0,
			  "not recorded in the event log");
		invariant_set(&r->run_checks[RUN_CHECK_RESOURCES], "workload_resources",
			      VERDICT_SKIP, 0, "not recorded in the event log");
		invariant_set(&r->run_checks[RUN_CHECK_AGREEMENT], "workload_agreement",
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
	if (oom || cut || corrupt)
		all = VERDICT_ERROR;
	all = report_json(output_opts.json, "replay", h.release, h.features, runs, nr, all);
	run_results_free(runs, nr);
	report_set_symbolizer(NULL, NULL);
	ksyms_free(syms);
	return verdict_exit_code(all);
}
