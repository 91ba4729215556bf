// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_utime - the user time of a child stopped at every syscall by
 * PTRACE_SYSCALL is accounted like the user time of an untraced child.
 *
 * Guards against: "Commit 1e5a74059f9 broke utime measurement of ptraced()
 * processes" (Artem Anisimov, LKML, Dec 2011). With tracer and tracee on
 * one CPU, 3.2-rc6 charged a child alternating user work with pread()
 * +17% utime when traced (2.6.32: +5%), varying wildly with the work per
 * syscall, and in a VM ten times *less*. 1e5a74059f9 ("sched: Fix
 * cross-sched-class wakeup preemption", 2.6.37) made check_preempt_curr()
 * (today wakeup_preempt()) skip the rq clock update after a wakeup
 * preemption, which moved time between tracer and tracee and between user
 * and system time.
 *
 * Invariant: with tick-sampled cputime, wait4()'s ru_utime of such a child
 * matches the user time the child measures itself with the vDSO clock
 * around its work segments, traced or not, within the tick sampling error;
 * ru_utime + ru_stime (the precise runtime) covers that work and agrees
 * with /proc/PID/schedstat to within one jiffy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect_util.h"

/* ---- bounds ---------------------------------------------------------- */

#define UNTRACED_LO		0.85
#define UNTRACED_HI		1.20
#define UNTRACED_MAX_SIGMA	0.05

#define SHORT_LO		0.30
#define SHORT_HI		3.00
#define SHORT_MAX_SIGMA		0.20

#define MEDIUM_LO		0.55
#define MEDIUM_HI		1.45
#define MEDIUM_MAX_SIGMA	0.12

#define LONG_LO			0.70
#define LONG_HI			1.30
#define LONG_MAX_SIGMA		0.06

#define RATIO_LO		0.55
#define RATIO_HI		1.45
#define RATIO_MAX_SIGMA		0.12

#define BIAS_LO_US		-1.50
#define BIAS_HI_US		2.50
#define BIAS_MAX_SIGMA_US	0.50

#define COVER_LO		0.97

#define CROSS_LO		0.50
#define CROSS_HI		2.00
#define CROSS_MAX_SIGMA		0.10

/* ---- plan ------------------------------------------------------------ */

#define BUDGET_S	18.0	/* whole program at --scale 1 */
#define REPS		3	/* interleaved repeats per configuration */
#define SEG_CAP		(2u << 20)	/* work segments a run can record */
#define RATE_SAMPLES	65536	/* segments sampled for the median rate */
/* a segment longer than this beyond twice its expected length was preempted */
#define PREEMPT_SLACK_NS	50000.0
#define RECALIBRATE_SEGS	32	/* child re-times its work this often */

enum level { SHORT, MEDIUM, LONG, NR_LEVELS };

/*
 * A run ends when the child has timed truth_ms of user work (enough
 * expected user ticks) or after max_s of wall time (a slow or loaded
 * machine, a regressed kernel), whichever comes first.
 */
static const struct work_level {
	const char *name;
	double work_us;		/* mean user work between two syscalls */
	double truth_ms;	/* traced run: user work to time */
	double max_s;		/* traced run: wall time cap */
	double untraced_truth_ms;
	double untraced_max_s;
} levels[NR_LEVELS] = {
	[SHORT]  = { "short",    2.0,  60, 1.8, 100, 0.25 },
	[MEDIUM] = { "medium",  10.0,  80, 0.8, 100, 0.25 },
	[LONG]   = { "long",   100.0, 150, 0.6, 100, 0.30 },
};

#define CROSS_LEVEL	LONG
#define CROSS_TRUTH_MS	120
#define CROSS_MAX_S	1.0

/* ---- workload: the tracee ------------------------------------------- */

struct seg {
	unsigned int iters;
	unsigned int ns;
};

/* shared with the child (MAP_SHARED), filled before it exits */
struct share {
	unsigned long nsegs;
	struct seg seg[SEG_CAP];
};

struct run_cfg {
	bool traced;
	int tracer_cpu;
	int tracee_cpu;
	double work_ns;		/* mean work per segment */
	double ns_per_iter;	/* first guess, re-timed by the child */
	double truth_ns;	/* stop after this much timed work */
	double max_ns;		/* or after this much wall time */
	unsigned int seed;
};

enum child_exit {
	CHILD_OK = 0,
	CHILD_NO_PIN = 10,
	CHILD_NO_TRACEME,
	CHILD_NO_PREAD,
};

static unsigned long sink;

/* one load and one store per iteration, like a volatile increment */
static void spin(unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters; i++) {
		sink++;
		__asm__ __volatile__("" : : : "memory");
	}
}

static unsigned int xorshift(unsigned int *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * The tracee: alternate a randomised user-work segment (uniform in
 * [mean/2, 3*mean/2) increments, so it cannot phase-lock with the tick)
 * with one pread(). Each segment is timed with the vDSO CLOCK_MONOTONIC,
 * from the return of a pread() to the entry of the next one; the mean is
 * re-timed every RECALIBRATE_SEGS segments because the vCPU speed drifts.
 * No other syscall runs in the loop.
 */
static void tracee_main(const struct run_cfg *cfg, struct share *sh, int fd)
{
	unsigned long long t0, t1, deadline, ns;
	double mean = cfg->work_ns / cfg->ns_per_iter;
	double done_ns = 0, acc_ns = 0, acc_iters = 0;
	unsigned long iters, span, n = 0;
	unsigned int x = cfg->seed | 1;
	char buf[64];

	if (cfg->tracee_cpu != cfg->tracer_cpu &&
	    (intro_pin(0, cfg->tracee_cpu) ||
	     !intro_current_cpu_ok(cfg->tracee_cpu)))
		_exit(CHILD_NO_PIN);
	if (cfg->traced) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(CHILD_NO_TRACEME);
		raise(SIGSTOP);
	}
	t0 = intro_now_ns();
	deadline = t0 + (unsigned long long)cfg->max_ns;
	while (n < SEG_CAP) {
		span = mean >= 2 ? (unsigned long)mean : 2;
		iters = span / 2 + xorshift(&x) % span;
		spin(iters);
		t1 = intro_now_ns();
		ns = t1 - t0;
		sh->seg[n].iters = (unsigned int)iters;
		sh->seg[n].ns = ns > ~0u ? ~0u : (unsigned int)ns;
		n++;
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			_exit(CHILD_NO_PREAD);
		if (ns < 4 * cfg->work_ns) {
			done_ns += ns;
			acc_ns += ns;
			acc_iters += iters;
		}
		if (n % RECALIBRATE_SEGS == 0 && acc_ns > 0) {
			mean = cfg->work_ns * acc_iters / acc_ns;
			acc_ns = 0;
			acc_iters = 0;
		}
		if (done_ns >= cfg->truth_ns || t1 >= deadline)
			break;
		t0 = intro_now_ns();
	}
	sh->nsegs = n;
	_exit(CHILD_OK);
}

/* ---- measurement: the tracer ---------------------------------------- */

struct run {
	bool valid;
	double utime_ns;	/* wait4() ru_utime */
	double stime_ns;	/* wait4() ru_stime */
	double truth_ns;	/* user work timed by the child */
	double excluded_ns;	/* preempted time removed from the truth */
	double sched_ns;	/* schedstat runtime at the exit stop */
	double syscalls;
	double stops;		/* syscall stops seen by the tracer */
	double wall_ns;
};

/* SIGALRM only interrupts wait4() (no SA_RESTART): a hung run ends */
static void on_alarm(int sig)
{
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * NSEC_PER_SEC +
	       (double)tv->tv_usec * NSEC_PER_USEC;
}

static double read_schedstat_ns(pid_t pid)
{
	char path[64], buf[128];
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NAN;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return NAN;
	buf[len] = '\0';
	return strtod(buf, NULL);
}

/* wait for @pid; EINTR means the watchdog fired */
static int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	return wait4(pid, status, __WALL, ru) == pid ? 0 : -1;
}

/*
 * Resume the tracee at every stop with PTRACE_SYSCALL; at the
 * PTRACE_EVENT_EXIT stop read its schedstat runtime. ru_* are taken by
 * the final wait4() only: reading them earlier would move the
 * cputime_adjust() monotonicity floor (prev_cputime).
 */
static int trace_tracee(pid_t pid, struct run *r, struct rusage *ru)
{
	int st, sig;

	if (wait_child(pid, &st, NULL) || !WIFSTOPPED(st) ||
	    WSTOPSIG(st) != SIGSTOP)
		return -1;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT |
			    PTRACE_O_EXITKILL)) ||
	    ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
		return -1;
	for (;;) {
		if (wait_child(pid, &st, NULL) || !WIFSTOPPED(st))
			return -1;
		sig = WSTOPSIG(st);
		if (sig == (SIGTRAP | 0x80)) {
			r->stops++;
			sig = 0;
		} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			r->sched_ns = read_schedstat_ns(pid);
			if (ptrace(PTRACE_CONT, pid, NULL, NULL))
				return -1;
			break;
		} else if (sig == SIGTRAP) {
			sig = 0;
		}
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			return -1;
	}
	if (wait_child(pid, &st, ru))
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == CHILD_OK ? 0 : -1;
}

/*
 * The child's truth: the sum of its timed segments, where a segment that
 * took more than twice its expected length plus PREEMPT_SLACK_NS (it was
 * preempted, or the vCPU was stolen) counts at the run's median rate.
 */
static void derive_truth(const struct share *sh, struct run *r)
{
	static double rate[RATE_SAMPLES];
	unsigned long i, n = sh->nsegs, stride, m = 0;
	double med, expect, ns;

	if (!n || n > SEG_CAP) {
		r->valid = false;
		return;
	}
	stride = n / RATE_SAMPLES + 1;
	for (i = 0; i < n && m < RATE_SAMPLES; i += stride)
		rate[m++] = (double)sh->seg[i].ns / sh->seg[i].iters;
	med = intro_median(rate, m, false);
	r->truth_ns = 0;
	r->excluded_ns = 0;
	for (i = 0; i < n; i++) {
		expect = med * sh->seg[i].iters;
		ns = sh->seg[i].ns;
		if (ns > 2 * expect + PREEMPT_SLACK_NS) {
			r->excluded_ns += ns - expect;
			ns = expect;
		}
		r->truth_ns += ns;
	}
	r->syscalls = (double)n;
}

static struct share *share;
static int pread_fd = -1;

/* One run of the tracee: fork, (trace), reap, derive. */
static void measure(const struct run_cfg *cfg, struct run *r)
{
	struct rusage ru;
	unsigned long long t0 = intro_now_ns();
	unsigned int dog;
	pid_t pid;
	int st, err;

	memset(r, 0, sizeof(*r));
	r->sched_ns = NAN;
	share->nsegs = 0;
	if (intro_pin(0, cfg->tracer_cpu))
		return;
	dog = (unsigned int)(2 * cfg->max_ns / NSEC_PER_SEC) + 10;
	alarm(dog);
	pid = intro_fork();
	if (pid < 0) {
		alarm(0);
		return;
	}
	if (!pid)
		tracee_main(cfg, share, pread_fd);
	if (cfg->traced)
		err = trace_tracee(pid, r, &ru);
	else
		err = wait_child(pid, &st, &ru) || !WIFEXITED(st) ||
		      WEXITSTATUS(st) != CHILD_OK;
	alarm(0);
	if (err) {
		intro_kill_wait(pid);
		return;
	}
	r->wall_ns = (double)(intro_now_ns() - t0);
	r->utime_ns = tv_ns(&ru.ru_utime);
	r->stime_ns = tv_ns(&ru.ru_stime);
	r->valid = true;
	derive_truth(share, r);
	/* more stops than two per pread: the clock read was a syscall */
	if (cfg->traced && r->stops > 2 * r->syscalls + 16)
		r->valid = false;
}

/* ns per spin() increment on @cpu: median of short timed loops */
static double ns_per_iter(int cpu)
{
	double v[31];
	unsigned long long t0;
	size_t i;

	intro_pin(0, cpu);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		t0 = intro_now_ns();
		spin(1 << 16);
		v[i] = (double)(intro_now_ns() - t0) / (1 << 16);
	}
	return intro_median(v, ARRAY_SIZE(v), false);
}

/* ---- the collected runs and what is derived from them --------------- */

static struct {
	struct run untraced[NR_LEVELS][REPS];
	struct run traced[NR_LEVELS][REPS];
	struct run cross[REPS];
	bool have_cross;
	int same_cpu, other_cpu;
	double jiffy_ns;
	double ns_per_iter;
	struct intro_opts opts;
} lab;

/*
 * The valid runs of one configuration, pooled: the tick samples of all
 * its runs judged together (sums), and the per-run spread for the log.
 */
struct pool {
	int runs;
	double utime, stime, truth, syscalls;
	double med, min, max;	/* per-run ru_utime / truth */
};

static struct pool pool_runs(const struct run *runs)
{
	struct pool p = { 0 };
	double v[REPS];
	int i;

	for (i = 0; i < REPS; i++) {
		if (!runs[i].valid)
			continue;
		p.utime += runs[i].utime_ns;
		p.stime += runs[i].stime_ns;
		p.truth += runs[i].truth_ns;
		p.syscalls += runs[i].syscalls;
		v[p.runs++] = runs[i].utime_ns / runs[i].truth_ns;
	}
	p.med = intro_median(v, p.runs, false);
	p.min = intro_quantile(v, p.runs, 0, false);
	p.max = intro_quantile(v, p.runs, 1, false);
	return p;
}

static double pool_ratio(const struct pool *p)
{
	return p->utime / p->truth;
}

/* ru_utime - truth per syscall, in us */
static double pool_bias_us(const struct pool *p)
{
	return (p->utime - p->truth) / p->syscalls / NSEC_PER_USEC;
}

/*
 * Relative 1-sigma error of the pooled ru_utime from tick sampling: the
 * N = rtime/jiffy ticks that hit the child fall in user mode with
 * p = truth/rtime, and cputime_adjust() scales the user share to rtime,
 * so sigma = sqrt((1 - p) / (p N)) = sqrt((rtime - truth) jiffy /
 * (truth rtime)). It does not depend on ru_utime, so a broken utime
 * cannot turn a decision into a skip.
 */
static double pool_sigma(const struct pool *p)
{
	double rt = p->utime + p->stime;

	if (p->truth <= 0 || rt <= 0)
		return INFINITY;
	if (rt <= p->truth)
		return sqrt(lab.jiffy_ns / rt);
	return sqrt((rt - p->truth) * lab.jiffy_ns / (p->truth * rt));
}

/* ---- checks ---------------------------------------------------------- */

struct check {
	const char *name;
	void (*judge)(const struct check *c);
	int level;
	double lo, hi;
	double max_sigma;	/* decide only when the tick resolves this */
};

static void verdict(const struct check *c, int runs, double sigma, bool pass)
{
	if (runs < REPS)
		intro_result(c->name, INTRO_SKIP,
			     "too few runs completed in the time budget");
	else if (!(sigma <= c->max_sigma))
		intro_result(c->name, INTRO_SKIP, "too few ticks to decide");
	else
		intro_result(c->name, pass ? INTRO_PASS : INTRO_FAIL, NULL);
}

static void judge_error(const struct check *c, const struct run *runs)
{
	struct pool p = pool_runs(runs);
	double r = pool_ratio(&p);

	intro_metric(c->name,
		     "ratio=%.3f run_median_ratio=%.3f run_min_ratio=%.3f run_max_ratio=%.3f runs=%d work_us=%.1f user_ticks=%.0f sigma_ratio=%.3f max_sigma_ratio=%.3f lo_ratio=%.2f hi_ratio=%.2f",
		     r, p.med, p.min, p.max, p.runs, levels[c->level].work_us,
		     p.truth / lab.jiffy_ns, pool_sigma(&p), c->max_sigma,
		     c->lo, c->hi);
	verdict(c, p.runs, pool_sigma(&p), r >= c->lo && r <= c->hi);
}

/* untraced: medium and long work pooled (short work has more untimed user code) */
static void judge_untraced(const struct check *c)
{
	struct run both[REPS];
	struct pool p;
	int i, k = 0;
	double r;

	for (i = 0; i < REPS; i++) {
		both[i] = lab.untraced[MEDIUM][i];
		both[i].utime_ns += lab.untraced[LONG][i].utime_ns;
		both[i].stime_ns += lab.untraced[LONG][i].stime_ns;
		both[i].truth_ns += lab.untraced[LONG][i].truth_ns;
		both[i].syscalls += lab.untraced[LONG][i].syscalls;
		both[i].valid = both[i].valid && lab.untraced[LONG][i].valid;
		k += both[i].valid;
	}
	p = pool_runs(both);
	r = pool_ratio(&p);
	intro_metric(c->name,
		     "ratio=%.3f run_median_ratio=%.3f run_min_ratio=%.3f run_max_ratio=%.3f runs=%d user_ticks=%.0f sigma_ratio=%.3f max_sigma_ratio=%.3f lo_ratio=%.2f hi_ratio=%.2f",
		     r, p.med, p.min, p.max, k, p.truth / lab.jiffy_ns,
		     pool_sigma(&p), c->max_sigma, c->lo, c->hi);
	verdict(c, p.runs, pool_sigma(&p), r >= c->lo && r <= c->hi);
}

static void judge_traced(const struct check *c)
{
	judge_error(c, lab.traced[c->level]);
}

static void judge_cross(const struct check *c)
{
	struct pool p = pool_runs(lab.cross);
	double r = pool_ratio(&p);

	intro_metric(c->name,
		     "ratio=%.3f run_median_ratio=%.3f run_min_ratio=%.3f run_max_ratio=%.3f bias_us=%.2f runs=%d work_us=%.1f user_ticks=%.0f sigma_ratio=%.3f max_sigma_ratio=%.3f lo_ratio=%.2f hi_ratio=%.2f",
		     r, p.med, p.min, p.max, pool_bias_us(&p), p.runs,
		     levels[CROSS_LEVEL].work_us, p.truth / lab.jiffy_ns,
		     pool_sigma(&p), c->max_sigma, c->lo, c->hi);
	if (!lab.have_cross)
		intro_result(c->name, INTRO_SKIP, "needs two usable CPUs");
	else
		verdict(c, p.runs, pool_sigma(&p), r >= c->lo && r <= c->hi);
}

/* traced error / untraced error at the same work, interleaved runs */
static void judge_ratio(const struct check *c)
{
	struct pool t = pool_runs(lab.traced[c->level]);
	struct pool u = pool_runs(lab.untraced[c->level]);
	double r = pool_ratio(&t) / pool_ratio(&u);
	double sigma = hypot(pool_sigma(&t), pool_sigma(&u));

	intro_metric(c->name,
		     "ratio=%.3f traced_ratio=%.3f untraced_ratio=%.3f runs=%d work_us=%.1f sigma_ratio=%.3f max_sigma_ratio=%.3f lo_ratio=%.2f hi_ratio=%.2f",
		     r, pool_ratio(&t), pool_ratio(&u),
		     t.runs < u.runs ? t.runs : u.runs,
		     levels[c->level].work_us, sigma, c->max_sigma, c->lo,
		     c->hi);
	verdict(c, t.runs < u.runs ? t.runs : u.runs, sigma,
		r >= c->lo && r <= c->hi);
}

/* (ru_utime - truth) / syscalls, traced */
static void judge_bias(const struct check *c)
{
	struct pool p = pool_runs(lab.traced[c->level]);
	double b = pool_bias_us(&p);
	double sigma_us = pool_sigma(&p) * p.truth / p.syscalls /
			  NSEC_PER_USEC;

	intro_metric(c->name,
		     "bias_us=%.2f runs=%d work_us=%.1f syscalls=%.0f sigma_us=%.2f max_sigma_us=%.2f lo_us=%.2f hi_us=%.2f",
		     b, p.runs, levels[c->level].work_us, p.syscalls, sigma_us,
		     c->max_sigma, c->lo, c->hi);
	verdict(c, p.runs, sigma_us, b >= c->lo && b <= c->hi);
}

/* ru_utime + ru_stime / truth, traced, the lowest over the work levels */
static void judge_cover(const struct check *c)
{
	double worst = INFINITY;
	int l, runs = REPS;
	struct pool p;

	for (l = 0; l < NR_LEVELS; l++) {
		p = pool_runs(lab.traced[l]);
		if (p.runs < runs)
			runs = p.runs;
		worst = fmin(worst, (p.utime + p.stime) / p.truth);
	}
	intro_metric(c->name, "min_ratio=%.3f runs=%d lo_ratio=%.2f",
		     worst, runs, c->lo);
	verdict(c, runs, 0, worst >= c->lo);
}

/* ru_utime + ru_stime - schedstat at the exit stop, every traced run */
static void judge_schedstat(const struct check *c)
{
	double worst = -INFINITY, bound_us = lab.jiffy_ns / NSEC_PER_USEC;
	const struct run *r;
	int i, n = 0;

	for (i = 0; i < NR_LEVELS * REPS; i++) {
		r = &lab.traced[i / REPS][i % REPS];
		if (!r->valid || isnan(r->sched_ns))
			continue;
		worst = fmax(worst, (r->utime_ns + r->stime_ns - r->sched_ns) /
			     NSEC_PER_USEC);
		n++;
	}
	intro_metric(c->name, "max_excess_us=%.1f runs=%d bound_us=%.0f",
		     worst, n, bound_us);
	verdict(c, n >= NR_LEVELS * REPS ? REPS : 0, 0, worst <= bound_us);
}

static const struct check checks[] = {
	{ "untraced_utime_error", judge_untraced, MEDIUM,
	  UNTRACED_LO, UNTRACED_HI, UNTRACED_MAX_SIGMA },
	{ "traced_utime_error_short_work", judge_traced, SHORT,
	  SHORT_LO, SHORT_HI, SHORT_MAX_SIGMA },
	{ "traced_utime_error_medium_work", judge_traced, MEDIUM,
	  MEDIUM_LO, MEDIUM_HI, MEDIUM_MAX_SIGMA },
	{ "traced_utime_error_long_work", judge_traced, LONG,
	  LONG_LO, LONG_HI, LONG_MAX_SIGMA },
	{ "traced_untraced_ratio", judge_ratio, MEDIUM,
	  RATIO_LO, RATIO_HI, RATIO_MAX_SIGMA },
	{ "traced_bias_per_syscall", judge_bias, SHORT,
	  BIAS_LO_US, BIAS_HI_US, BIAS_MAX_SIGMA_US },
	{ "total_covers_user_work", judge_cover, 0, COVER_LO, 0, 1 },
	{ "total_within_schedstat", judge_schedstat, 0, 0, 0, 1 },
	{ "cross_cpu_traced_utime_error", judge_cross, CROSS_LEVEL,
	  CROSS_LO, CROSS_HI, CROSS_MAX_SIGMA },
};

/* ---- main ------------------------------------------------------------ */

static void print_run(const char *mode, int level, int rep,
		      const struct run *r)
{
	static const char fmt[] =
		"run: mode=%s level=%s rep=%d valid=%d utime_ms=%.1f stime_ms=%.1f truth_ms=%.1f excluded_ms=%.1f sched_ms=%.1f syscalls=%.0f stops=%.0f wall_ms=%.0f ratio=%.3f bias_us=%.2f\n";

	if (!lab.opts.verbose && r->valid)
		return;
	ksft_print_msg(fmt, mode, levels[level].name, rep, r->valid,
		       r->utime_ns / NSEC_PER_MSEC, r->stime_ns / NSEC_PER_MSEC,
		       r->truth_ns / NSEC_PER_MSEC,
		       r->excluded_ns / NSEC_PER_MSEC,
		       r->sched_ns / NSEC_PER_MSEC, r->syscalls, r->stops,
		       r->wall_ns / NSEC_PER_MSEC, r->utime_ns / r->truth_ns,
		       (r->utime_ns - r->truth_ns) / r->syscalls /
		       NSEC_PER_USEC);
}

static void run_config(const struct intro_budget *b, bool traced, int level,
		       int rep, int tracee_cpu, double truth_ms, double max_s,
		       struct run *r)
{
	double scale = lab.opts.scale;
	struct run_cfg cfg = {
		.traced = traced,
		.tracer_cpu = lab.same_cpu,
		.tracee_cpu = tracee_cpu,
		.work_ns = levels[level].work_us * NSEC_PER_USEC,
		.ns_per_iter = lab.ns_per_iter,
		.truth_ns = truth_ms * scale * NSEC_PER_MSEC,
		.max_ns = max_s * scale * NSEC_PER_SEC,
		.seed = (unsigned int)(rep * 7919 + level * 131 + traced + 1),
	};

	r->valid = false;
	/* room for this run at its wall cap, plus fork and exit */
	if (intro_budget_left_ns(b) < cfg.max_ns * 1.2 + 0.1 * NSEC_PER_SEC)
		return;
	measure(&cfg, r);
	print_run(tracee_cpu != lab.same_cpu ? "cross" :
		  traced ? "traced" : "untraced", level, rep, r);
}

static void run_all(void)
{
	struct intro_budget b;
	int rep, l;

	intro_budget_start(&b, BUDGET_S * lab.opts.scale);
	for (rep = 0; rep < REPS; rep++) {
		for (l = 0; l < NR_LEVELS; l++) {
			run_config(&b, false, l, rep, lab.same_cpu,
				   levels[l].untraced_truth_ms,
				   levels[l].untraced_max_s,
				   &lab.untraced[l][rep]);
			run_config(&b, true, l, rep, lab.same_cpu,
				   levels[l].truth_ms, levels[l].max_s,
				   &lab.traced[l][rep]);
		}
		if (lab.have_cross)
			run_config(&b, true, CROSS_LEVEL, rep, lab.other_cpu,
				   CROSS_TRUTH_MS, CROSS_MAX_S,
				   &lab.cross[rep]);
	}
	ksft_print_msg("run time: spent_s=%.1f budget_s=%.1f\n",
		       intro_budget_spent_s(&b), BUDGET_S * lab.opts.scale);
}

/* Is @cpu in the cpulist @list ("0-3,8")? */
static bool in_cpulist(const char *list, int cpu)
{
	const char *p = list;
	long lo, hi;
	char *end;

	while (*p) {
		lo = strtol(p, &end, 10);
		if (end == p)
			return false;
		hi = lo;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return false;
}

/* The usable CPUs whose cputime is tick sampled (not nohz_full). */
static int tick_cpus(int *cpus)
{
	char list[256] = "";
	int n, i, k = 0;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/nohz_full", "r");
	if (f) {
		if (!fgets(list, sizeof(list), f))
			list[0] = '\0';
		fclose(f);
	}
	n = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	for (i = 0; i < n; i++)
		if (!in_cpulist(list, cpus[i]))
			cpus[k++] = cpus[i];
	return k;
}

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &scope) != 1)
		scope = 0;
	fclose(f);
	return scope;
}

/*
 * A short traced run: PTRACE_TRACEME must work, and the clock the child
 * times itself with must not be a syscall (it would add stops).
 */
static const char *probe_tracing(void)
{
	struct run_cfg cfg = {
		.traced = true,
		.tracer_cpu = lab.same_cpu,
		.tracee_cpu = lab.same_cpu,
		.work_ns = NSEC_PER_USEC,
		.ns_per_iter = lab.ns_per_iter,
		.truth_ns = NSEC_PER_MSEC,
		.max_ns = 20 * NSEC_PER_MSEC,
		.seed = 1,
	};
	struct run r;

	measure(&cfg, &r);
	if (!r.syscalls)
		return "PTRACE_TRACEME or PTRACE_SYSCALL refused";
	if (!r.valid)
		return "clock reads are syscalls, the user work cannot be timed";
	return NULL;
}

static void setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int cpus[INTRO_MAX_CPUS], n;
	const char *why;

	if (intro_kconfig("VIRT_CPU_ACCOUNTING_NATIVE") == 'y')
		ksft_exit_skip("cputime is not tick sampled (VIRT_CPU_ACCOUNTING_NATIVE)\n");
	n = tick_cpus(cpus);
	if (n < 1)
		ksft_exit_skip("every usable CPU is nohz_full, cputime is not tick sampled\n");
	if (yama_scope() >= 3)
		ksft_exit_skip("Yama ptrace_scope forbids PTRACE_TRACEME\n");
	lab.same_cpu = cpus[n - 1];
	lab.other_cpu = cpus[0];
	lab.have_cross = n >= 2;
	lab.jiffy_ns = (double)intro_jiffy_ns();
	if (sigaction(SIGALRM, &sa, NULL))
		ksft_exit_fail_msg("sigaction: %s\n", strerror(errno));
	share = mmap(NULL, sizeof(*share), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (share == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	pread_fd = memfd_create("ptrace_utime", 0);
	if (pread_fd < 0 || ftruncate(pread_fd, 4096))
		ksft_exit_fail_msg("memfd: %s\n", strerror(errno));
	if (intro_pin(0, lab.same_cpu))
		ksft_exit_skip("cannot pin to a usable CPU\n");
	lab.ns_per_iter = ns_per_iter(lab.same_cpu);
	why = probe_tracing();
	if (why)
		ksft_exit_skip("%s\n", why);
	ksft_print_msg("plan: same_cpu=%d other_cpu=%d ns_per_iter=%.3f\n",
		       lab.same_cpu, lab.have_cross ? lab.other_cpu : -1,
		       lab.ns_per_iter);
}

int main(int argc, char **argv)
{
	size_t i;

	ksft_print_header();
	intro_parse_opts(argc, argv, &lab.opts);
	intro_print_env();
	setup();
	ksft_set_plan(ARRAY_SIZE(checks));
	run_all();
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		checks[i].judge(&checks[i]);
	munmap(share, sizeof(*share));
	close(pread_fd);
	intro_exit();
}
