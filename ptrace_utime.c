// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_utime - the user time of a child stopped at every syscall by
 * PTRACE_SYSCALL is accounted like that of the same loop untraced.
 *
 * Guards against "Commit 1e5a74059f9 broke utime measurement of ptraced()
 * processes" (LKML, Dec 2011): by skipping an rq clock update in
 * check_preempt_curr(), 3.2-rc6 charged a traced child +17% utime, and
 * ten times less in a VM. Children, traced and untraced in turn, alternate
 * user work they time with the vDSO clock and a syscall that reads their
 * runtime (CLOCK_THREAD_CPUTIME_ID). Long work (1 ms per syscall): utime
 * over the timed work, traced over untraced. Short work (0.25 us): the
 * share of what tracing adds per syscall charged as user time, 0 when
 * healthy.
 * And the runtime gained per ns of the child's clock, the slope over
 * segments of random length, so the stops go to the intercept.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect_util.h"

/*
 * Tick sampling: N = runtime / jiffy ticks, each user with probability p,
 * scaled by cputime_adjust(): ru_utime / user time spreads by
 * sqrt((1 - p) / (p N)), 0.02 or less over ROUNDS children of 200 ms at
 * 1 ms of work. Per segment of u user and s system time, ru_utime spreads
 * by sqrt(jiffy u s / runtime): the short kinds, which measure what
 * tracing adds to s, keep u small (0.25 us of work).
 */
#define ROUNDS		10	/* rounds of children at --scale 1 */
#define MIN_RUNS	3	/* valid children per configuration to decide */
#define MAX_WALL_MS	1000	/* wall time per child: too little CPU, stop */
/* A round starts only if all its children fit at their wall time cap. */
#define BUDGET_S	25.0
#define MAX_SCALE	1.5
#define MAX_ROUNDS	15	/* ROUNDS x MAX_SCALE */

/*
 * Tick spreads beyond which the ratios and the share skip; the share's
 * keeps its bound three spreads above the highest native healthy (0.077).
 */
#define MAX_SIGMA_RATIO	0.03
#define MAX_SIGMA_SHARE	0.035

/*
 * ru_utime / timed work, and traced over untraced: healthy 0.98-1.07; 1 in
 * 4 user ticks charged as system reads 0.75: the bounds sit halfway.
 */
#define RATIO_LO	0.88
#define RATIO_HI	1.12
/* Across CPUs a healthy KVM guest read 0.68: still far above 3.2's 0.1. */
#define CROSS_RATIO_LO	0.5

/*
 * Share of the tracing overhead charged as user time: healthy -0.03-0.08,
 * up to 0.12 on emulated arm64; 1 in 4 system ticks charged as user reads
 * 0.28 or more.
 */
#define SHARE_BOUND	0.18

/* ru_utime + ru_stime is sum_exec_runtime (cputime_adjust()), in us. */
#define TOTAL_RUNTIME_MAX_US	50
#define EXIT_WAIT_MS		100	/* for a zombie to leave its CPU */

/*
 * Runtime per ns of the child's own clock: healthy at most 1.004 natively,
 * 1.075 under arm64 TCG; a task charged 10 % more or less reads 1.10, 0.90.
 */
#define RATE_LO		0.97
#define RATE_HI		1.09
#define RATE_MIN_POINTS	32	/* unpreempted segments, and same-speed pairs */
#define RATE_MAX_POINTS	256	/* Theil-Sen takes n^2 / 2 slopes */
#define RATE_SAME_SPEED	0.02	/* a pair's ns per iteration agree within */
#define PREEMPTED	1.5
#define PREEMPT_SLACK_NS 10000.0

#define LOG_CAP		131072	/* segments a child can record */
#define CALIB_LOOPS	31
#define CALIB_ITERS	65536
#define SYSCALL_STOP	(SIGTRAP | 0x80)	/* PTRACE_O_TRACESYSGOOD */
/*
 * Stops per segment: two for its runtime read, six if its two vDSO clock
 * reads were syscalls too; the library's own syscalls, a fixed few, do
 * not reach one per segment.
 */
#define CLOCK_SYSCALL_STOPS 4
#define WATCHDOG_S	10	/* beyond the wall time cap: a hung child */
#define FIFO_MIN_SHARE	0.5	/* of a CPU, for a traced pair at SCHED_FIFO */

/* One per syscall: the runtime it read, then the user work after it. */
struct point {
	unsigned long long runtime_ns;
	unsigned int iters;
	unsigned int ns;		/* by the child's own clock */
};

struct child_log {
	unsigned long nsegs;
	unsigned long long wall_ns;	/* first segment's start to the last read */
	struct point pt[LOG_CAP + 1];
};

enum kind { UNTRACED, TRACED, UNTRACED_SHORT, TRACED_SHORT, CROSS_UNTRACED,
	    CROSS_TRACED, NR_KINDS };

static const struct kind_cfg {
	const char *name;
	bool traced, cross;
	double work_us;		/* mean user work per syscall */
	unsigned long long target_ms;	/* runtime per child */
} kinds[NR_KINDS] = {
	[UNTRACED]	 = { "untraced",	false, false, 1000, 100 },
	[TRACED]	 = { "traced",		true,  false, 1000, 200 },
	[UNTRACED_SHORT] = { "untraced_short",	false, false, 0.25, 150 },
	[TRACED_SHORT]	 = { "traced_short",	true,  false, 0.25, 300 },
	[CROSS_UNTRACED] = { "cross_untraced",	false, true,  1000, 100 },
	[CROSS_TRACED]	 = { "cross_traced",	true,  true,  1000, 200 },
};

/* The child's exit codes; from 10 on, clear of exit(1) from the library. */
enum { CHILD_OK = 0, CHILD_NO_PIN = 10, CHILD_NO_TRACEME, CHILD_NO_CLOCK };

struct run {
	bool valid;
	int exit;		/* the child's exit status, -1 if it did not exit */
	double utime, stime;	/* wait4() rusage, ns */
	double sched;		/* the zombie's schedstat runtime, traced */
	double truth;		/* its user time, by its own clock */
	double segs, stops;
	double wall;		/* ns, first segment to the last runtime read */
	double rate;		/* runtime per ns of own clock, NAN: too few */
};

static struct child_log *child_log;
static struct intro_opts opts;
static bool fork_refused;	/* a child not forked: EAGAIN */
static unsigned long sink;

static struct {
	int cpu, other_cpu;
	bool have_cross, fifo;
	double jiffy, ns_per_iter;
	int rounds;
	struct run runs[NR_KINDS][MAX_ROUNDS];
} m;

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
 * Segments of user work, uniform in [mean/2, 3*mean/2) so they cannot
 * phase-lock with the tick, each followed by a syscall reading the runtime.
 */
static void child_main(const struct kind_cfg *k, int cpu, unsigned int seed)
{
	unsigned long span = (unsigned long)(k->work_us * NSEC_PER_USEC /
					     m.ns_per_iter);
	unsigned long long t0 = 0, start, deadline;
	struct point *p = child_log->pt;
	struct timespec ts;
	unsigned long n;

	if (cpu != m.cpu && (intro_pin(0, cpu) || sched_getcpu() != cpu))
		_exit(CHILD_NO_PIN);
	if (k->traced) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(CHILD_NO_TRACEME);
		raise(SIGSTOP);
	}
	span = span < 2 ? 2 : span;
	start = intro_now_ns();
	deadline = start + MAX_WALL_MS * NSEC_PER_MSEC;
	for (n = 0;; n++) {
		if (n)
			p[n - 1].ns = intro_now_ns() - t0;
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
			_exit(CHILD_NO_CLOCK);
		t0 = intro_now_ns();
		p[n].runtime_ns = ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		if (n == LOG_CAP || t0 >= deadline ||
		    p[n].runtime_ns - p[0].runtime_ns >=
		    k->target_ms * NSEC_PER_MSEC)
			break;
		p[n].iters = span / 2 + xorshift(&seed) % span;
		spin(p[n].iters);
	}
	child_log->nsegs = n;
	child_log->wall_ns = t0 - start;
	_exit(CHILD_OK);
}

/* SIGALRM only interrupts wait4() (no SA_RESTART): a hung child ends */
static void on_alarm(int sig)
{
	(void)sig;
}

static double tv_ns(const struct timeval *tv)
{
	return (double)tv->tv_sec * NSEC_PER_SEC +
	       (double)tv->tv_usec * NSEC_PER_USEC;
}

static int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	return wait4(pid, status, __WALL, ru) == pid ? 0 : -1;
}

/* @pid's runtime from /proc/PID/schedstat, ns; NAN if unreadable */
static double schedstat_ns(pid_t pid)
{
	unsigned long long rt;
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (intro_read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu", &rt) != 1)
		return NAN;
	return (double)rt;
}

/* voluntary_ctxt_switches of @pid (/proc/PID/status); -1 if unreadable */
static long voluntary_switches(pid_t pid)
{
	static const char key[] = "\nvoluntary_ctxt_switches:";
	char path[64], buf[4096];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (intro_read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + sizeof(key) - 1, NULL, 10) : -1;
}

/*
 * Resume the tracee at every stop, then read the zombie's schedstat before
 * wait4() reaps it (an earlier rusage read would move prev_cputime). Its
 * last switch, from do_task_dead(), counts as voluntary in __schedule()
 * after the runtime update: wait for the count to pass its exit stop's.
 */
static int trace_child(pid_t pid, struct run *r, int *st, struct rusage *ru)
{
	unsigned long msg;
	siginfo_t zombie;
	long sw = -1;
	int sig, i;

	if (wait_child(pid, st, NULL) || !WIFSTOPPED(*st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT |
			    PTRACE_O_EXITKILL)) ||
	    ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
		return -1;
	for (;;) {
		if (wait_child(pid, st, NULL) || !WIFSTOPPED(*st))
			return -1;
		sig = WSTOPSIG(*st);
		if (*st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			/* a request: the tracee is off its CPU by now */
			if (!ptrace(PTRACE_GETEVENTMSG, pid, NULL, &msg))
				sw = voluntary_switches(pid);
			break;
		}
		r->stops += sig == SYSCALL_STOP;
		if (sig == SYSCALL_STOP || sig == SIGTRAP)
			sig = 0;
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			return -1;
	}
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitid(P_PID, pid, &zombie, WEXITED | WNOWAIT | __WALL))
		return -1;
	for (i = 0; sw >= 0 && voluntary_switches(pid) <= sw &&
	     i < EXIT_WAIT_MS * 10; i++)
		usleep(100);
	r->sched = schedstat_ns(pid);
	return wait_child(pid, st, ru);
}

/*
 * Theil-Sen slope of @y against @x (Sen, JASA 63, 1968): the median slope
 * of the pairs with distinct x whose @s (NULL: any) differ by at most
 * @tol of the first's. n^2 pairs; NAN with fewer than @min_pairs.
 */
static double theil_sen(const double *x, const double *y, const double *s,
			double tol, size_t n, size_t min_pairs)
{
	size_t i, j, m = 0;
	double *slope, r;

	if (n < 2)
		return NAN;
	slope = malloc(n * (n - 1) / 2 * sizeof(*slope));
	if (!slope)
		ksft_exit_fail_perror("statistics");
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (x[j] != x[i] &&
			    (!s || fabs(s[j] - s[i]) <= tol * s[i]))
				slope[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	r = m && m >= min_pairs ? intro_median(slope, m, false) : NAN;
	free(slope);
	return r;
}

/*
 * The truth: per segment the lesser of its length and the runtime gained
 * across it (else it waited for the CPU). The rate: the Theil-Sen slope of
 * runtime on length over unpreempted segments (PREEMPTED, PREEMPT_SLACK_NS),
 * only between segments at the same speed: a host running the CPU slowly
 * for a while lengthens a syscall with its work and tilts the slope.
 */
static void derive(const struct child_log *log, struct run *r, bool rate)
{
	static double v[LOG_CAP], x[RATE_MAX_POINTS], y[RATE_MAX_POINTS],
		      s[RATE_MAX_POINTS];
	unsigned long i, n = log->nsegs, k = 0;
	const struct point *p = log->pt;
	double med, gained;

	r->segs = (double)n;
	r->wall = (double)log->wall_ns;
	r->rate = NAN;
	if (!n || n > LOG_CAP) {
		r->valid = false;
		return;
	}
	for (i = 0; i < n; i++) {
		v[i] = (double)p[i].ns / p[i].iters;
		gained = (double)(p[i + 1].runtime_ns - p[i].runtime_ns);
		r->truth += fmin(p[i].ns, gained);
	}
	if (!rate)
		return;
	med = intro_median(v, n, false);
	for (i = 0; i < n && k < RATE_MAX_POINTS; i++) {
		if (p[i].ns > PREEMPTED * med * p[i].iters + PREEMPT_SLACK_NS)
			continue;
		x[k] = p[i].ns;
		s[k] = v[i];
		y[k++] = (double)(p[i + 1].runtime_ns - p[i].runtime_ns);
	}
	if (k >= RATE_MIN_POINTS)
		r->rate = theil_sen(x, y, s, RATE_SAME_SPEED, k, RATE_MIN_POINTS);
}

/* One child of kind @k: fork, (trace), reap, derive. */
static void measure(enum kind k, unsigned int seed, struct run *r)
{
	const struct kind_cfg *kc = &kinds[k];
	struct rusage ru;
	int st = -1, err;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->sched = NAN;
	r->exit = -1;
	child_log->nsegs = 0;
	alarm(MAX_WALL_MS / 1000 + WATCHDOG_S);
	pid = intro_fork();
	if (pid < 0) {
		fork_refused |= errno == EAGAIN;
		alarm(0);
		return;
	}
	if (!pid)
		child_main(kc, kc->cross ? m.other_cpu : m.cpu, seed);
	if (kc->traced)
		err = trace_child(pid, r, &st, &ru);
	else
		err = wait_child(pid, &st, &ru);
	alarm(0);
	r->exit = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (err || r->exit != CHILD_OK) {
		intro_kill_wait(pid);
		return;
	}
	r->valid = true;
	r->utime = tv_ns(&ru.ru_utime);
	r->stime = tv_ns(&ru.ru_stime);
	derive(child_log, r, kc->work_us >= 1000);
	if (kc->traced && r->stops >= CLOCK_SYSCALL_STOPS * r->segs)
		r->valid = false;
	if (opts.verbose || !r->valid) {
		ksft_print_msg("run: kind=%s valid=%d utime_ms=%.2f stime_ms=%.2f truth_ms=%.2f\n",
			       kc->name, r->valid, r->utime / NSEC_PER_MSEC,
			       r->stime / NSEC_PER_MSEC,
			       r->truth / NSEC_PER_MSEC);
		ksft_print_msg("run: segments=%.0f stops=%.0f rate=%.4f exit=%d\n",
			       r->segs, r->stops, r->rate, r->exit);
	}
}

/* Sums over the valid children of a kind. */
struct pool {
	int runs;
	double utime, rt, truth, segs, wall;
};

static struct pool pool(enum kind k)
{
	struct pool p = { 0 };
	const struct run *r;
	int i;

	for (i = 0; i < m.rounds; i++) {
		r = &m.runs[k][i];
		if (!r->valid)
			continue;
		p.runs++;
		p.utime += r->utime;
		p.rt += r->utime + r->stime;
		p.truth += r->truth;
		p.segs += r->segs;
		p.wall += r->wall;
	}
	return p;
}

/* The tick spread of the pooled ru_utime relative to the user time. */
static double ratio_sigma(const struct pool *p)
{
	return sqrt(fmax(p->rt - p->truth, m.jiffy) * m.jiffy /
		    (p->truth * p->rt));
}

static const char few_rounds[] = "the time budget ended before enough rounds";
static const char few_runs[] = "too few children completed";
static const char few_ticks[] = "too few ticks to decide";
static const char in_step[] = "a syscall with its stops takes a jiffy or more";
/* a rate needs RATE_MIN_POINTS such segments and pairs of them (derive()) */
static const char few_rates[] = "too few children with enough unpreempted segments at one speed";

/* a figure against [lo, hi], given the runs and the tick spread */
static void verdict(const char *name, bool runs_ok, double sigma,
		    double max_sigma, double v, double lo, double hi)
{
	if (!runs_ok)
		intro_report(name, KSFT_SKIP, fork_refused ? INTRO_NO_TASK :
			     m.rounds < MIN_RUNS ? few_rounds : few_runs);
	else if (!(sigma <= max_sigma))
		intro_report(name, KSFT_SKIP, few_ticks);
	else
		intro_report(name, v >= lo && v <= hi ? KSFT_PASS : KSFT_FAIL,
			     NULL);
}

/*
 * ru_utime / truth, untraced, long work: the one check to see user ticks
 * charged as system time for every task, which the traced over untraced
 * ratios cancel.
 */
static void check_untraced(const char *name)
{
	struct pool u = pool(UNTRACED);
	double sigma = ratio_sigma(&u);

	intro_figures(name,
		      "ratio=%.3f bound_lo_ratio=%.2f bound_hi_ratio=%.2f sigma_ratio=%.3f",
		      u.utime / u.truth, RATIO_LO, RATIO_HI, sigma);
	ksft_print_msg("%s: runs=%d\n", name, u.runs);
	verdict(name, u.runs >= MIN_RUNS, sigma, MAX_SIGMA_RATIO,
		u.utime / u.truth, RATIO_LO, RATIO_HI);
}

/* (ru_utime / truth) traced over untraced, long work */
static void judge_ratio(const char *name, enum kind traced, enum kind ref,
			double lo)
{
	struct pool t = pool(traced), u = pool(ref);
	double sigma = hypot(ratio_sigma(&t), ratio_sigma(&u));
	double v = (t.utime / t.truth) / (u.utime / u.truth);

	intro_figures(name,
		      "ratio=%.3f bound_lo_ratio=%.2f bound_hi_ratio=%.2f sigma_ratio=%.3f",
		      v, lo, RATIO_HI, sigma);
	ksft_print_msg("%s: traced_ratio=%.3f untraced_ratio=%.3f\n", name,
		       t.utime / t.truth, u.utime / u.truth);
	ksft_print_msg("%s: traced_user_pct=%.1f runs=%d untraced_runs=%d\n",
		       name, 100 * t.truth / t.rt, t.runs, u.runs);
	verdict(name, t.runs >= MIN_RUNS && u.runs >= MIN_RUNS, sigma,
		MAX_SIGMA_RATIO, v, lo, RATIO_HI);
}

static void check_ratio(const char *name)
{
	judge_ratio(name, TRACED, UNTRACED, RATIO_LO);
}

static void check_cross(const char *name)
{
	if (!m.have_cross) {
		intro_figures(name, "runs=0 bound_lo_ratio=%.2f bound_hi_ratio=%.2f",
			      CROSS_RATIO_LO, RATIO_HI);
		intro_report(name, KSFT_SKIP, "needs two usable CPUs");
		return;
	}
	judge_ratio(name, CROSS_TRACED, CROSS_UNTRACED, CROSS_RATIO_LO);
}

/*
 * Per syscall, what tracing adds to the runtime beyond the timed work, and
 * the part ru_utime grew by. Binomial spread jiffy sqrt(N p (1 - p)) while
 * a syscall with its stops is short against a jiffy; a stop sleeping until
 * a tick (wait_task_inactive(), 2.6.28) phase-locks the segments: skip.
 * A stop runs ptrace_stop() and schedule() in the tracee: tracing that adds
 * it no runtime leaves no share to judge, a FAIL.
 */
static void check_share(const char *name)
{
	struct pool t = pool(TRACED_SHORT), u = pool(UNTRACED_SHORT);
	double dt = t.truth / t.segs - u.truth / u.segs;
	double du = t.utime / t.segs - u.utime / u.segs - dt;
	double dr = t.rt / t.segs - u.rt / u.segs - dt;
	double pt = fmin(t.truth / t.rt, 1), pu = fmin(u.truth / u.rt, 1);
	double st = m.jiffy * sqrt(t.rt / m.jiffy * pt * (1 - pt)) / t.segs;
	double su = m.jiffy * sqrt(u.rt / m.jiffy * pu * (1 - pu)) / u.segs;
	double share = dr > 0 ? du / dr : NAN;
	double sigma = dr > 0 ? hypot(st, su) / dr : 0;

	intro_figures(name,
		      "user_share=%.3f bound_lo_share=%.3f bound_hi_share=%.3f sigma_share=%.3f",
		      share, -SHARE_BOUND, SHARE_BOUND, sigma);
	ksft_print_msg("%s: overhead_us=%.2f user_added_us=%.3f work_added_us=%.3f\n",
		       name, dr / NSEC_PER_USEC, du / NSEC_PER_USEC,
		       dt / NSEC_PER_USEC);
	ksft_print_msg("%s: traced_user_pct=%.1f runs=%d untraced_runs=%d syscall_wall_us=%.1f\n",
		       name, 100 * pt, t.runs, u.runs,
		       t.segs ? t.wall / t.segs / NSEC_PER_USEC : NAN);
	if (t.runs && t.wall / t.segs >= m.jiffy) {
		intro_report(name, KSFT_SKIP, in_step);
		return;
	}
	verdict(name, t.runs >= MIN_RUNS && u.runs >= MIN_RUNS, sigma,
		MAX_SIGMA_SHARE, share, -SHARE_BOUND, SHARE_BOUND);
}

/*
 * |ru_utime + ru_stime - the zombie's schedstat runtime|, traced children:
 * cputime_adjust() scales the tick samples to sum_exec_runtime; unscaled,
 * whole jiffies, they miss it by jiffies while the ratios stay unbiased.
 */
static void check_schedstat(const char *name)
{
	double worst = 0;
	const struct run *r;
	int k, i, n = 0, unread = 0;

	for (k = 0; k < NR_KINDS; k++)
		for (i = 0; kinds[k].traced && i < m.rounds; i++) {
			r = &m.runs[k][i];
			if (!r->valid)
				continue;
			if (isnan(r->sched)) {
				unread++;
				continue;
			}
			worst = fmax(worst, fabs(r->utime + r->stime -
						 r->sched) / NSEC_PER_USEC);
			n++;
		}
	intro_figures(name, "max_excess_us=%.1f bound_us=%d runs=%d",
		      worst, TOTAL_RUNTIME_MAX_US, n);
	if (unread)
		intro_report(name, KSFT_SKIP,
			     "no /proc/PID/schedstat (CONFIG_SCHED_INFO)");
	else
		verdict(name, n >= MIN_RUNS, 0, 1, worst, 0,
			TOTAL_RUNTIME_MAX_US);
}

/*
 * The median over the children of a kind of their runtime rate. Runtime
 * charged wrong at the source (rq->clock_task, update_curr()) moves utime,
 * stime, schedstat and the runtime read alike: only the child's own clock
 * sees it, untraced for every task, traced for tracing alone.
 */
static void judge_rate(const char *name, enum kind k)
{
	double v[ARRAY_SIZE(m.runs[0])] = { 0 };
	int i, n = 0;

	for (i = 0; i < m.rounds; i++)
		if (m.runs[k][i].valid && !isnan(m.runs[k][i].rate))
			v[n++] = m.runs[k][i].rate;
	intro_figures(name, "rate=%.4f bound_lo_rate=%.2f bound_hi_rate=%.2f runs=%d",
		      intro_median(v, n, false), RATE_LO, RATE_HI, n);
	ksft_print_msg("%s: min_rate=%.4f max_rate=%.4f\n", name,
		       intro_quantile(v, n, 0, false),
		       intro_quantile(v, n, 1, false));
	if (n < MIN_RUNS && pool(k).runs >= MIN_RUNS)
		intro_report(name, KSFT_SKIP, few_rates);
	else
		verdict(name, n >= MIN_RUNS, 0, 1, intro_median(v, n, false),
			RATE_LO, RATE_HI);
}

static void check_untraced_rate(const char *name)
{
	judge_rate(name, UNTRACED);
}

static void check_traced_rate(const char *name)
{
	judge_rate(name, TRACED);
}

static const struct check {
	const char *name;
	void (*judge)(const char *name);
} checks[] = {
	{ "untraced_utime_error",		check_untraced },
	{ "traced_untraced_ratio",		check_ratio },
	{ "traced_bias_per_syscall",		check_share },
	{ "cross_cpu_traced_utime_error",	check_cross },
	{ "total_within_schedstat",		check_schedstat },
	{ "untraced_runtime_rate",		check_untraced_rate },
	{ "traced_runtime_rate",		check_traced_rate },
};

/* Rounds of one child of each kind, in turn, while the budget lasts. */
static void run_all(void)
{
	int rounds = (int)fmin(ROUNDS * opts.scale + 0.5, MAX_ROUNDS);
	struct intro_budget b;
	int k;

	intro_budget_start(&b, BUDGET_S * opts.scale);
	for (m.rounds = 0; m.rounds < rounds; m.rounds++) {
		if (intro_budget_left_ns(&b) <
		    NR_KINDS * MAX_WALL_MS * NSEC_PER_MSEC)
			break;
		for (k = 0; k < NR_KINDS; k++)
			if (m.have_cross || !kinds[k].cross)
				measure(k, m.rounds * NR_KINDS + k + 1,
					&m.runs[k][m.rounds]);
	}
	ksft_print_msg("budget: rounds=%d spent_s=%.1f budget_s=%.1f\n",
		       m.rounds, intro_budget_spent_s(&b),
		       BUDGET_S * opts.scale);
}

/* ns per spin() iteration: median of short timed loops */
static double ns_per_iter(void)
{
	double v[CALIB_LOOPS];
	unsigned long long t0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		t0 = intro_now_ns();
		spin(CALIB_ITERS);
		v[i] = (double)(intro_now_ns() - t0) / CALIB_ITERS;
	}
	return intro_median(v, ARRAY_SIZE(v), false);
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
		hi = *end == '-' ? strtol(end + 1, &end, 10) : lo;
		if (cpu >= lo && cpu <= hi)
			return true;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return false;
}

/* CONFIG_@name=y in /boot/config-$(uname -r), else in /proc/config.gz */
static bool kconfig_y(const char *name)
{
	char want[64], path[128], *line = NULL;
	bool y = false, piped = false;
	struct utsname u;
	size_t size = 0;
	FILE *f = NULL;

	snprintf(want, sizeof(want), "CONFIG_%s=y\n", name);
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "re");
	}
	if (!f && !access("/proc/config.gz", R_OK)) {
		f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
		piped = true;
	}
	while (f && !y && getline(&line, &size, f) > 0)
		y = !strcmp(line, want);
	free(line);
	if (f && piped)
		pclose(f);
	else if (f)
		fclose(f);
	return y;
}

/*
 * The CPU a traced child and its tracer got, over the wall time: a traced
 * child of TRACED_SHORT, whose result tells whether tracing works here.
 */
static double probe(struct run *r)
{
	uint64_t t0 = intro_now_ns();
	uint64_t cpu = intro_clock_ns(CLOCK_PROCESS_CPUTIME_ID);

	measure(TRACED_SHORT, 1, r);
	cpu = intro_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	return (r->utime + r->stime + cpu) / (intro_now_ns() - t0);
}

/*
 * SCHED_FIFO where allowed: no CFS slice ends at a tick beside them. But a
 * group's RT bandwidth (cgroup v1 cpu.rt_runtime_us) can give it less CPU
 * than CFS: alone on its CPU a pair at SCHED_FIFO gets all of it, so under
 * FIFO_MIN_SHARE the probe runs again at SCHED_OTHER, and the policy that
 * got more stays.
 */
static void choose_policy(struct run *pr)
{
	struct sched_param fifo = { .sched_priority = 1 }, other = { 0 };
	double share, cfs_share;
	struct run cfs;

	m.fifo = !sched_setscheduler(0, SCHED_FIFO, &fifo);
	share = probe(pr);
	if (!m.fifo || share >= FIFO_MIN_SHARE ||
	    sched_setscheduler(0, SCHED_OTHER, &other))
		return;
	cfs_share = probe(&cfs);
	ksft_print_msg("policy: fifo_cpu_share=%.2f other_cpu_share=%.2f bound_fifo_share=%.2f\n",
		       share, cfs_share, FIFO_MIN_SHARE);
	if (cfs_share > share) {
		m.fifo = false;
		*pr = cfs;
	} else {
		m.fifo = !sched_setscheduler(0, SCHED_FIFO, &fifo);
	}
}

static void setup(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int cpus[INTRO_MAX_CPUS], n, i, k = 0;
	static char nohz[4096];
	struct run pr;

	if (kconfig_y("VIRT_CPU_ACCOUNTING_NATIVE"))
		ksft_exit_skip("cputime is not tick sampled (VIRT_CPU_ACCOUNTING_NATIVE)\n");
	if (intro_read_file("/sys/devices/system/cpu/nohz_full", nohz,
			    sizeof(nohz)) < 0)
		nohz[0] = '\0';
	n = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	for (i = 0; i < n; i++)
		if (!in_cpulist(nohz, cpus[i]))
			cpus[k++] = cpus[i];
	if (k < 1)
		ksft_exit_skip("every usable CPU is nohz_full, cputime is not tick sampled\n");
	m.cpu = cpus[k - 1];
	m.other_cpu = cpus[0];
	m.have_cross = k >= 2;
	m.jiffy = (double)intro_jiffy_ns();
	if (sigaction(SIGALRM, &sa, NULL))
		ksft_exit_fail_perror("sigaction");
	child_log = mmap(NULL, sizeof(*child_log), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_log == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	if (intro_pin(0, m.cpu))
		ksft_exit_skip("cannot pin to a usable CPU\n");
	m.ns_per_iter = ns_per_iter();
	choose_policy(&pr);
	ksft_print_msg("probe: exit=%d segments=%.0f stops=%.0f\n",
		       pr.exit, pr.segs, pr.stops);
	/* Tracing forbidden or no CPU clock: a precondition; else a FAIL */
	if (fork_refused)
		ksft_exit_skip("%s\n", INTRO_NO_TASK);
	if (pr.exit == CHILD_NO_TRACEME)
		ksft_exit_skip("PTRACE_TRACEME refused: tracing a child is forbidden\n");
	if (pr.exit == CHILD_NO_CLOCK)
		ksft_exit_skip("no CLOCK_THREAD_CPUTIME_ID (POSIX_TIMERS)\n");
	if (pr.segs && pr.stops >= CLOCK_SYSCALL_STOPS * pr.segs)
		ksft_exit_skip("clock reads are syscalls, the user work cannot be timed\n");
	if (!pr.valid)
		ksft_exit_fail_msg("a traced child did not complete (probe: line)\n");
	if (!pr.stops)
		ksft_exit_fail_msg("PTRACE_SYSCALL gave a permitted tracer no syscall stops\n");
	ksft_print_msg("plan: cpu=%d other_cpu=%d ns_per_iter=%.3f fifo=%d\n",
		       m.cpu, m.have_cross ? m.other_cpu : -1, m.ns_per_iter,
		       m.fifo);
}

static const struct intro_prog prog = {
	.usage =
	"ptrace_utime: the user time (utime) of a child stopped at every\n"
	"syscall by PTRACE_SYSCALL is accounted like that of the same loop\n"
	"untraced. Guards against the 3.2-rc6 regression bisected to commit\n"
	"1e5a74059f9 (LKML, Dec 2011): traced utime +17%, ten times too small\n"
	"in a VM. Children alternate user work they time themselves with a\n"
	"syscall, traced and untraced in turn. Checks (bounds printed):\n"
	"  untraced_utime_error          ru_utime / timed work, untraced, 1 ms\n"
	"                                of work per syscall\n"
	"  traced_untraced_ratio         that ratio traced / untraced, 1 ms\n"
	"  traced_bias_per_syscall       share of what tracing adds per syscall\n"
	"                                charged as user time, 0.25 us of work\n"
	"  cross_cpu_traced_utime_error  traced_untraced_ratio, the tracer on\n"
	"                                another CPU\n"
	"  total_within_schedstat        |ru_utime + ru_stime - schedstat|\n"
	"  untraced_runtime_rate         runtime gained per ns of user work by\n"
	"                                the child's own clock, untraced\n"
	"  traced_runtime_rate           the same, traced\n"
	"Needs: tracing a child (Yama ptrace_scope 0 or 1, or 2 with\n"
	"CAP_SYS_PTRACE), tick-sampled cputime (a CPU outside nohz_full, not\n"
	"VIRT_CPU_ACCOUNTING_NATIVE), /proc/PID/schedstat (SCHED_INFO), two\n"
	"usable CPUs for the cross-CPU check; SCHED_FIFO (root or\n"
	"RLIMIT_RTPRIO) keeps its figures tight on a busy CPU.\n",
	.min_scale = 0.5,
	.max_scale = MAX_SCALE,
};

int main(int argc, char **argv)
{
	size_t i;

	intro_parse_opts(argc, argv, &prog, &opts);
	ksft_print_header();
	intro_print_env(&opts);
	setup();
	ksft_set_plan(ARRAY_SIZE(checks));
	run_all();
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		checks[i].judge(checks[i].name);
	munmap(child_log, sizeof(*child_log));
	ksft_finished();
}
