/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the introspect programs share: CPUs, clocks, sample statistics,
 * arguments and time budget, children, the "# env:" lines and each check's
 * KTAP lines. Times are nanoseconds unless a name says otherwise.
 */
#ifndef INTROSPECT_UTIL_H
#define INTROSPECT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "../kselftest.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define INTRO_MAX_CPUS	1024

/* The SKIP reason when fork() or pthread_create() fails with EAGAIN. */
#define INTRO_NO_TASK	"task limit: thread or process creation refused (EAGAIN)"

/* Exits on an invalid clock; CPU-time clocks count sum_exec_runtime. */
uint64_t intro_clock_ns(clockid_t clk);

static inline uint64_t intro_now_ns(void)
{
	return intro_clock_ns(CLOCK_MONOTONIC);
}

/* TICK_NSEC: CLOCK_MONOTONIC_COARSE's resolution (posix_get_coarse_res()) */
uint64_t intro_jiffy_ns(void);
/* The CPUs of sched_getaffinity(), ascending: count, or -1 and errno. */
int intro_usable_cpus(int *cpus, int max);
/* Pin task @pid (0: the calling thread) to @cpu: 0, or -1 and errno. */
int intro_pin(pid_t pid, int cpu);

void intro_sort(double *v, size_t n);
/* Hyndman & Fan type 7 (R, numpy); @sorted false sorts a copy; n = 0: NAN */
double intro_quantile(const double *v, size_t n, double q, bool sorted);

static inline double intro_median(const double *v, size_t n, bool sorted)
{
	return intro_quantile(v, n, 0.5, sorted);
}

/* "# <check>: bucket_lo_<unit>=.. bucket_hi_<unit>=.. count=N" per 2^k */
void intro_print_log2_hist(const char *check, const double *v, size_t n,
			   const char *unit);

/*
 * A program's --help text and --scale range: the smallest that decides,
 * the largest that ends inside the timeout.
 */
struct intro_prog {
	const char *usage;
	double min_scale;
	double max_scale;
};

struct intro_opts {
	double scale;		/* clamped to [min_scale, max_scale] */
	double requested_scale;
	bool verbose;		/* detail and histograms on pass too */
};

/*
 * --help prints the usage and exits 0 (no TAP); a bad argument or an
 * unknown check exits 1. Resets SIGCHLD to SIG_DFL.
 */
void intro_parse_opts(int argc, char **argv, const struct intro_prog *prog,
		      struct intro_opts *opts);

/* A wall-clock allowance so a regressed kernel ends inside the timeout. */
struct intro_budget {
	uint64_t start_ns;
	uint64_t limit_ns;
};

static inline void intro_budget_start(struct intro_budget *b, double seconds)
{
	b->start_ns = intro_now_ns();
	b->limit_ns = (uint64_t)(seconds * (double)NSEC_PER_SEC);
}

static inline uint64_t intro_budget_left_ns(const struct intro_budget *b)
{
	uint64_t used = intro_now_ns() - b->start_ns;

	return used >= b->limit_ns ? 0 : b->limit_ns - used;
}

static inline double intro_budget_spent_s(const struct intro_budget *b)
{
	return (double)(intro_now_ns() - b->start_ns) / NSEC_PER_SEC;
}

/* fork() a child killed when the calling (main) thread exits */
pid_t intro_fork(void);
/* SIGKILL and reap @pid; a no-op for @pid <= 0. */
void intro_kill_wait(pid_t pid);
/* A small file into @buf, one trailing newline removed: length or -1. */
ssize_t intro_read_file(const char *path, char *buf, size_t len);

/* "none", "voluntary", "full", "lazy", "rt" or "dynamic" (mode unknown) */
const char *intro_preempt_model(void);
/* Skips the program when /proc is not mounted for its PID namespace. */
void intro_print_env(const struct intro_opts *opts);

/*
 * Print "# <check>: key_unit=value ..." (NaN or infinite: not measured,
 * left out) and keep it for the check's result line.
 */
__printf(2, 3) void intro_figures(const char *check, const char *fmt, ...);

/* Prints a SKIP or XFAIL reason, applies --force-fail: the result's figures */
const char *intro_report_prepare(const char *check, int *result,
				 const char *reason);

/*
 * The result of @check (@reason: a constant phrase for SKIP and XFAIL,
 * printed as "# <check>: skip_reason=words_joined"). The name never
 * varies: LKFT names a result by its description plus a SKIP directive.
 * The figures go before the result (kunit.py) and after the '#' of PASS,
 * FAIL and XFAIL (LKFT). Inline: kselftest.h's counters are per file.
 */
static inline void intro_report(const char *check, int result,
				const char *reason)
{
	const char *figures = intro_report_prepare(check, &result, reason);

	if (result == KSFT_SKIP || !figures)
		ksft_test_result_code(result, check, NULL);
	else
		ksft_test_result_code(result, check, "%s", figures);
}

#endif /* INTROSPECT_UTIL_H */
