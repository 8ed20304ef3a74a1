// SPDX-License-Identifier: GPL-2.0
/* Sample statistics for result files (stats.h), with GSL. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include "results/stats.h"

int sample_stats(const double *v, size_t n, struct sample_stats *out)
{
	double *s;

	memset(out, 0, sizeof(*out));
	out->stddev = NAN;
	if (!n)
		return -EINVAL;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(*s));
	gsl_sort(s, 1, n);
	out->n = n;
	out->mean = gsl_stats_mean(s, 1, n);
	out->median = gsl_stats_median_from_sorted_data(s, 1, n);
	out->min = s[0];
	out->max = s[n - 1];
	if (n >= 2)
		out->stddev = gsl_stats_sd_m(s, 1, n, out->mean);
	free(s);
	return 0;
}

static bool is_number(json_object *x)
{
	return json_object_is_type(x, json_type_int) ||
	       json_object_is_type(x, json_type_double);
}

int sample_stats_json(json_object *arr, struct sample_stats *out)
{
	size_t i, n = 0, len = json_object_array_length(arr);
	double *v = malloc((len ? len : 1) * sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		json_object *x = json_object_array_get_idx(arr, i);

		if (is_number(x))
			v[n++] = json_object_get_double(x);
	}
	ret = sample_stats(v, n, out);
	free(v);
	return ret;
}

static json_object *rounded(double x, int digits)
{
	double p;

	if (isnan(x))
		return NULL;
	if (digits < 0)
		return json_object_new_double(x);
	p = pow(10, digits);
	x = round(x * p) / p;
	if (digits == 0 && fabs(x) < 9e15)
		return json_object_new_int64((int64_t)x);
	return json_object_new_double(x);
}

int bench_figure_fill(json_object *fig, char *err, size_t errlen)
{
	json_object *stat, *samples, *digits;
	struct sample_stats st;
	const char *how;
	int d = -1;

	if (!json_object_object_get_ex(fig, "stat", &stat))
		return 0;
	how = json_object_get_string(stat);
	if (!how || (strcmp(how, "median") && strcmp(how, "mean"))) {
		snprintf(err, errlen, "\"stat\" must be \"median\" or \"mean\", not \"%s\"",
			 how ? how : "null");
		return -EINVAL;
	}
	if (!json_object_object_get_ex(fig, "samples", &samples) ||
	    !json_object_is_type(samples, json_type_array)) {
		snprintf(err, errlen, "a figure with \"stat\" needs a \"samples\" array");
		return -EINVAL;
	}
	if (json_object_object_get_ex(fig, "digits", &digits))
		d = json_object_get_int(digits);
	if (sample_stats_json(samples, &st)) {
		/* nothing measured: value and noise unknown */
		json_object_object_add(fig, "value", NULL);
		json_object_object_add(fig, "stddev", NULL);
		return 1;
	}
	json_object_object_add(fig, "value",
			       rounded(strcmp(how, "mean") ? st.median : st.mean, d));
	json_object_object_add(fig, "stddev", rounded(st.stddev, d));
	if (json_object_object_get_ex(fig, "spread_pct", NULL))
		json_object_object_add(fig, "spread_pct", st.mean ?
				       rounded((st.max - st.min) / st.mean * 100, 4) : NULL);
	return 1;
}
