// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test - unit tests of the statistics helpers of introspect_util, and
 * of ptrace_utime's Theil-Sen slope, on synthetic samples with known
 * answers. KTAP output, run under prove by devel/check. No timing is
 * asserted here.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "introspect_util.h"
/* theil_sen() is static in ptrace_utime.c, its one user: built in here */
#define main ptrace_utime_main
#include "ptrace_utime.c"
#undef main

#define EPS (1.0 / NSEC_PER_SEC)	/* relative tolerance */
#define HIST_TEXT_MAX	1024

static bool near(double a, double b)
{
	return fabs(a - b) <= EPS * (1 + fabs(b));
}

static void expect(const char *name, double got, double want)
{
	bool ok = near(got, want) || (isnan(got) && isnan(want));

	intro_figures(name, "got=%.9g want=%.9g", got, want);
	intro_report(name, ok ? KSFT_PASS : KSFT_FAIL, NULL);
}

/*
 * What intro_print_log2_hist() prints for @v, captured from stdout into
 * @text. Return: its length, or -1.
 */
static ssize_t capture_hist(const double *v, size_t n, char *text, size_t len)
{
	FILE *tmp = tmpfile();
	int saved;
	size_t got;

	if (!tmp)
		return -1;
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		fclose(tmp);
		return -1;
	}
	intro_print_log2_hist("hist", v, n, "us");
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	got = fread(text, 1, len - 1, tmp);
	text[got] = '\0';
	fclose(tmp);
	return got;
}

/*
 * y = 2x + 3 exactly; then one point of five far off the line: 6 of the 10
 * pair slopes stay 2 and the 4 through the outlier lie above 2, so the
 * median (mean of the 5th and 6th) is still exactly 2.
 */
static void test_theil_sen(void)
{
	const double x[] = { 1, 2, 3, 4, 5 }, line[] = { 5, 7, 9, 11, 13 };
	const double off[] = { 5, 7, 9, 11, 1000 }, same[] = { 4, 4, 4 };

	expect("theil_sen_line", theil_sen(x, line, NULL, 0, 5, 1), 2);
	expect("theil_sen_outlier", theil_sen(x, off, NULL, 0, 5, 1), 2);
	expect("theil_sen_two_points",
	       theil_sen(x + 1, off + 3, NULL, 0, 2, 1), 989);
	expect("theil_sen_one_point_is_nan",
	       theil_sen(x, line, NULL, 0, 1, 1), NAN);
	expect("theil_sen_equal_x_is_nan",
	       theil_sen(same, line, NULL, 0, 3, 1), NAN);
}

/*
 * Two speeds: x = 1-3 at speed 1 on y = 2x, x = 4-6 at speed 2 on
 * y = 2x + 60. The 6 pairs within a speed have slope 2; the 9 across have
 * 2 + 60 / (j - i): 14, 17, 17, 22, 22, 22, 32, 32, 62. Across all 15 the
 * median (the 8th) is 17; within each speed exactly 2; with fewer than the
 * pairs asked for, NAN.
 */
static void test_theil_sen_same_speed(void)
{
	const double x[] = { 1, 2, 3, 4, 5, 6 };
	const double y[] = { 2, 4, 6, 68, 70, 72 }, s[] = { 1, 1, 1, 2, 2, 2 };

	expect("theil_sen_across_speeds",
	       theil_sen(x, y, NULL, 0, 6, 1), 17);
	expect("theil_sen_same_speed", theil_sen(x, y, s, 0.02, 6, 1), 2);
	expect("theil_sen_too_few_pairs_is_nan",
	       theil_sen(x, y, s, 0.02, 6, 7), NAN);
}

/* below 2 in the first bucket, powers of two start a bucket */
static void test_log2_hist(void)
{
	static const double v[] = { 0.5, 1.9, 2, 3.9, 4, 7.5, 1000, 1024 };
	static const char want[] =
		"# hist: bucket_lo_us=0 bucket_hi_us=2 count=2\n"
		"# hist: bucket_lo_us=2 bucket_hi_us=4 count=2\n"
		"# hist: bucket_lo_us=4 bucket_hi_us=8 count=2\n"
		"# hist: bucket_lo_us=512 bucket_hi_us=1024 count=1\n"
		"# hist: bucket_lo_us=1024 bucket_hi_us=2048 count=1\n";
	char text[HIST_TEXT_MAX];
	ssize_t len;
	bool ok;

	len = capture_hist(v, ARRAY_SIZE(v), text, sizeof(text));
	ok = len >= 0 && !strcmp(text, want);
	intro_figures("log2_hist_buckets", "chars=%zd want_chars=%zu matched=%d",
		      len, strlen(want), ok);
	if (!ok && len > 0)
		ksft_print_msg("log2_hist_buckets: got_lines_follow=1\n%s",
			       text);
	intro_report("log2_hist_buckets", ok ? KSFT_PASS : KSFT_FAIL, NULL);

	len = capture_hist(v, 0, text, sizeof(text));
	intro_figures("log2_hist_empty", "chars=%zd want_chars=0", len);
	intro_report("log2_hist_empty", len == 0 ? KSFT_PASS : KSFT_FAIL,
		     NULL);
}

int main(void)
{
	double odd[] = { 9, 1, 5, 3, 7 };	/* sorted: 1 3 5 7 9 */
	double even[] = { 4, 1, 3, 2 };		/* sorted: 1 2 3 4 */
	double one[] = { 42 };
	double seq[101], keep[5], copy[5];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(seq); i++)
		seq[ARRAY_SIZE(seq) - 1 - i] = (double)i;	/* 100 .. 0 */
	memcpy(keep, odd, sizeof(odd));

	ksft_print_header();
	ksft_set_plan(24);

	expect("median_odd", intro_median(odd, 5, false), 5);
	expect("median_even", intro_median(even, 4, false), 2.5);
	expect("median_single", intro_median(one, 1, false), 42);
	expect("median_empty_is_nan", intro_median(odd, 0, false), NAN);
	intro_figures("unsorted_input_kept", "first=%g last=%g", odd[0], odd[4]);
	intro_report("unsorted_input_kept",
		     memcmp(odd, keep, sizeof(odd)) ? KSFT_FAIL : KSFT_PASS,
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
	intro_figures("sort_small", "first=%g mid=%g last=%g", copy[0],
		      copy[2], copy[4]);
	intro_report("sort_small", copy[0] == 1 && copy[2] == 5 &&
		     copy[4] == 9 ? KSFT_PASS : KSFT_FAIL, NULL);
	intro_sort(seq, 101);
	intro_figures("sort_ascending", "first=%g mid=%g last=%g", seq[0],
		      seq[50], seq[100]);
	intro_report("sort_ascending", seq[0] == 0 && seq[50] == 50 &&
		     seq[100] == 100 ? KSFT_PASS : KSFT_FAIL, NULL);
	test_theil_sen();
	test_theil_sen_same_speed();
	test_log2_hist();
	ksft_finished();
}
