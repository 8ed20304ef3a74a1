// SPDX-License-Identifier: GPL-2.0
/* The argp children shared by check, trace and replay. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd/options.h"
#include "common.h"

struct output_opts output_opts;

/* dirname(path) without changing path; "." for a bare name. */
static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

/*
 * An output file the run can write: told before anything is loaded or
 * set up, not after the whole run.  0 or an errno.
 */
static int writable(const char *path)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];
	struct stat st;
	int fd;

	if (!path[0])
		return ENOENT;
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode))
			return EISDIR;
		if (!S_ISREG(st.st_mode))	/* /dev/stdout, a pipe */
			return access(path, W_OK) ? errno : 0;
	} else if (errno != ENOENT) {
		return errno;
	}
	/* Files are written beside themselves and renamed (report/json.c);
	 * root passes access() anywhere, so create one to know. */
	dir_of(path, dir, sizeof(dir));
	snprintf(probe, sizeof(probe), "%s/.fsaio-probe-%d", dir, (int)getpid());
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	unlink(probe);
	return 0;
}

/* a and b name one file (existing or to be created). */
static bool same_file(const char *a, const char *b)
{
	char da[PATH_MAX], db[PATH_MAX], ra[PATH_MAX], rb[PATH_MAX];
	char ta[PATH_MAX], tb[PATH_MAX];
	struct stat sa, sb;

	if (!stat(a, &sa) && !stat(b, &sb))
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	dir_of(a, da, sizeof(da));
	dir_of(b, db, sizeof(db));
	snprintf(ta, sizeof(ta), "%s", a);
	snprintf(tb, sizeof(tb), "%s", b);
	return realpath(da, ra) && realpath(db, rb) && !strcmp(ra, rb) &&
	       !strcmp(basename(ta), basename(tb));
}

static void need_writable(struct argp_state *state, const char *opt, const char *path)
{
	int e = path ? writable(path) : 0;

	if (e)
		argp_error(state, "%s %s: cannot write there (%s)", opt, path, strerror(e));
}

static const struct argp_option output_options[] = {
	{ "json", 'j', "FILE", 0, "write the JSON summary to FILE" },
	{ "verbose", 'v', NULL, 0, "print feature probes, workload output and all histograms" },
	{},
};

static error_t output_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'j':
		output_opts.json = arg;
		return 0;
	case 'v':
		verbose = true;
		return 0;
	case ARGP_KEY_END:
		need_writable(state, "--json", output_opts.json);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp output_argp = { output_options, output_parse };

/* long-only options: keys no short option takes */
#define OPT_RINGBUF_MAX	0x100

static const struct argp_option record_options[] = {
	{ "record", 'r', "FILE", 0, "record every event to FILE (for 'fsaio replay')" },
	{ "ringbuf-mb", 'b', "MB", 0, "ring buffer size in MiB to start with, a power of two "
	  "(default: check 32, trace 8); lost records make a run an ERROR" },
	{ "ringbuf-max-mb", OPT_RINGBUF_MAX, "MB", 0, "grow the ring buffer, doubling it while "
	  "records arrive faster than they are read, up to MB MiB (default: 8 times the "
	  "start; the start: fixed size).  Memory: up to twice MB while tracing" },
	{},
};

long option_number(struct argp_state *state, const char *what, const char *arg,
		   long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	/* "010" is ten, not octal 8: base 10 above; no sign, no blanks */
	if (errno || end == arg || *end || !isdigit((unsigned char)arg[0]) || v < min || v > max)
		argp_error(state, "%s wants a number from %ld to %ld, not '%s'", what, min, max, arg);
	return v;
}

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	long v;

	switch (key) {
	case 'r':
		output_opts.record = arg;
		return 0;
	case 'b':
		v = option_number(state, "--ringbuf-mb", arg, 1, 1024);
		if (v & (v - 1))
			argp_error(state, "--ringbuf-mb wants a power of two from 1 to 1024, not '%s'",
				   arg);
		output_opts.ringbuf_mb = v;
		return 0;
	case OPT_RINGBUF_MAX:
		v = option_number(state, "--ringbuf-max-mb", arg, 1, 1024);
		if (v & (v - 1))
			argp_error(state, "--ringbuf-max-mb wants a power of two from 1 to 1024, "
				   "not '%s'", arg);
		output_opts.ringbuf_max_mb = v;
		return 0;
	case ARGP_KEY_END:
		if (output_opts.ringbuf_max_mb && output_opts.ringbuf_mb > output_opts.ringbuf_max_mb)
			argp_error(state, "--ringbuf-max-mb %zu is below --ringbuf-mb %zu: give "
				   "a maximum at least the start", output_opts.ringbuf_max_mb,
				   output_opts.ringbuf_mb);
		need_writable(state, "--record", output_opts.record);
		if (output_opts.record && output_opts.json &&
		    same_file(output_opts.record, output_opts.json))
			argp_error(state, "--record and --json name one file (%s): give two",
				   output_opts.json);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp record_argp = { record_options, record_parse };
