// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test - unit tests of the statistics helpers of introspect_util on
 * synthetic samples with known answers. KTAP output, run under prove by
 * devel/check. No timing is asserted here.
 */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "introspect_util.h"

#define EPS (1.0 / NSEC_PER_SEC)	/* relative tolerance */

static bool near(double a, double b)
{
	return fabs(a - b) <= EPS * (1 + fabs(b));
}

static void expect(const char *name, double got, double want)
{
	bool ok = near(got, want) || (isnan(got) && isnan(want));

	intro_metric(name, "got=%.9g want=%.9g", got, want);
	intro_result(name, ok ? INTRO_PASS : INTRO_FAIL, NULL);
}

int main(void)
{
	double odd[] = { 9, 1, 5, 3, 7 };	/* sorted: 1 3 5 7 9 */
	double even[] = { 4, 1, 3, 2 };		/* sorted: 1 2 3 4 */
	double one[] = { 42 };
	double trim[] = { 1000, 1, 2, 3, 4, 5, 6, 7, 8, -1000 };
	double seq[101], keep[5], copy[5];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seq); i++)
		seq[ARRAY_SIZE(seq) - 1 - i] = (double)i;	/* 100 .. 0 */
	memcpy(keep, odd, sizeof(odd));

	ksft_print_header();
	ksft_set_plan(20);

	expect("median_odd", intro_median(odd, 5, false), 5);
	expect("median_even", intro_median(even, 4, false), 2.5);
	expect("median_single", intro_median(one, 1, false), 42);
	expect("median_empty_is_nan", intro_median(odd, 0, false), NAN);
	intro_metric("unsorted_input_kept", "first=%g last=%g", odd[0], odd[4]);
	intro_result("unsorted_input_kept",
		     memcmp(odd, keep, sizeof(odd)) ? INTRO_FAIL : INTRO_PASS,
		     NULL);
	expect("quantile_min", intro_quantile(seq, 101, 0, false), 0);
	expect("quantile_max", intro_quantile(seq, 101, 1, false), 100);
	expect("quantile_p_ninety_nine", intro_quantile(seq, 101, 0.99, false),
	       99);
	/* type 7: position q*(n-1) = 0.25*3 = 0.75 between 1 and 2 */
	expect("quantile_interpolates", intro_quantile(even, 4, 0.25, false),
	       1.75);
	expect("quantile_clamps_low", intro_quantile(even, 4, -1, false), 1);
	expect("quantile_clamps_high", intro_quantile(even, 4, 7, false), 4);
	memcpy(copy, odd, sizeof(odd));
	intro_sort(copy, 5);
	expect("quantile_presorted", intro_quantile(copy, 5, 0.5, true), 5);
	/* 10 samples, 10% cut: drop -1000 and 1000, mean of 1..8 */
	expect("trimmed_mean_drops_outliers",
	       intro_trimmed_mean(trim, 10, 0.1, false), 4.5);
	expect("trimmed_mean_zero_is_mean",
	       intro_trimmed_mean(even, 4, 0, false), 2.5);
	/* frac >= 0.5 is clamped to 0.49: 4 samples cut 1 each end */
	expect("trimmed_mean_clamps", intro_trimmed_mean(even, 4, 0.9, false),
	       2.5);
	expect("frac_at_least_half", intro_frac_at_least(even, 4, 3), 0.5);
	expect("frac_at_least_inclusive", intro_frac_at_least(one, 1, 42), 1);
	expect("frac_at_least_none", intro_frac_at_least(seq, 101, 101), 0);
	expect("frac_at_least_empty_is_nan", intro_frac_at_least(seq, 0, 1),
	       NAN);
	intro_sort(seq, 101);
	intro_metric("sort_ascending", "first=%g mid=%g last=%g", seq[0],
		     seq[50], seq[100]);
	intro_result("sort_ascending",
		     seq[0] == 0 && seq[50] == 50 && seq[100] == 100 ?
		     INTRO_PASS : INTRO_FAIL, NULL);
	intro_exit();
}
