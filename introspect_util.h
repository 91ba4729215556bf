/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the introspect programs share: CPU pinning, clocks, sample
 * statistics, arguments and time budget, children that die with the
 * program, the environment line and each check's KTAP lines. Times are
 * nanoseconds in uint64_t unless a name says otherwise.
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

/*
 * Exits through ksft_exit_fail_perror() on an invalid clock. The CPU-time
 * clocks are sum_exec_runtime based (kernel/time/posix-cpu-timers.c).
 */
uint64_t intro_clock_ns(clockid_t clk);

static inline uint64_t intro_now_ns(void)
{
	return intro_clock_ns(CLOCK_MONOTONIC);
}

/*
 * One jiffy in ns: the resolution of CLOCK_MONOTONIC_COARSE is TICK_NSEC
 * (kernel/time/posix-timers.c: posix_get_coarse_res()).
 */
uint64_t intro_jiffy_ns(void);

/* The CPUs of sched_getaffinity(), ascending: count, or -1 and errno. */
int intro_usable_cpus(int *cpus, int max);
/* Pin task @pid (0: the calling thread) to @cpu: 0, or -1 and errno. */
int intro_pin(pid_t pid, int cpu);
bool intro_current_cpu_ok(int cpu);

void intro_sort(double *v, size_t n);

/*
 * The @q quantile of @n samples, interpolated between the closest ranks
 * (Hyndman & Fan type 7, as R and numpy); @sorted false sorts a copy.
 * NAN when @n is 0.
 */
double intro_quantile(const double *v, size_t n, double q, bool sorted);

static inline double intro_median(const double *v, size_t n, bool sorted)
{
	return intro_quantile(v, n, 0.5, sorted);
}

/*
 * Theil-Sen slope of @y against @x (Sen, JASA 63, 1968): the median slope
 * of the pairs with distinct x whose @s (NULL: any) differ by at most
 * @tol of the first's. n^2 pairs; NAN with fewer than @min_pairs.
 */
double intro_theil_sen(const double *x, const double *y, const double *s,
		       double tol, size_t n, size_t min_pairs);

/* "# <check>: bucket_lo_<unit>=.. bucket_hi_<unit>=.. count=N" per 2^k */
void intro_print_log2_hist(const char *check, const double *v, size_t n,
			   const char *unit);

/*
 * What a program tells intro_parse_opts(): its --help text (checks with
 * bounds, what it needs), its checks table (&checks[0].name, rows
 * @check_size bytes apart: the names --force-fail takes) and the --scale
 * range: the smallest that still decides, the largest that ends inside
 * the runner's timeout when every measured operation is a jiffy slow.
 */
struct intro_prog {
	const char *usage;
	const char * const *check_names;
	size_t nr_checks;
	size_t check_size;
	double min_scale;
	double max_scale;
};

struct intro_opts {
	double scale;		/* clamped to [min_scale, max_scale] */
	double requested_scale;
	bool verbose;		/* detail and histograms on pass too */
};

/*
 * --help prints the usage and exits 0 (no TAP), a bad argument exits 1.
 * --force-fail=CHECK|all reports that check FAIL, figures unchanged. The
 * runner appends KSELFTEST_<PROG>_ARGS (kselftest/runner.sh). Also resets
 * SIGCHLD to SIG_DFL: an inherited SIG_IGN would reap the children.
 */
void intro_parse_opts(int argc, char **argv, const struct intro_prog *prog,
		      struct intro_opts *opts);

/* A wall-clock allowance so a regressed kernel ends inside the timeout. */
struct intro_budget {
	uint64_t start_ns;
	uint64_t limit_ns;
};

void intro_budget_start(struct intro_budget *b, double seconds);
uint64_t intro_budget_left_ns(const struct intro_budget *b);
double intro_budget_spent_s(const struct intro_budget *b);

/*
 * fork() a child that gets SIGKILL when the calling thread exits
 * (PR_SET_PDEATHSIG, kernel/exit.c: forget_original_parent()): call it
 * from the main thread.
 */
pid_t intro_fork(void);
/* SIGKILL and reap @pid; a no-op for @pid <= 0. */
void intro_kill_wait(pid_t pid);
/* A small file into @buf, one trailing newline removed: length or -1. */
ssize_t intro_read_file(const char *path, char *buf, size_t len);

/*
 * The directory of this process's cgroup in @controller's hierarchy (a v1
 * mount naming it, else cgroup2), less the mount's root; @top gets the
 * mount point's length. Return: 1 or 2 (version), 0 if none.
 */
int intro_cgroup_dir(const char *controller, char *dir, size_t *top);
/* Cut @dir to its parent; false at the mount point @top. */
bool intro_cgroup_parent(char *dir, size_t top);

/* CONFIG_@name: 'y', 'm', 'n', or '?' when no config can be read. */
char intro_kconfig(const char *name);
/* "none", "voluntary", "full", "lazy", "rt" or "dynamic" (mode unknown) */
const char *intro_preempt_model(void);

/*
 * The "# env:" lines: kernel, jiffy, CPUs, hypervisor, preempt model,
 * cputime accounting, scale. Skips the program when /proc is not mounted
 * for its PID namespace. Call after ksft_print_header().
 */
void intro_print_env(const struct intro_opts *opts);

/*
 * Print "# <check>: key_unit=value ..." and keep it for the check's result
 * line; a NaN or infinite figure was not measured and is left out.
 */
__printf(2, 3) void intro_figures(const char *check, const char *fmt, ...);

/*
 * Prints the skip or xfail reason and applies --force-fail to *@result.
 * Return: the figures of the last intro_figures() for @check, or NULL.
 */
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
