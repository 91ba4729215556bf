/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the introspect programs share: CPU pinning, clocks and the jiffy,
 * sample statistics, the time budget and arguments, children that die
 * with the program, the environment line and each check's KTAP lines.
 * Times are nanoseconds in uint64_t unless a name says otherwise.
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

/* ---- clocks ---------------------------------------------------------- */

/*
 * intro_clock_ns() - read @clk in nanoseconds.
 * CLOCK_MONOTONIC is served by the vDSO on the architectures that have
 * one (no syscall); CLOCK_THREAD_CPUTIME_ID and CLOCK_PROCESS_CPUTIME_ID
 * are sum_exec_runtime based (kernel/time/posix-cpu-timers.c), not tick
 * sampled.
 * Return: the time in ns; exits through ksft_exit_fail_perror() if the
 * clock cannot be read (only an invalid clock id can fail).
 */
uint64_t intro_clock_ns(clockid_t clk);

static inline uint64_t intro_now_ns(void)
{
	return intro_clock_ns(CLOCK_MONOTONIC);
}

/*
 * intro_jiffy_ns() - length of one jiffy (1/HZ) in ns: the resolution of
 * CLOCK_MONOTONIC_COARSE is TICK_NSEC (kernel/time/posix-timers.c:
 * posix_get_coarse_res()). 4000000 at HZ=250; 1 ms .. 10 ms for every HZ
 * that Kconfig offers. Exits through ksft_exit_fail_perror() on error.
 */
uint64_t intro_jiffy_ns(void);

/* ---- CPUs ------------------------------------------------------------ */

#define INTRO_MAX_CPUS	1024

/*
 * intro_usable_cpus() - the CPUs this process may run on, from
 * sched_getaffinity(), so taskset and cpuset limits are respected.
 * @cpus: out, up to @max CPU numbers in ascending order.
 * Return: number of usable CPUs (>= 1), or -1 with errno set.
 */
int intro_usable_cpus(int *cpus, int max);

/*
 * intro_pin() - restrict task @pid (0: the calling thread) to CPU @cpu.
 * Return: 0, or -1 with errno set (EINVAL: CPU outside the cpuset,
 * EPERM: not permitted for @pid).
 */
int intro_pin(pid_t pid, int cpu);

/* intro_current_cpu_ok() - true if the calling thread runs on @cpu now. */
bool intro_current_cpu_ok(int cpu);

/* ---- statistics ------------------------------------------------------ */

/* intro_sort() - sort @n doubles ascending, in place. */
void intro_sort(double *v, size_t n);

/*
 * intro_quantile() - the @q quantile of @n samples (any unit), by linear
 * interpolation between the closest ranks (Hyndman & Fan type 7, the
 * default of R and numpy): q = 0 is the minimum, 0.5 the median, 1 the
 * maximum; @q outside [0, 1] is clamped. @sorted false sorts a copy, so
 * the caller's order is kept. Return: the quantile, NAN when @n is 0.
 */
double intro_quantile(const double *v, size_t n, double q, bool sorted);

static inline double intro_median(const double *v, size_t n, bool sorted)
{
	return intro_quantile(v, n, 0.5, sorted);
}

/*
 * intro_theil_sen() - the Theil-Sen slope of @y against @x (@n points, any
 * units): the median of the slopes of every pair of points with distinct x
 * (Sen, JASA 63, 1968), here only of the pairs whose @s (a third figure of
 * each point, > 0; NULL: any) differ by at most @tol of the first's.
 * Points far off the line (up to about 29 % of them) barely move it,
 * unlike a least-squares fit. Time and memory grow as n^2: meant for at
 * most a few hundred points. Return: the slope, NAN with fewer than
 * @min_pairs (at least 1) pairs.
 */
double intro_theil_sen(const double *x, const double *y, const double *s,
		       double tol, size_t n, size_t min_pairs);

/*
 * intro_print_log2_hist() - the evidence a failed check shows: one line
 * "# <check>: bucket_lo_<unit>=2^k bucket_hi_<unit>=2^(k+1) count=N" per
 * non-empty power-of-two bucket of @v (values below 2 go to the first).
 */
void intro_print_log2_hist(const char *check, const double *v, size_t n,
			   const char *unit);

/* ---- arguments and time budget --------------------------------------- */

/*
 * struct intro_prog - what a program tells intro_parse_opts().
 * @usage:     --help text: what the program guards, its checks with their
 *             bounds, what it needs (privilege, kernel options, CPUs).
 * @check_names: &checks[0].name of the program's checks table, whose
 *             @nr_checks rows are @check_size bytes apart: the names
 *             --force-fail accepts.
 * @min_scale: the smallest --scale that still measures enough to decide.
 * @max_scale: the largest --scale whose budget ends inside the runner's
 *             timeout (settings) when each measured operation is a jiffy
 *             slow.
 */
struct intro_prog {
	const char *usage;
	const char * const *check_names;
	size_t nr_checks;
	size_t check_size;
	double min_scale;
	double max_scale;
};

/*
 * struct intro_opts - the parsed arguments. The kselftest runner appends
 * KSELFTEST_<PROG>_ARGS to the command line (kselftest/runner.sh).
 * @scale:           multiply the time budget and sample counts (default 1,
 *                   clamped to [min_scale, max_scale]).
 * @requested_scale: what --scale asked for.
 * @verbose:         print per-sample detail and histograms on pass too.
 */
struct intro_opts {
	double scale;
	double requested_scale;
	bool verbose;
};

/*
 * intro_parse_opts() - parse argv. --help prints @prog->usage and the
 * common options as plain text and exits 0 (no TAP); a bad argument
 * prints the usage to stderr and exits 1. --force-fail=CHECK|all turns
 * the verdict of that check into a FAIL (figures unchanged): it tests
 * how a failure reaches CI's logs and is never on by default; a CHECK
 * not in @prog's checks table is a bad argument. It also sets SIGCHLD
 * to SIG_DFL: a caller that ignored it (inherited across exec) would have
 * the programs' children reaped before they can wait for them.
 */
void intro_parse_opts(int argc, char **argv, const struct intro_prog *prog,
		      struct intro_opts *opts);

/*
 * struct intro_budget - a wall-clock allowance that measurement loops
 * check, so a regressed kernel (every operation a jiffy slower) still
 * ends inside the runner's timeout.
 */
struct intro_budget {
	uint64_t start_ns;
	uint64_t limit_ns;
};

void intro_budget_start(struct intro_budget *b, double seconds);
uint64_t intro_budget_left_ns(const struct intro_budget *b);
double intro_budget_spent_s(const struct intro_budget *b);

/* ---- processes and files --------------------------------------------- */

/*
 * intro_fork() - fork() a child that gets SIGKILL when the calling thread
 * exits (PR_SET_PDEATHSIG, sent by kernel/exit.c:
 * forget_original_parent() when the *thread* that forked it exits: call
 * it from the main thread), so no child outlives the program when the
 * runner's timeout kills it. Return: as fork().
 */
pid_t intro_fork(void);

/* The SKIP reason when fork() or pthread_create() fails with EAGAIN. */
#define INTRO_NO_TASK	"task limit: thread or process creation refused (EAGAIN)"

/*
 * intro_kill_wait() - SIGKILL @pid and reap it; a no-op for @pid <= 0,
 * safe on a child that already exited.
 */
void intro_kill_wait(pid_t pid);

/*
 * intro_read_file() - read the small file @path (a /proc or /sys file)
 * into @buf of @len bytes, NUL-terminated, one trailing newline removed.
 * Return: its length, or -1 with errno set.
 */
ssize_t intro_read_file(const char *path, char *buf, size_t len);

/*
 * intro_cgroup_dir() - the directory of this process's cgroup in the
 * hierarchy of @controller ("memory", "pids", "cpu"). The hierarchy is a
 * v1 "cgroup" mount whose options name @controller, else the v2 "cgroup2"
 * mount (/proc/self/mountinfo); the path is that hierarchy's line of
 * /proc/self/cgroup (v1: the line naming @controller, v2: "0::"), less
 * the mount's root where a subtree is mounted (a container without a
 * cgroup namespace). A v2 directory need not have @controller enabled:
 * its files are then absent.
 * @dir: out, PATH_MAX bytes.
 * @top: out, the length of the mount point: the walk up the hierarchy
 *       with intro_cgroup_parent() ends there.
 * Return: 1 (v1) or 2 (v2); 0 if no such hierarchy is mounted or a file
 * cannot be read.
 */
int intro_cgroup_dir(const char *controller, char *dir, size_t *top);

/*
 * intro_cgroup_parent() - cut @dir to its parent cgroup's directory.
 * Limits such as memory.max and pids.max are charged up the hierarchy, so
 * the cgroup with the least room may be an ancestor.
 * Return: false, with @dir unchanged, when @dir is the mount point @top.
 */
bool intro_cgroup_parent(char *dir, size_t top);

/* ---- environment ----------------------------------------------------- */

/*
 * intro_kconfig() - CONFIG_@name of the running kernel, from
 * /boot/config-$(uname -r), else /proc/config.gz (IKCONFIG_PROC, read
 * through gzip -dc). Return: 'y', 'm', 'n' (not set), or '?' when
 * neither could be read.
 */
char intro_kconfig(const char *name);

/*
 * intro_preempt_model() - "none", "voluntary", "full", "lazy", "rt" or
 * "dynamic" (PREEMPT_DYNAMIC with the mode unknown). "rt" comes from
 * /sys/kernel/realtime (PREEMPT_RT only); the dynamic mode from debugfs
 * sched/preempt, else the last preempt= of the command line
 * (kernel/sched/core.c: setup_preempt_mode()).
 */
const char *intro_preempt_model(void);

/*
 * intro_print_env() - the "# env:" line that says what the verdicts were
 * judged under: kernel release, jiffy and HZ, usable CPUs, hypervisor
 * (x86 CPUID leaf 0x40000000), preempt model, cputime accounting (tick,
 * or vtime on nohz_full CPUs) and --scale. Call after ksft_print_header().
 * Then skips the program when /proc is not mounted for the caller's PID
 * namespace (unshare -p without a new proc): each program reads its
 * children's /proc/PID files.
 */
void intro_print_env(const struct intro_opts *opts);

/* ---- a check's KTAP lines -------------------------------------------- */

/*
 * intro_figures() - print what check @check measured, as
 * "# <check>: key_unit=value ..." (space-separated, each value a number
 * or one token, the bound beside the figure), and keep it for the
 * result line of the same check. A figure that is NaN or infinite was
 * not measured (no samples) and is left out.
 */
__printf(2, 3) void intro_figures(const char *check, const char *fmt, ...);

/*
 * intro_report_prepare() - the part of intro_report() that needs no
 * kselftest.h counters: prints the skip or xfail reason, applies
 * --force-fail to *@result. Return: the figures of the last
 * intro_figures() for @check, or NULL.
 */
const char *intro_report_prepare(const char *check, int *result,
				 const char *reason);

/*
 * intro_report() - the result line of @check through
 * ksft_test_result_code(). @result is KSFT_PASS, KSFT_FAIL, KSFT_SKIP or
 * KSFT_XFAIL; @reason (SKIP and XFAIL) is a constant phrase, printed
 * before the result as "# <check>: skip_reason=words_joined_by_underscores".
 *
 * The name never carries a variable part: LKFT's parser names a result by
 * its description plus the text of a SKIP directive, so a skip reason
 * stays out of the directive. The figures of the last intro_figures() for
 * @check go both before the result (kunit.py's parser gives a result the
 * lines before it) and after the '#' of a PASS, FAIL or XFAIL line
 * (LKFT's gives it the directive text and the lines after it).
 * Inline: kselftest.h's counters are static, one set per program file.
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
