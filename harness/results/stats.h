/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The noise statistics of fsaio's result files, in one place: the value of
 * a figure (median or mean of its samples) and its run-to-run noise (the
 * sample standard deviation).  Used by `fsaio compare`, `fsaio bench show`
 * and, through `fsaio bench stats`, by make bench (ci/bench/), so a figure
 * means the same thing wherever it is read.  Computed with GSL.
 */
#ifndef FSAIO_RESULTS_STATS_H
#define FSAIO_RESULTS_STATS_H

#include <stddef.h>
#include <json-c/json.h>

struct sample_stats {
	size_t n;
	double mean, median, min, max;
	double stddev;		/* sample standard deviation (n - 1); NAN if n < 2 */
};

/* Statistics of n values (any order; v is left as it was).  0, or -EINVAL
 * when n is 0, -ENOMEM. */
int sample_stats(const double *v, size_t n, struct sample_stats *out);

/* The same over the numbers of a JSON array (other members are skipped). */
int sample_stats_json(json_object *arr, struct sample_stats *out);

/*
 * Fill in a bench figure from its samples.  The figure (a JSON object) says
 * how it is reduced: "stat": "median" | "mean" gives "value", "stddev" is
 * always set (null with fewer than two samples), "digits": N rounds both to
 * N decimals, and a "spread_pct" key present gets (max - min) / mean * 100.
 * Objects without "stat" are left alone.  Returns 1 if filled, 0 if left
 * alone, -EINVAL with a reason in err.
 */
int bench_figure_fill(json_object *fig, char *err, size_t errlen);

#endif
