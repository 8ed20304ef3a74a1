// SPDX-License-Identifier: GPL-2.0
/* libwl: the common flags, the fsaio-workload: line, exit statuses. */
#include <getopt.h>
#include <time.h>

#include "wl.h"

/* Parse "123", "64k", "4m", "1g" (binary units). Returns 0 or -1. */
static int wl_parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

void wl_getopt(int argc, char **argv, struct wl_opts *o, const char *help,
	       const char *extra_opts, int (*extra)(int c, const char *arg))
{
	char optstr[64];
	int c;

	snprintf(optstr, sizeof(optstr), "d:n:s:h%s", extra_opts ? extra_opts : "");
	if (!o->dir)
		o->dir = ".";
	while ((c = getopt(argc, argv, optstr)) != -1) {
		switch (c) {
		case 'd':
			o->dir = optarg;
			break;
		case 'n':
			o->count = strtoul(optarg, NULL, 0);
			if (!o->count || o->count > WL_MAX_COUNT)
				goto usage;
			break;
		case 's':
			if (wl_parse_size(optarg, &o->size) || !o->size)
				goto usage;
			o->size_set = true;
			break;
		case 'h':
			printf("usage: %s [-d DIR] [-n COUNT] [-s FILESIZE]%s\n%s",
			       o->name, extra_opts ? " [case flags]" : "", help);
			exit(EXIT_PASS);
		default:
			if (extra && strchr(extra_opts ? extra_opts : "", c) &&
			    extra(c, optarg) == 0)
				break;
			goto usage;
		}
	}
	if (optind == argc) {
		struct stat sb;

		if (stat(o->dir, &sb) == 0 && S_ISDIR(sb.st_mode))
			return;
		fprintf(stderr, "%s: -d %s: not a directory\n", o->name, o->dir);
		exit(EXIT_USAGE);
	}
usage:
	fprintf(stderr, "usage: %s [-d DIR] [-n COUNT(1..%u)] [-s FILESIZE] (-h for help)\n",
		o->name, WL_MAX_COUNT);
	exit(EXIT_USAGE);
}

int wl_finish(const struct wl_opts *o, const char *engine,
	      const struct wl_stats *st)
{
	bool ok = !st->errors && st->submitted == st->completed + st->abandoned;
	char ab[40] = "";

	if (st->abandoned)
		snprintf(ab, sizeof(ab), " abandoned=%" PRIu64, st->abandoned);
	printf("fsaio-workload: name=%s engine=%s submitted=%" PRIu64
	       " completed=%" PRIu64 " errors=%" PRIu64 " bytes=%" PRIu64
	       " verified=%" PRIu64 "%s\n", o->name, engine, st->submitted,
	       st->completed, st->errors, st->bytes, st->verified, ab);
	fflush(stdout);
	return ok ? EXIT_PASS : EXIT_FAIL;
}

void wl_skip(const char *what, int err)
{
	printf("# SKIP %s: %s\n", what, strerror(err));
	exit(EXIT_SKIP);
}

void wl_die(const char *what, int err)
{
	fprintf(stderr, "error: %s: %s\n", what, strerror(err));
	exit(EXIT_FAIL);
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
