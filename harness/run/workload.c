// SPDX-License-Identifier: GPL-2.0
/* Workload discovery and result parsing. */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include "run/workload.h"

/* The first sentence of a source or job file's header comment is its
 * description. */
static void read_what(const char *path, char *what, size_t len)
{
	char line[512];
	size_t used = 0;
	FILE *f = fopen(path, "r");

	what[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && used < len - 1) {
		char *p = line, *dot;

		if (strstr(p, "SPDX-License-Identifier"))
			continue;
		while (*p == ' ' || *p == '\t' || *p == '/' || *p == '*' ||
		       *p == '#' || *p == ';')
			p++;
		p[strcspn(p, "\n")] = '\0';
		if (!*p) {
			if (used)
				break;	/* blank comment line ends the paragraph */
			continue;
		}
		if (!used) {
			/* "name: does X" -> "does X" */
			char *colon = strchr(p, ':');

			if (colon && colon[1] == ' ' && !memchr(p, ' ', colon - p))
				p = colon + 2;
		}
		dot = strstr(p, ". ");
		if (dot)
			dot[1] = '\0';
		used += snprintf(what + used, len - used, "%s%s", used ? " " : "", p);
		if (dot || p[strlen(p) - 1] == '.' || p[strlen(p) - 1] == ':')
			break;
	}
	fclose(f);
}

static int add_dir(const char *dir, const char *srcdir, const char *suffix,
		   enum workload_kind kind, struct workload *out, int n, int max)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name), sl = strlen(suffix);
		struct workload *w = &out[n];
		char src[4096];

		if (de->d_name[0] == '.' || len <= sl ||
		    strcmp(de->d_name + len - sl, suffix))
			continue;
		if (len - sl >= sizeof(w->name))
			continue;
		memcpy(w->name, de->d_name, len - sl);
		w->name[len - sl] = '\0';
		w->kind = kind;
		snprintf(w->path, sizeof(w->path), "%s/%s", dir, de->d_name);
		if (kind == WL_PROGRAM && access(w->path, X_OK))
			continue;
		snprintf(src, sizeof(src), "%s/%s%s", srcdir, w->name,
			 kind == WL_PROGRAM ? ".c" : suffix);
		read_what(src, w->what, sizeof(w->what));
		n++;
	}
	closedir(d);
	return n;
}

static int cmp_workload(const void *a, const void *b)
{
	return strcmp(((const struct workload *)a)->name,
		      ((const struct workload *)b)->name);
}

int workload_discover(const char *root, struct workload *out, int max)
{
	char bin[4096], src[4096], fio[4096];
	int n;

	snprintf(bin, sizeof(bin), "%s/.output/workloads", root);
	snprintf(src, sizeof(src), "%s/workloads", root);
	snprintf(fio, sizeof(fio), "%s/workloads/fio", root);
	/* Programs have no suffix: match every file, suffix "". */
	n = add_dir(bin, src, "", WL_PROGRAM, out, 0, max);
	n = add_dir(fio, fio, ".fio", WL_FIO, out, n, max);
	qsort(out, n, sizeof(*out), cmp_workload);
	return n;
}

int workload_parse_summary(const char *line, struct workload_report *out)
{
	const char *p = strstr(line, "fsaio-workload:");
	int got = 0;

	if (!p)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	snprintf(out->line, sizeof(out->line), "%.*s", (int)strcspn(p, "\n"), p);
	for (p += strlen("fsaio-workload:"); *p; ) {
		char key[32], val[64];
		int used = 0;

		if (sscanf(p, " %31[^= \n]=%63[^ \n]%n", key, val, &used) != 2)
			break;
		p += used;
		if (!strcmp(key, "engine"))
			snprintf(out->engine, sizeof(out->engine), "%s", val), got++;
		else if (!strcmp(key, "submitted"))
			out->submitted = strtoull(val, NULL, 10), got++;
		else if (!strcmp(key, "completed"))
			out->completed = strtoull(val, NULL, 10), got++;
		else if (!strcmp(key, "errors"))
			out->errors = strtoull(val, NULL, 10);
		else if (!strcmp(key, "abandoned"))
			out->abandoned = strtoull(val, NULL, 10);
	}
	if (got < 3)
		return -EINVAL;
	out->valid = 1;
	return 0;
}

static uint64_t jget_u64(json_object *o, const char *a, const char *b)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x))
		return 0;
	if (b && !json_object_object_get_ex(x, b, &x))
		return 0;
	return (uint64_t)json_object_get_int64(x);
}

static double jget_double(json_object *o, const char *a, const char *b, const char *c)
{
	json_object *x;

	if (!json_object_object_get_ex(o, a, &x) ||
	    !json_object_object_get_ex(x, b, &x) ||
	    !json_object_object_get_ex(x, c, &x))
		return 0;
	return json_object_get_double(x);
}

/* A job option: from the job's own options, else the global section. */
static const char *fio_option(json_object *root, json_object *job,
			      const char *name, const char *dflt)
{
	json_object *opts, *e;

	if (json_object_object_get_ex(job, "job options", &opts) &&
	    json_object_object_get_ex(opts, name, &e))
		return json_object_get_string(e);
	if (json_object_object_get_ex(root, "global options", &opts) &&
	    json_object_object_get_ex(opts, name, &e))
		return json_object_get_string(e);
	return dflt;
}

int workload_parse_fio_json(const char *path, struct workload_report *out,
			    char *err, size_t errlen)
{
	json_object *root, *jobs;
	double slat_sum = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	root = json_object_from_file(path);
	if (!root) {
		snprintf(err, errlen, "fio wrote no JSON to %s: %s", path,
			 json_util_get_last_err());
		return -EINVAL;
	}
	if (!json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array)) {
		snprintf(err, errlen, "fio JSON in %s has no jobs array", path);
		json_object_put(root);
		return -EINVAL;
	}
	for (i = 0; i < json_object_array_length(jobs); i++) {
		json_object *job = json_object_array_get_idx(jobs, i);
		static const char *const dirs[] = { "read", "write" };

		const char *verify = fio_option(root, job, "verify", "0");
		const char *rw = fio_option(root, job, "rw", "read");

		snprintf(out->engine, sizeof(out->engine), "%s",
			 fio_option(root, job, "ioengine", "psync"));
		/* fio fills (and checksums) each write buffer of a verify job
		 * before its slat clock stops: a batch's slat includes that
		 * user-space work for the rest of the batch. */
		if (strcmp(verify, "0") && strcmp(verify, "none") && strstr(rw, "write"))
			out->slat_has_fill = 1;
		for (int d = 0; d < 2; d++) {
			uint64_t ios = jget_u64(job, dirs[d], "total_ios");

			out->submitted += ios;
			out->completed += ios;
			slat_sum += ios * jget_double(job, dirs[d], "slat_ns", "mean");
			out->slat_samples += ios;
		}
		out->errors += jget_u64(job, "error", NULL);
	}
	if (out->slat_samples)
		out->slat_mean_ns = slat_sum / out->slat_samples;
	snprintf(out->line, sizeof(out->line),
		 "fio: engine=%s ios=%" PRIu64 " errors=%" PRIu64 " slat_mean_us=%.1f",
		 out->engine, out->submitted, out->errors, out->slat_mean_ns / 1e3);
	out->valid = 1;
	json_object_put(root);
	return 0;
}

const char *workload_root(void)
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
