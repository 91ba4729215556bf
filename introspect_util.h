/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the four introspect programs share: CPU pinning,
 * clocks, the jiffy, sample statistics, the time budget, per-program
 * arguments, the environment line, and KTAP result/metric lines.
 *
 * Nothing here is speculative: every helper is used by at least two
 * programs. Times are nanoseconds in uint64_t unless a name says otherwise.
 */
#ifndef INTROSPECT_UTIL_H
#define INTROSPECT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

#include "../kselftest.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

/* ---- clocks ---------------------------------------------------------- */

/*
 * intro_clock_ns() - read @clk in nanoseconds.
 * @clk: any clockid_t; CLOCK_MONOTONIC is served by the vDSO on x86_64,
 *       arm64 and others (no syscall), CLOCK_PROCESS_CPUTIME_ID and
 *       CLOCK_THREAD_CPUTIME_ID are precise (sum_exec_runtime based, see
 *       kernel/time/posix-cpu-timers.c), not tick-sampled.
 * Return: the time in ns; exits through ksft_exit_fail_msg() if the clock
 *         cannot be read (it can only fail for an invalid clock id).
 */
uint64_t intro_clock_ns(clockid_t clk);

static inline uint64_t intro_now_ns(void)
{
	return intro_clock_ns(CLOCK_MONOTONIC);
}

/*
 * intro_jiffy_ns() - length of one jiffy (1/HZ) in ns.
 * The resolution of CLOCK_MONOTONIC_COARSE is TICK_NSEC
 * (kernel/time/posix-timers.c: posix_get_coarse_res() returns
 * ktime_to_timespec64(KTIME_LOW_RES), KTIME_LOW_RES == TICK_NSEC), so this
 * is 4000000 at HZ=250 and 1000000 at HZ=1000. Range 1 ms .. 10 ms for
 * every HZ Kconfig offers.
 * Return: ns per jiffy; exits through ksft_exit_fail_msg() on error.
 */
uint64_t intro_jiffy_ns(void);

/* ---- CPUs ------------------------------------------------------------ */

#define INTRO_MAX_CPUS	1024

/*
 * intro_usable_cpus() - the CPUs this process may run on.
 * @cpus: out, up to @max CPU numbers in ascending order.
 * Reads sched_getaffinity(), so taskset, cpusets and cgroup cpuset limits
 * are respected (sysconf(_SC_NPROCESSORS_ONLN) is not).
 * Return: number of usable CPUs (>= 1), or -1 with errno set.
 */
int intro_usable_cpus(int *cpus, int max);

/*
 * intro_pin() - restrict task @pid (0: the calling thread) to CPU @cpu.
 * Return: 0, or -1 with errno set (EINVAL: CPU not allowed by the cpuset,
 *         EPERM: not permitted for @pid).
 */
int intro_pin(pid_t pid, int cpu);

/*
 * intro_current_cpu_ok() - true if the calling thread runs on @cpu now.
 * Used after intro_pin() to detect a pin that a cpuset change undid.
 */
bool intro_current_cpu_ok(int cpu);

/* ---- statistics ------------------------------------------------------ */

/*
 * All statistics take a sample array of @n doubles in any unit; @n == 0
 * gives NAN. intro_sort() sorts in place (ascending); the others sort a
 * copy when @sorted is false, so the caller's order is kept.
 */
void intro_sort(double *v, size_t n);

/*
 * intro_quantile() - the @q quantile, 0 <= q <= 1, by linear
 * interpolation between the two closest ranks (Hyndman & Fan type 7, the
 * default of R and numpy): q = 0 is the minimum, q = 1 the maximum,
 * q = 0.5 the median. @q outside [0, 1] is clamped.
 */
double intro_quantile(const double *v, size_t n, double q, bool sorted);

static inline double intro_median(const double *v, size_t n, bool sorted)
{
	return intro_quantile(v, n, 0.5, sorted);
}

/*
 * intro_trimmed_mean() - mean of the samples left after dropping
 * floor(@frac * n) samples from each end; 0 <= frac < 0.5 (clamped).
 */
double intro_trimmed_mean(const double *v, size_t n, double frac, bool sorted);

/*
 * intro_frac_at_least() - fraction (0..1) of samples >= @threshold.
 */
double intro_frac_at_least(const double *v, size_t n, double threshold);

/*
 * intro_print_log2_hist() - print a histogram of @v with power-of-two
 * buckets [2^k, 2^(k+1)) as KTAP diagnostic lines, one line per non-empty
 * bucket: "# <label>: [lo, hi) <unit>: count". Values below 1 go to the
 * first bucket. Used on a failed check to show where the mode is.
 */
void intro_print_log2_hist(const char *label, const double *v, size_t n,
			   const char *unit);

/* ---- time budget and arguments -------------------------------------- */

/*
 * struct intro_opts - the per-program arguments. The kselftest runner
 * appends the environment variable KSELFTEST_<PROG>_ARGS (program name
 * upper-cased, non-alphanumerics as '_') to the command line
 * (tools/testing/selftests/kselftest/runner.sh), so these arrive in argv:
 *   -s, --scale F   multiply the time budget and the sample counts by F
 *                   (0.05 .. 20; default 1)
 *   -v, --verbose   print per-sample detail and histograms on pass too
 *   -h, --help      print usage and exit 0 (no TAP)
 */
struct intro_opts {
	double scale;
	bool verbose;
};

/*
 * intro_parse_opts() - parse argv into @opts; on a bad argument prints the
 * usage and exits through ksft_exit_fail_msg() (exit 1).
 */
void intro_parse_opts(int argc, char **argv, struct intro_opts *opts);

/*
 * struct intro_budget - a wall-clock allowance that measurement loops
 * check, so a regressed kernel (every operation a jiffy slower) still
 * ends well inside the runner's `settings` timeout.
 */
struct intro_budget {
	uint64_t start_ns;
	uint64_t limit_ns;
};

/* intro_budget_start() - start a budget of @seconds (> 0) from now. */
void intro_budget_start(struct intro_budget *b, double seconds);

/* intro_budget_left_ns() - ns left, 0 once spent. */
uint64_t intro_budget_left_ns(const struct intro_budget *b);

/* intro_budget_spent_s() - seconds used since intro_budget_start(). */
double intro_budget_spent_s(const struct intro_budget *b);

/* ---- processes ------------------------------------------------------- */

/*
 * intro_fork() - fork() a child that is killed with SIGKILL when the
 * calling thread exits (PR_SET_PDEATHSIG; see kernel/exit.c:
 * forget_original_parent() sends pdeath_signal when the *thread* that
 * forked it exits, so call this from the main thread). This is what
 * guarantees that no child outlives the program when the runner's
 * timeout kills it. Also closes the race where the parent died before
 * prctl() ran.
 * Return: as fork(): 0 in the child, the pid in the parent, -1 on error.
 */
pid_t intro_fork(void);

/*
 * intro_kill_wait() - SIGKILL @pid and reap it; for error paths. Safe on a
 * pid that already exited but was not reaped, a no-op for @pid <= 0.
 */
void intro_kill_wait(pid_t pid);

/* ---- environment ----------------------------------------------------- */

/*
 * intro_kconfig() - value of CONFIG_@name in the running kernel's config
 * (/proc/config.gz is not read: no zlib; /boot/config-$(uname -r) is).
 * Return: 'y', 'm', 'n' (known to be unset), or '?' when no config file
 *         could be read.
 */
char intro_kconfig(const char *name);

/*
 * intro_preempt_model() - "none", "voluntary", "full", "lazy", "rt" or
 * "unknown". Read from /sys/kernel/debug/sched/preempt (PREEMPT_DYNAMIC,
 * needs debugfs), else /sys/kernel/realtime (PREEMPT_RT), else the
 * "PREEMPT_RT"/"PREEMPT"/"PREEMPT_DYNAMIC" words of uname -v
 * (init/build-utsversion.sh). A PREEMPT_DYNAMIC kernel without debugfs
 * is judged from "preempt=" on /proc/cmdline, else from the Kconfig
 * default in /boot/config-*, else reported as "dynamic".
 */
const char *intro_preempt_model(void);

/*
 * intro_hypervisor() - the hypervisor vendor from CPUID leaf 0x40000000
 * (x86 only, when the "hypervisor" CPUID bit is set), e.g. "KVMKVMKVM",
 * "Microsoft Hv", "TCGTCGTCGTCG"; "none" on bare metal, "unknown" where it
 * cannot be told.
 */
const char *intro_hypervisor(void);

/*
 * intro_print_env() - print the one line describing what the verdicts
 * were judged under: kernel release, jiffy length and HZ, usable CPUs,
 * hypervisor, preempt model, cputime accounting mode. Call once after
 * ksft_print_header().
 */
void intro_print_env(void);

/* ---- KTAP lines ------------------------------------------------------ */

/*
 * intro_metric() - the diagnostic line that precedes a check's result:
 * "# <check>: <key_unit=value ...>". @fmt should be space-separated
 * key=value pairs with the unit in the key (median_us=8.2 bound_us=1000).
 */
#ifdef __printf		/* kselftest.h has it since 6.9, not in 6.1 */
__printf(2, 3)
#endif
void intro_metric(const char *check, const char *fmt, ...);

enum intro_verdict {
	INTRO_PASS,
	INTRO_FAIL,
	INTRO_SKIP,
	INTRO_XFAIL,
};

/*
 * intro_result() - print one result line and count it.
 * @name:   the stable snake_case check name (no digits, no '#').
 * @v:      the verdict.
 * @reason: for INTRO_SKIP / INTRO_XFAIL a constant reason (no numbers),
 *          printed as the KTAP directive text; ignored otherwise.
 * Gives "ok N name", "not ok N name", "ok N name # SKIP reason" or
 * "ok N name # XFAIL reason". kselftest.h's own ksft_test_result_skip()
 * omits the name before '#' and ksft_test_result_code() is not in 6.1, so
 * the counting is done here (static inline: the counters are per
 * translation unit).
 */
static inline void intro_result(const char *name, enum intro_verdict v,
				const char *reason)
{
	switch (v) {
	case INTRO_PASS:
		ksft_test_result_pass("%s\n", name);
		break;
	case INTRO_FAIL:
		ksft_test_result_fail("%s\n", name);
		break;
	case INTRO_SKIP:
		ksft_inc_xskip_cnt();
		printf("ok %u %s # SKIP %s\n", ksft_test_num(), name, reason);
		break;
	case INTRO_XFAIL:
		ksft_inc_xfail_cnt();
		printf("ok %u %s # XFAIL %s\n", ksft_test_num(), name, reason);
		break;
	}
}

/*
 * intro_exit() - print the totals and exit the kselftest way: 1 if any
 * check failed or the plan was not met, 4 if every check skipped, else 0.
 * (ksft_finished() exits 0 when everything skipped.) Not marked
 * __noreturn: 6.1's kselftest.h does not define it, so the programs do
 * not use it either.
 */
static inline void intro_exit(void)
{
	unsigned int done = ksft_get_pass_cnt() + ksft_get_xfail_cnt() +
			    ksft_get_xskip_cnt();

	ksft_print_cnts();
	if (ksft_get_fail_cnt() || ksft_get_error_cnt() ||
	    ksft_get_xpass_cnt() || done != ksft_plan)
		exit(KSFT_FAIL);
	if (!ksft_get_pass_cnt() && !ksft_get_xfail_cnt())
		exit(KSFT_SKIP);
	exit(KSFT_PASS);
}

#endif /* INTROSPECT_UTIL_H */
