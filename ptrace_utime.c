// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace_utime - the user time of a child stopped at every syscall by
 * PTRACE_SYSCALL is accounted like that of an untraced child.
 *
 * Guards against "Commit 1e5a74059f9 broke utime measurement of ptraced()
 * processes" (LKML, Dec 2011): by skipping an rq clock update in
 * check_preempt_curr(), 3.2-rc6 charged a traced child alternating user
 * work with pread() +17% utime, and ten times less in a VM.
 *
 * Invariants: with tick-sampled cputime, wait4()'s ru_utime of such a child
 * matches the user time it times itself with the vDSO clock, traced or not;
 * ru_utime + ru_stime covers that work and equals the schedstat runtime.
 * At the source, the precise runtime (sum_exec_runtime) a task gains while
 * it runs user code grows exactly as fast as its own clock, traced or not.
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

/*
 * A ratio is ru_utime / the user work the child timed. A check decides only
 * when the binomial error of the user share its pooled ticks sample is below
 * *_MAX_SIGMA, where each bound is about three healthy spreads away.
 */

/*
 * Untraced, 10 and 100 us of work per syscall: the control, about 1; up to
 * 1.23 where slow emulated syscalls put kernel time into user ticks.
 */
#define UNTRACED_LO		0.85
#define UNTRACED_HI		1.40
#define UNTRACED_MAX_SIGMA	0.05

/*
 * Traced, 2 us: the low bound catches utime about 0 (traced ticks charged
 * as system time); the high one sits 1.5 below traced ticks charged as user
 * time (4.0-5.6). Healthy 0.5-1.5.
 */
#define SHORT_LO		0.20
#define SHORT_HI		2.50
#define SHORT_MAX_SIGMA		0.17

/* Traced, 10 us: healthy 0.6-1.2; regressed 0, or 1.6-1.95 inflated. */
#define MEDIUM_LO		0.35
#define MEDIUM_HI		1.45
#define MEDIUM_MAX_SIGMA	0.10

/*
 * Traced, 100 us (healthy 0.75-1.15): inflation adds only percents to this
 * much work, so the bounds catch deflation (0) and slow stops (2.2-3.2).
 */
#define LONG_LO			0.50
#define LONG_HI			1.50
#define LONG_MAX_SIGMA		0.08

/* Traced / untraced ratio per pair, 10 us: healthy 0.7-1.3; 0 or 1.5-2.4. */
#define RATIO_LO		0.35
#define RATIO_HI		1.45
#define RATIO_MAX_SIGMA		0.11

/*
 * Traced, 2 us: the share of the tracee's CPU time beyond its timed work
 * (syscalls, stops, the libc and clock code around them) that is charged
 * as user time, (ru_utime - truth) / (ru_utime + ru_stime - truth). Unlike
 * a bias in us it does not grow with the time a stop takes: healthy up to
 * 0.25 (two copies at once), every traced tick as user time reads 1; the
 * upper bound is a factor 2 from both. Deflation reads below 0.
 */
#define HEALTHY_SHARE_REASON	"above its bound with a healthy user share of the syscall overhead"
#define BIAS_LO_SHARE		-0.05
#define BIAS_HI_SHARE		0.50
#define BIAS_MAX_SIGMA_SHARE	0.04

/* (ru_utime + ru_stime) / truth: the work plus kernel time, 0.99-1.16. */
#define COVER_LO		0.97

/*
 * ru_utime + ru_stime of the reaped child is its sum_exec_runtime rescaled
 * by cputime_adjust(), so it equals the runtime /proc/PID/schedstat shows
 * of the zombie but for the microsecond truncation of the two timevals.
 */
#define TOTAL_RUNTIME_MAX_US	50

/*
 * Below this share of the wall time for tracee and tracer (same CPU), or
 * above this run-queue wait of a cross-CPU tracee, the CPU was shared: the
 * pair then runs from ticks that end other tasks' slices, its mode at a
 * tick is no longer independent of the tick, and a healthy utime reads
 * from 0 to 6.5 times the truth. Such a run is repeated with the pair at
 * SCHED_FIFO, which no CFS task preempts; where that is refused, it skips.
 */
#define SHARED_SHARE		0.97
#define SHARED_DELAY		0.03

/*
 * Steal / wall on the tracee's CPU above which a low ratio is a skip:
 * stolen time goes uncharged, and 3 % of it pulls a healthy ratio to 0.7.
 */
#define STEAL_MAX		0.01

/*
 * Tracer on another CPU, 100 us: the tracee gets 2-23 us more user time
 * per syscall (healthy 0.7-1.5, and up to 1.9 at SCHED_FIFO beside other
 * tasks), which hides inflation (0.95-1.6): only deflation and gross
 * inflation are asserted, the latter guarded like the short levels.
 */
#define CROSS_LO		0.50
#define CROSS_HI		2.00
#define CROSS_MAX_SIGMA		0.10

/*
 * FAR_SIGMAS errors outside a bound fails even without the gate, given
 * FAR_MIN_TICKS user ticks: fewer are biased, not just noisy (a healthy
 * traced 2 us level read 4.2-6.7 with 5 ticks).
 */
#define FAR_SIGMAS		4.0
#define FAR_MIN_TICKS		50

/*
 * Runtime rate: CLOCK_THREAD_CPUTIME_ID gained per ns of the child's own
 * clock while it runs user code (run-queue wait from schedstat taken out),
 * the Theil-Sen slope over segments of 0.5-1.5 ms, so what each boundary
 * syscall costs goes to the intercept. It is 1 on a healthy kernel; a task
 * charged 10 % more or less than it ran reads 1.10 or 0.90.
 */
#define RATE_LO			0.97
#define RATE_HI			1.03
#define RATE_MIN_POINTS		32	/* segments a run must fit */

#define BUDGET_S	18.0	/* whole program at --scale 1 */
/*
 * Below MIN_SCALE the 2 and 10 us levels pool too few ticks at HZ=250 to
 * decide; at MAX_SCALE the budget, in wall time even where every operation
 * is slow, ends at 27 s, far inside a 45 s timeout.
 */
#define MIN_SCALE	0.8
#define MAX_SCALE	1.5
#define REPS		3	/* interleaved repeats per configuration */
#define SEG_CAP		(2u << 20)	/* work segments a run can record */
#define RATE_SAMPLES	8192	/* segments sampled for the median rate */
#define RECALIBRATE_SEGS 32	/* the child re-times its work this often */
#define OUTLIER_FACTOR	4	/* x mean work: preempted, not re-timed */
#define PREEMPT_FACTOR	1.5	/* x expected + slack: preempted, */
#define PREEMPT_SLACK_NS 10000.0 /* counted at the median rate */
/*
 * At SCHED_FIFO no CFS task preempts the child: a longer segment was
 * interrupts, charged to it, and is truth; only a gap the length of a
 * fair-server or RT-throttling slice (tens of ms) is preemption.
 */
#define FIFO_PREEMPT_SLACK_NS	(2.0 * NSEC_PER_MSEC)
#define SEED_PER_REP	7919	/* distinct primes: each run its own */
#define SEED_PER_LEVEL	131	/* sequence of segment lengths */
#define CAP_MARGIN	1.2	/* room for a run: its wall cap x this */
#define FORK_EXIT_S	0.1	/* plus fork and exit */
#define WATCHDOG_CAPS	2	/* SIGALRM ends a hung run after its cap */
#define WATCHDOG_SLACK_S 10	/* times this, plus this */
#define EXTRA_STOPS	16	/* beyond two per pread(): start, exit, margin */
#define CALIB_LOOPS	31	/* timed loops of CALIB_ITERS for the rate */
#define CALIB_ITERS	65536
#define SYSCALL_STOP	(SIGTRAP | 0x80)	/* PTRACE_O_TRACESYSGOOD */

enum level { SHORT, MEDIUM, LONG, NR_LEVELS };

/*
 * A run ends after truth_ms of timed user work or max_s of wall time (a slow
 * machine, a regressed kernel): at the caps three repeats take 13.8 s.
 */
static const struct work_level {
	const char *name;
	double work_us;		/* mean user work between two syscalls */
	double truth_ms;	/* traced run: user work to time */
	double max_s;		/* traced run: wall time cap */
	double untraced_truth_ms;
	double untraced_max_s;
} levels[NR_LEVELS] = {
	[SHORT]  = { "short",    2.0,  60, 1.6, 100, 0.20 },
	[MEDIUM] = { "medium",  10.0, 120, 1.0, 100, 0.20 },
	[LONG]   = { "long",   100.0, 150, 0.6, 100, 0.20 },
};

#define CROSS_LEVEL	LONG
#define CROSS_TRUTH_MS	100
#define CROSS_MAX_S	0.8

/* runtime rate runs: RATE_TRUTH_MS / RATE_WORK_US segments of user work */
#define RATE_WORK_US	1000.0
#define RATE_TRUTH_MS	100
#define RATE_MAX_S	0.4
#define RATE_CAP	512	/* segments a rate run can record */

/* a short traced run: do tracing and the vDSO clock work? */
#define PROBE_WORK_NS	NSEC_PER_USEC
#define PROBE_TRUTH_NS	NSEC_PER_MSEC
#define PROBE_MAX_NS	(20 * NSEC_PER_MSEC)
#define PROBE_SEED	1

struct seg {
	unsigned int iters;
	unsigned int ns;
};

/* The child's timed segments: MAP_SHARED, filled before it exits. */
struct seg_log {
	unsigned long nsegs;
	struct seg seg[SEG_CAP];
};

/*
 * The rate child's readings at each boundary between two segments of user
 * work (MAP_SHARED): its runtime and run-queue wait, then the length by its
 * own clock of the segment that follows.
 */
struct rate_pt {
	unsigned long long runtime_ns;	/* CLOCK_THREAD_CPUTIME_ID */
	unsigned long long delay_ns;	/* schedstat run_delay */
	unsigned long long seg_ns;
};

struct rate_log {
	unsigned long nsegs;
	struct rate_pt pt[RATE_CAP + 1];
};

struct run_cfg {
	bool traced;
	bool rate;		/* a runtime rate run */
	bool fifo;		/* the pair at SCHED_FIFO */
	int tracer_cpu;
	int tracee_cpu;
	double work_ns;		/* mean work per segment */
	double ns_per_iter;	/* first guess, re-timed by the child */
	double truth_ns;	/* stop after this much timed work */
	double max_ns;		/* or after this much wall time */
	unsigned int seed;
};

/* The child's exit codes; from 10 on, clear of exit(1) from the library. */
enum child_exit {
	CHILD_OK = 0,
	CHILD_NO_PIN = 10,
	CHILD_NO_TRACEME,
	CHILD_NO_PREAD,
	CHILD_NO_SCHEDSTAT,
};

/* why a run is not valid; the first SKIP reason of a check comes from it */
enum run_fault {
	RUN_OK,
	RUN_NOT_STARTED,	/* the time budget ran out before it */
	RUN_NO_FORK,
	RUN_HUNG,		/* the watchdog ended it */
	RUN_NO_PIN,
	RUN_NO_TRACE,
	RUN_NO_SCHEDSTAT,
	RUN_EXTRA_STOPS,	/* clock reads became syscalls */
	RUN_FEW_SEGMENTS,	/* a rate run reached its wall time cap */
	RUN_CHILD_FAILED,
	NR_RUN_FAULTS
};

static const char *const fault_reason[NR_RUN_FAULTS] = {
	[RUN_NOT_STARTED]  = "too few runs completed in the time budget",
	[RUN_NO_FORK]	   = "fork() failed",
	[RUN_HUNG]	   = "a run overran its wall time cap twice over",
	[RUN_NO_PIN]	   = "the child could not be pinned to its CPU",
	[RUN_NO_TRACE]	   = "PTRACE_TRACEME or PTRACE_SYSCALL refused",
	[RUN_NO_SCHEDSTAT] = "no /proc/PID/schedstat (CONFIG_SCHED_INFO)",
	[RUN_EXTRA_STOPS]  = "more syscall stops than syscalls made: clock reads became syscalls",
	[RUN_FEW_SEGMENTS] = "too few segments of work within the wall time cap: too little CPU",
	[RUN_CHILD_FAILED] = "the child failed",
};

static struct seg_log *child_segs;
static struct rate_log *child_rates;
static int pread_fd = -1;
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
 * The tracee: user work of a random length (uniform in [mean/2, 3*mean/2),
 * so it cannot phase-lock with the tick), timed with the vDSO clock, then
 * one pread(); no other syscall. The mean is re-timed as the CPU drifts.
 */
static void tracee_start(const struct run_cfg *cfg)
{
	if (cfg->tracee_cpu != cfg->tracer_cpu &&
	    (intro_pin(0, cfg->tracee_cpu) ||
	     !intro_current_cpu_ok(cfg->tracee_cpu)))
		_exit(CHILD_NO_PIN);
	if (cfg->traced) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(CHILD_NO_TRACEME);
		raise(SIGSTOP);
	}
}

static void tracee_main(const struct run_cfg *cfg, struct seg_log *segs,
			int fd)
{
	unsigned long long t0, t1, deadline, ns;
	double mean = cfg->work_ns / cfg->ns_per_iter;
	double done_ns = 0, acc_ns = 0, acc_iters = 0;
	unsigned long iters, span, n = 0;
	unsigned int x = cfg->seed | 1;
	char buf[64];

	tracee_start(cfg);
	t0 = intro_now_ns();
	deadline = t0 + (unsigned long long)cfg->max_ns;
	while (n < SEG_CAP) {
		span = mean >= 2 ? (unsigned long)mean : 2;
		iters = span / 2 + xorshift(&x) % span;
		spin(iters);
		t1 = intro_now_ns();
		ns = t1 - t0;
		segs->seg[n].iters = (unsigned int)iters;
		segs->seg[n].ns = ns > ~0u ? ~0u : (unsigned int)ns;
		n++;
		if (pread(fd, buf, sizeof(buf), 0) < 0)
			_exit(CHILD_NO_PREAD);
		if (ns < OUTLIER_FACTOR * cfg->work_ns) {
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
	segs->nsegs = n;
	_exit(CHILD_OK);
}

/* the calling thread's runtime, then its run-queue wait, both in ns */
static int read_own_runtime(int fd, struct rate_pt *pt)
{
	struct timespec ts;
	char buf[96];
	ssize_t len;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return -1;
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	pt->runtime_ns = (unsigned long long)ts.tv_sec * NSEC_PER_SEC +
			 (unsigned long long)ts.tv_nsec;
	return sscanf(buf, "%*u %llu", &pt->delay_ns) == 1 ? 0 : -1;
}

/*
 * The rate child: truth_ns / work_ns segments of user work of a random
 * length (uniform in [mean/2, 3*mean/2), so the slope is well defined)
 * between boundaries at which it reads its own runtime and run-queue wait:
 * two syscalls, four stops traced.
 */
static void rate_tracee_main(const struct run_cfg *cfg, struct rate_log *log)
{
	unsigned long want = (unsigned long)(cfg->truth_ns / cfg->work_ns);
	double mean = cfg->work_ns / cfg->ns_per_iter;
	unsigned long span = mean >= 2 ? (unsigned long)mean : 2, n;
	unsigned long long t0, deadline;
	unsigned int x = cfg->seed | 1;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY);

	if (fd < 0)
		_exit(CHILD_NO_SCHEDSTAT);
	if (want > RATE_CAP)
		want = RATE_CAP;
	tracee_start(cfg);
	deadline = intro_now_ns() + (unsigned long long)cfg->max_ns;
	for (n = 0;; n++) {
		if (read_own_runtime(fd, &log->pt[n]))
			_exit(CHILD_NO_SCHEDSTAT);
		if (n == want || intro_now_ns() >= deadline)
			break;
		t0 = intro_now_ns();
		spin(span / 2 + xorshift(&x) % span);
		log->pt[n].seg_ns = intro_now_ns() - t0;
	}
	log->nsegs = n;
	_exit(CHILD_OK);
}

struct run_result {
	bool valid;
	enum run_fault fault;
	double utime_ns;	/* wait4() ru_utime */
	double stime_ns;	/* wait4() ru_stime */
	double truth_ns;	/* user work timed by the child */
	double excluded_ns;	/* preempted time removed from the truth */
	double sched_ns;	/* schedstat runtime of the zombie */
	double delay_ns;	/* its run-queue wait, traced runs only */
	bool shared;		/* the CPU was shared (SHARED_*) */
	bool fifo;		/* the pair ran at SCHED_FIFO */
	double syscalls;
	double stops;		/* syscall stops seen by the tracer */
	double wall_ns;
	double tracer_ns;	/* the tracer's own CPU time */
	double steal_ns;	/* host steal on the tracee's CPU */
	double rate;		/* rate runs: runtime per ns of own clock */
	double boundary_ns;	/* rate runs: runtime per boundary */
	double rate_points;	/* rate runs: segments fitted */
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

/* @pid's runtime and run-queue wait (/proc/PID/schedstat), ns; NAN if none */
static void read_schedstat(pid_t pid, double *runtime, double *delay)
{
	unsigned long long rt, rd;
	char path[64], buf[128];

	*runtime = NAN;
	*delay = NAN;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (intro_read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%llu %llu", &rt, &rd) != 2)
		return;
	*runtime = (double)rt;
	*delay = (double)rd;
}

/* steal time of @cpu, the 8th value of its /proc/stat line (USER_HZ), in ns */
static double cpu_steal_ns(int cpu)
{
	unsigned long long steal = 0;
	char line[512], want[16];
	size_t len;
	FILE *f;

	len = (size_t)snprintf(want, sizeof(want), "cpu%d ", cpu);
	f = fopen("/proc/stat", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, len))
			continue;
		if (sscanf(line + len, "%*s %*s %*s %*s %*s %*s %*s %llu",
			   &steal) != 1)
			steal = 0;
		break;
	}
	fclose(f);
	return (double)steal * NSEC_PER_SEC / sysconf(_SC_CLK_TCK);
}

/* wait for @pid; EINTR means the watchdog fired */
static int wait_child(pid_t pid, int *status, struct rusage *ru)
{
	return wait4(pid, status, __WALL, ru) == pid ? 0 : -1;
}

/*
 * Resume the tracee at every stop, then read its final schedstat runtime
 * while it is a zombie (waitid() WNOWAIT), before wait4() reaps it. ru_*
 * come from that wait4() only: an earlier read would move the
 * cputime_adjust() monotonicity floor (prev_cputime).
 */
static int trace_tracee(pid_t pid, struct run_result *r, struct rusage *ru,
			int *status)
{
	siginfo_t zombie;
	int st, sig;

	if (wait_child(pid, &st, NULL))
		return -1;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		*status = st;
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT |
			    PTRACE_O_EXITKILL)) ||
	    ptrace(PTRACE_SYSCALL, pid, NULL, NULL)) {
		r->fault = RUN_NO_TRACE;
		return -1;
	}
	for (;;) {
		if (wait_child(pid, &st, NULL) || !WIFSTOPPED(st))
			return -1;
		sig = WSTOPSIG(st);
		if (sig == SYSCALL_STOP) {
			r->stops++;
			sig = 0;
		} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			if (ptrace(PTRACE_CONT, pid, NULL, NULL))
				return -1;
			break;
		} else if (sig == SIGTRAP) {
			sig = 0;
		}
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			return -1;
	}
	if (waitid(P_PID, pid, &zombie, WEXITED | WNOWAIT | __WALL))
		return -1;
	read_schedstat(pid, &r->sched_ns, &r->delay_ns);
	if (wait_child(pid, status, ru))
		return -1;
	return WIFEXITED(*status) && WEXITSTATUS(*status) == CHILD_OK ? 0 : -1;
}

/*
 * The truth: the timed segments, one longer than expected (beyond @slack
 * ns) counted at the median rate: it was preempted.
 */
static void derive_truth(const struct seg_log *segs, struct run_result *r,
			 double slack)
{
	static double rate[RATE_SAMPLES];
	unsigned long i, n = segs->nsegs, stride, m = 0;
	double med, expect, ns;

	if (!n || n > SEG_CAP) {
		r->valid = false;
		return;
	}
	stride = n / RATE_SAMPLES + 1;
	for (i = 0; i < n && m < RATE_SAMPLES; i += stride)
		rate[m++] = (double)segs->seg[i].ns / segs->seg[i].iters;
	med = intro_median(rate, m, false);
	r->truth_ns = 0;
	r->excluded_ns = 0;
	for (i = 0; i < n; i++) {
		expect = med * segs->seg[i].iters;
		ns = segs->seg[i].ns;
		if (ns > PREEMPT_FACTOR * expect + slack) {
			r->excluded_ns += ns - expect;
			ns = expect;
		}
		r->truth_ns += ns;
	}
	r->syscalls = (double)n;
}

/*
 * The runtime rate: per segment, x = its length by the child's clock less
 * the run-queue wait around it and y = the runtime it gained; the slope of
 * y on x. What the boundary syscalls and stops cost is the intercept.
 */
static void derive_rate(const struct rate_log *log, struct run_result *r)
{
	static double x[RATE_CAP], y[RATE_CAP];
	const struct rate_pt *p = log->pt;
	unsigned long i, n = log->nsegs, m = 0;

	if (n > RATE_CAP) {
		r->valid = false;
		r->fault = RUN_CHILD_FAILED;
		return;
	}
	for (i = 0; i < n; i++) {
		x[m] = (double)p[i].seg_ns -
		       (double)(p[i + 1].delay_ns - p[i].delay_ns);
		y[m] = (double)(p[i + 1].runtime_ns - p[i].runtime_ns);
		r->truth_ns += (double)p[i].seg_ns;
		if (x[m] > 0)
			m++;
	}
	r->syscalls = 2.0 * (double)(n + 1);
	r->rate_points = (double)m;
	if (m < RATE_MIN_POINTS) {
		r->valid = false;
		r->fault = RUN_FEW_SEGMENTS;
		return;
	}
	r->rate = intro_theil_sen(x, y, m);
	for (i = 0; i < m; i++)
		y[i] -= r->rate * x[i];
	r->boundary_ns = intro_median(y, m, false);
}

/* what a child's wait status says went wrong; @st is -1 when unknown */
static enum run_fault child_fault(int st)
{
	if (st == -1 || !WIFEXITED(st))
		return RUN_CHILD_FAILED;
	switch (WEXITSTATUS(st)) {
	case CHILD_NO_PIN:
		return RUN_NO_PIN;
	case CHILD_NO_TRACEME:
		return RUN_NO_TRACE;
	case CHILD_NO_SCHEDSTAT:
		return RUN_NO_SCHEDSTAT;
	default:
		return RUN_CHILD_FAILED;
	}
}

/*
 * The calling thread (the tracer, and the tracee it forks) at SCHED_FIFO,
 * the lowest priority, or back at SCHED_OTHER. Return: 0, or -1 (errno).
 */
static int set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

/* share of the wall time the CPU gave the tracee and the tracer */
static double cpu_share(const struct run_result *r)
{
	return (r->utime_ns + r->stime_ns + r->tracer_ns) / r->wall_ns;
}

/*
 * Was the CPU shared with other tasks during this run (SHARED_*)? Not at
 * SCHED_FIFO: no CFS slice ending at a tick starts the tracee there, and
 * what a cross-CPU tracee still waits for (another SCHED_FIFO task, the
 * end of a kernel section) is not timed by the tick. Waiting 5-35 % of its
 * runs beside a second copy of this program, it read 0.98-1.75.
 */
static bool run_shared(const struct run_cfg *cfg, const struct run_result *r)
{
	if (!r->valid || cfg->rate || r->fifo)
		return false;
	if (cfg->tracee_cpu != cfg->tracer_cpu)
		return r->delay_ns > SHARED_DELAY * r->wall_ns;
	return cpu_share(r) < SHARED_SHARE;
}

/* One run of the tracee: fork, (trace), reap, derive. */
static void measure(const struct run_cfg *cfg, struct run_result *r)
{
	unsigned long long c0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	unsigned long long t0 = intro_now_ns();
	double steal0 = cpu_steal_ns(cfg->tracee_cpu);
	struct rusage ru;
	int st = -1, err;
	bool hung;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->sched_ns = NAN;
	r->delay_ns = NAN;
	r->rate = NAN;
	r->fault = RUN_CHILD_FAILED;
	child_segs->nsegs = 0;
	child_rates->nsegs = 0;
	if (intro_pin(0, cfg->tracer_cpu)) {
		r->fault = RUN_NO_PIN;
		return;
	}
	r->fifo = cfg->fifo && !set_fifo(true);
	alarm((unsigned int)(WATCHDOG_CAPS * cfg->max_ns / NSEC_PER_SEC) +
	      WATCHDOG_SLACK_S);
	pid = intro_fork();
	if (pid < 0) {
		alarm(0);
		set_fifo(false);
		r->fault = RUN_NO_FORK;
		return;
	}
	if (!pid) {
		if (cfg->rate)
			rate_tracee_main(cfg, child_rates);
		tracee_main(cfg, child_segs, pread_fd);
	}
	r->fault = RUN_OK;
	errno = 0;
	if (cfg->traced)
		err = trace_tracee(pid, r, &ru, &st);
	else
		err = wait_child(pid, &st, &ru) || !WIFEXITED(st) ||
		      WEXITSTATUS(st) != CHILD_OK;
	hung = err && errno == EINTR;
	alarm(0);
	if (err)
		intro_kill_wait(pid);
	set_fifo(false);
	if (err) {
		if (r->fault == RUN_OK)
			r->fault = hung ? RUN_HUNG : child_fault(st);
		return;
	}
	r->wall_ns = (double)(intro_now_ns() - t0);
	r->tracer_ns = (double)(intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0);
	r->steal_ns = cpu_steal_ns(cfg->tracee_cpu) - steal0;
	r->utime_ns = tv_ns(&ru.ru_utime);
	r->stime_ns = tv_ns(&ru.ru_stime);
	r->valid = true;
	if (cfg->rate)
		derive_rate(child_rates, r);
	else
		derive_truth(child_segs, r, cfg->fifo ? FIFO_PREEMPT_SLACK_NS :
					       PREEMPT_SLACK_NS);
	if (!r->valid && r->fault == RUN_OK)
		r->fault = RUN_CHILD_FAILED;
	/* more stops than two per syscall made: a clock read was a syscall */
	if (cfg->traced && r->stops > 2 * r->syscalls + EXTRA_STOPS) {
		r->valid = false;
		r->fault = RUN_EXTRA_STOPS;
	}
	r->shared = run_shared(cfg, r);
}

/* ns per spin() increment on @cpu: median of short timed loops */
static double ns_per_iter(int cpu)
{
	double v[CALIB_LOOPS];
	unsigned long long t0;
	size_t i;

	intro_pin(0, cpu);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		t0 = intro_now_ns();
		spin(CALIB_ITERS);
		v[i] = (double)(intro_now_ns() - t0) / CALIB_ITERS;
	}
	return intro_median(v, ARRAY_SIZE(v), false);
}

static struct intro_opts opts;

/* where the runs go and the units they are judged in, from setup() */
static struct {
	int same_cpu;		/* the tracer's, and a same-CPU tracee's */
	int other_cpu;		/* a cross-CPU tracee's */
	bool have_cross;
	int nohz_full_cpus;	/* usable CPUs left out: vtime, not ticks */
	bool fifo;		/* SCHED_FIFO allowed */
	bool fifo_on;		/* a run found the CPU shared: FIFO from then */
	double jiffy_ns;
	double ns_per_iter;
} plan;

static struct {
	struct run_result untraced[NR_LEVELS][REPS];
	struct run_result traced[NR_LEVELS][REPS];
	struct run_result cross[REPS];
	struct run_result rate[2][REPS];	/* [traced] */
} results;

static double run_ratio(const struct run_result *r)
{
	return r->utime_ns / r->truth_ns;
}

static double run_bias_us(const struct run_result *r)
{
	return (r->utime_ns - r->truth_ns) / r->syscalls / NSEC_PER_USEC;
}

static double run_user_share(const struct run_result *r)
{
	double rest = r->utime_ns + r->stime_ns - r->truth_ns;

	return rest > 0 ? (r->utime_ns - r->truth_ns) / rest : 0;
}

/* The valid runs of a configuration: sums, and medians over the runs. */
struct pool {
	int runs;
	int shared;		/* runs on a shared CPU */
	int fifo;		/* runs with the pair at SCHED_FIFO */
	double utime, stime, truth, syscalls;
	double med, min, max;	/* of the judged per-run value */
	double cpu_share;	/* median cpu_share() */
	double wall, steal;
	bool overrun;		/* a run's truth exceeded its runtime */
};

static struct pool pool_runs(const struct run_result *runs,
			     double (*value)(const struct run_result *))
{
	double v[REPS], shares[REPS];
	struct pool p = { 0 };
	int i;

	for (i = 0; i < REPS; i++) {
		if (!runs[i].valid)
			continue;
		p.utime += runs[i].utime_ns;
		p.stime += runs[i].stime_ns;
		p.truth += runs[i].truth_ns;
		p.syscalls += runs[i].syscalls;
		p.wall += runs[i].wall_ns;
		p.steal += runs[i].steal_ns;
		if (runs[i].utime_ns + runs[i].stime_ns < runs[i].truth_ns)
			p.overrun = true;
		p.shared += runs[i].shared;
		p.fifo += runs[i].fifo;
		shares[p.runs] = cpu_share(&runs[i]);
		v[p.runs++] = value(&runs[i]);
	}
	p.med = intro_median(v, p.runs, false);
	p.min = intro_quantile(v, p.runs, 0, false);
	p.max = intro_quantile(v, p.runs, 1, false);
	p.cpu_share = intro_median(shares, p.runs, false);
	return p;
}

/*
 * Relative error of the pooled ru_utime from tick sampling: N = rtime/jiffy
 * ticks fall in user mode with p = truth/rtime, cputime_adjust() scales that
 * share to rtime: sigma = sqrt((1 - p) / (p N)) = sqrt((rtime - truth) jiffy
 * / (truth rtime)). Without ru_utime in it, a broken utime cannot skip.
 */
static double pool_sigma(const struct pool *p)
{
	double rt = p->utime + p->stime;

	if (p->truth <= 0 || rt <= 0)
		return INFINITY;
	/* at least one tick's worth of system time: the truth can overshoot */
	return sqrt(fmax(rt - p->truth, plan.jiffy_ns) * plan.jiffy_ns /
		    (p->truth * rt));
}

/* pool_sigma() of a ratio as a sigma of run_user_share() */
static double share_sigma(const struct pool *p, double ratio_sigma)
{
	double rest = p->utime + p->stime - p->truth;

	return rest > 0 ? ratio_sigma * p->truth / rest : INFINITY;
}

static double user_ticks(const struct pool *p)
{
	return p->truth / plan.jiffy_ns;
}

struct check {
	const char *name;
	void (*judge)(const struct check *c);
	int level;
	double lo, hi;
	double max_sigma;	/* decide only when the ticks resolve this */
};

static const char steal_reason[] = "host steal time on the tracee's CPU";

/* A CPU shared with other tasks: no value there proves anything. */
static const char *unsure(const struct pool *p)
{
	return p->shared ? "the CPU was shared with other tasks; SCHED_FIFO refused or no better" :
			   NULL;
}

/*
 * Stolen time, or timed work longer than the runtime (preemptions inside
 * segments): a low ratio there proves nothing either.
 */
static const char *unsure_low(const struct pool *p)
{
	if (p->steal > STEAL_MAX * p->wall)
		return steal_reason;
	if (p->overrun)
		return "timed work exceeded the runtime: segments were preempted";
	return unsure(p);
}

/*
 * Why the runs of a configuration are not all valid, for a SKIP: the fault
 * of the first invalid run, its figures on a diagnostic line; NULL when
 * all are valid.
 */
static const char *missing_runs(const struct check *c,
				const struct run_result *runs)
{
	const struct run_result *r;
	int i;

	for (i = 0; i < REPS; i++) {
		r = &runs[i];
		if (r->valid)
			continue;
		ksft_print_msg("%s: invalid_run=%d stops=%.0f syscalls=%.0f segments=%.0f\n",
			       c->name, i, r->stops, r->syscalls,
			       r->rate_points);
		if (r->fault == RUN_FEW_SEGMENTS)
			ksft_print_msg("%s: cpu_share=%.3f wall_ms=%.0f\n",
				       c->name, cpu_share(r),
				       r->wall_ns / NSEC_PER_MSEC);
		return fault_reason[r->fault] ? fault_reason[r->fault] :
						fault_reason[RUN_CHILD_FAILED];
	}
	return NULL;
}

/*
 * Decide when the ticks resolve the bounds (@sigma <= max_sigma) or a value
 * is far out with enough @ticks, else skip; skip with the reason @skip if
 * given (missing_runs(), unsure()), and a value on a side that the runs
 * explain with the reason @low_unsure or @high_unsure.
 */
static void verdict(const struct check *c, const char *skip, double sigma,
		    double ticks, const char *low_unsure,
		    const char *high_unsure, double value)
{
	bool resolved = sigma <= c->max_sigma;
	double far = ticks >= FAR_MIN_TICKS ? FAR_SIGMAS * sigma : INFINITY;
	bool low = value < c->lo && (resolved || value < c->lo - far);
	bool high = value > c->hi && (resolved || value > c->hi + far);

	if (skip)
		intro_report(c->name, KSFT_SKIP, skip);
	else if (low && low_unsure)
		intro_report(c->name, KSFT_SKIP, low_unsure);
	else if (high && high_unsure)
		intro_report(c->name, KSFT_SKIP, high_unsure);
	else if (low || high)
		intro_report(c->name, KSFT_FAIL, NULL);
	else if (!resolved)
		intro_report(c->name, KSFT_SKIP, "too few ticks to decide");
	else
		intro_report(c->name, KSFT_PASS, NULL);
}

/* a pooled ratio, its bounds and, beside it, its gate, ticks and spread */
static void print_ratio(const struct check *c, const struct pool *p,
			double sigma)
{
	intro_figures(c->name,
		      "median_ratio=%.3f bound_lo_ratio=%.2f bound_hi_ratio=%.2f sigma_ratio=%.3f",
		      p->med, c->lo, c->hi, sigma);
	ksft_print_msg("%s: max_sigma_ratio=%.3f user_ticks=%.0f min_ratio=%.3f max_ratio=%.3f\n",
		       c->name, c->max_sigma, user_ticks(p), p->min, p->max);
}

/*
 * Above its bound, a short or medium level's ratio is a bias of some us per
 * syscall over 2 or 10 us of work, which a slow machine (emulation, a small
 * board) reaches while healthy: there it fails only when the user share of
 * the syscall overhead that traced_bias_per_syscall judges (at 2 us, where
 * the ticks resolve it best) is beyond BIAS_HI_SHARE too.
 */
static const char *high_unsure_share(void)
{
	struct pool s = pool_runs(results.traced[SHORT], run_user_share);

	return s.runs && s.med <= BIAS_HI_SHARE ? HEALTHY_SHARE_REASON : NULL;
}

static void judge_runs(const struct check *c, const struct run_result *runs)
{
	struct pool p = pool_runs(runs, run_ratio);
	double sigma = pool_sigma(&p);

	print_ratio(c, &p, sigma);
	ksft_print_msg("%s: runs=%d pooled_ratio=%.3f work_us=%.1f cpu_share=%.3f steal_pct=%.1f\n",
		       c->name, p.runs, p.utime / p.truth,
		       p.truth / p.syscalls / NSEC_PER_USEC, p.cpu_share,
		       100 * p.steal / p.wall);
	ksft_print_msg("%s: shared_runs=%d fifo_runs=%d\n", c->name, p.shared,
		       p.fifo);
	verdict(c, missing_runs(c, runs) ?: unsure(&p), sigma, user_ticks(&p),
		unsure_low(&p), high_unsure_share(), p.med);
}

/*
 * Untraced, medium and long work of one repeat together. Its upper bound
 * meets the same slow-stop bias (1.40 read on a slow emulated arm64): a
 * kernel that charges system time as user time shows in the traced user
 * share as well, so high_unsure_share() guards it too.
 */
static void judge_untraced(const struct check *c)
{
	struct run_result both[REPS];
	const struct run_result *long_run;
	int i;

	for (i = 0; i < REPS; i++) {
		long_run = &results.untraced[LONG][i];
		both[i] = results.untraced[MEDIUM][i];
		both[i].utime_ns += long_run->utime_ns;
		both[i].stime_ns += long_run->stime_ns;
		both[i].truth_ns += long_run->truth_ns;
		both[i].syscalls += long_run->syscalls;
		both[i].wall_ns += long_run->wall_ns;
		both[i].tracer_ns += long_run->tracer_ns;
		if (both[i].valid && !long_run->valid)
			both[i].fault = long_run->fault;
		both[i].valid = both[i].valid && long_run->valid;
	}
	judge_runs(c, both);
}

static void judge_traced(const struct check *c)
{
	const struct run_result *runs = results.traced[c->level];
	struct pool p = pool_runs(runs, run_ratio);
	struct pool s = pool_runs(runs, run_user_share);
	double sigma = pool_sigma(&p);
	const char *high_unsure = NULL;

	if (c->level != LONG)
		high_unsure = high_unsure_share();
	print_ratio(c, &p, sigma);
	ksft_print_msg("%s: runs=%d pooled_ratio=%.3f work_us=%.1f cpu_share=%.3f steal_pct=%.1f\n",
		       c->name, p.runs, p.utime / p.truth,
		       p.truth / p.syscalls / NSEC_PER_USEC, p.cpu_share,
		       100 * p.steal / p.wall);
	ksft_print_msg("%s: shared_runs=%d fifo_runs=%d median_user_share=%.3f\n",
		       c->name, p.shared, p.fifo, s.med);
	verdict(c, missing_runs(c, runs) ?: unsure(&p), sigma, user_ticks(&p),
		unsure_low(&p), high_unsure, p.med);
}

/* tracer and tracee on different CPUs: no CPU share (it waits by design) */
static void judge_cross(const struct check *c)
{
	struct pool p, b;
	double sigma;

	if (!plan.have_cross) {
		intro_figures(c->name, "runs=0 bound_lo_ratio=%.2f bound_hi_ratio=%.2f",
			      c->lo, c->hi);
		intro_report(c->name, KSFT_SKIP, plan.nohz_full_cpus ?
			     "needs two usable CPUs outside nohz_full" :
			     "needs two usable CPUs");
		return;
	}
	p = pool_runs(results.cross, run_ratio);
	b = pool_runs(results.cross, run_bias_us);
	sigma = pool_sigma(&p);
	print_ratio(c, &p, sigma);
	ksft_print_msg("%s: runs=%d median_bias_us=%.2f work_us=%.1f\n",
		       c->name, p.runs, b.med, levels[CROSS_LEVEL].work_us);
	ksft_print_msg("%s: shared_runs=%d fifo_runs=%d\n", c->name, p.shared,
		       p.fifo);
	verdict(c, missing_runs(c, results.cross) ?: unsure(&p), sigma,
		user_ticks(&p), unsure_low(&p), high_unsure_share(), p.med);
}

/* traced error / untraced error of the repeat run next to it */
static void judge_ratio(const struct check *c)
{
	const struct run_result *t = results.traced[c->level];
	const struct run_result *u = results.untraced[c->level];
	struct pool pt = pool_runs(t, run_ratio);
	struct pool pu = pool_runs(u, run_ratio);
	const char *high_unsure = NULL;
	double sigma = hypot(pool_sigma(&pt), pool_sigma(&pu));
	const char *missing = missing_runs(c, t);
	double v[REPS], med;
	int i, n = 0;

	if (!missing)
		missing = missing_runs(c, u);
	for (i = 0; i < REPS; i++)
		if (t[i].valid && u[i].valid)
			v[n++] = run_ratio(&t[i]) / run_ratio(&u[i]);
	med = intro_median(v, n, false);
	intro_figures(c->name,
		      "median_ratio=%.3f bound_lo_ratio=%.2f bound_hi_ratio=%.2f sigma_ratio=%.3f",
		      med, c->lo, c->hi, sigma);
	ksft_print_msg("%s: max_sigma_ratio=%.3f runs=%d min_ratio=%.3f max_ratio=%.3f\n",
		       c->name, c->max_sigma, n,
		       intro_quantile(v, n, 0, false),
		       intro_quantile(v, n, 1, false));
	ksft_print_msg("%s: traced_ratio=%.3f untraced_ratio=%.3f work_us=%.1f cpu_share=%.3f\n",
		       c->name, pt.med, pu.med, levels[c->level].work_us,
		       pt.cpu_share);
	ksft_print_msg("%s: shared_runs=%d fifo_runs=%d\n", c->name,
		       pt.shared + pu.shared, pt.fifo + pu.fifo);
	/*
	 * An untraced ratio pulled low pushes this one up, and so do slow
	 * syscall stops (high_unsure_share()).
	 */
	if (pu.med < UNTRACED_LO)
		high_unsure = unsure_low(&pu);
	if (!high_unsure)
		high_unsure = high_unsure_share();
	verdict(c, missing ?: unsure(&pt) ?: unsure(&pu), sigma, 0,
		unsure_low(&pt), high_unsure, med);
}

/* run_user_share(), traced; the bias per syscall in us beside it */
static void judge_bias(const struct check *c)
{
	const struct run_result *runs = results.traced[c->level];
	struct pool p = pool_runs(runs, run_user_share);
	struct pool b = pool_runs(runs, run_bias_us);
	double sigma = share_sigma(&p, pool_sigma(&p));

	intro_figures(c->name,
		      "median_share=%.3f bound_lo_share=%.2f bound_hi_share=%.2f sigma_share=%.3f",
		      p.med, c->lo, c->hi, sigma);
	ksft_print_msg("%s: max_sigma_share=%.3f runs=%d min_share=%.3f max_share=%.3f\n",
		       c->name, c->max_sigma, p.runs, p.min, p.max);
	ksft_print_msg("%s: median_bias_us=%.2f overhead_us=%.1f work_us=%.1f\n",
		       c->name, b.med,
		       (p.utime + p.stime - p.truth) / p.syscalls / NSEC_PER_USEC,
		       levels[c->level].work_us);
	ksft_print_msg("%s: syscalls=%.0f cpu_share=%.3f\n", c->name,
		       p.syscalls, p.cpu_share);
	ksft_print_msg("%s: shared_runs=%d fifo_runs=%d\n", c->name, p.shared,
		       p.fifo);
	verdict(c, missing_runs(c, runs) ?: unsure(&p), sigma, 0,
		unsure_low(&p), NULL, p.med);
}

/* missing_runs() over the traced runs of every level */
static const char *missing_traced(const struct check *c)
{
	const char *missing = NULL;
	int l;

	for (l = 0; l < NR_LEVELS && !missing; l++)
		missing = missing_runs(c, results.traced[l]);
	return missing;
}

static double run_cover(const struct run_result *r)
{
	return (r->utime_ns + r->stime_ns) / r->truth_ns;
}

/* (ru_utime + ru_stime) / truth, traced, the lowest level median */
static void judge_cover(const struct check *c)
{
	double worst = INFINITY, steal = 0, wall = 0;
	int l, runs = REPS;
	struct pool p;

	for (l = 0; l < NR_LEVELS; l++) {
		p = pool_runs(results.traced[l], run_cover);
		if (p.runs < runs)
			runs = p.runs;
		worst = fmin(worst, p.med);
		steal += p.steal;
		wall += p.wall;
	}
	intro_figures(c->name,
		      "min_median_ratio=%.3f bound_lo_ratio=%.2f runs=%d steal_pct=%.1f",
		      worst, c->lo, runs, 100 * steal / wall);
	/* stolen time is in the truth but not in rtime */
	verdict(c, missing_traced(c), 0, 0,
		steal > STEAL_MAX * wall ? steal_reason : NULL, NULL, worst);
}

/* |ru_utime + ru_stime - the zombie's schedstat runtime|, every traced run */
static void judge_schedstat(const struct check *c)
{
	double worst = -INFINITY, bound_us = TOTAL_RUNTIME_MAX_US;
	struct check bounded = *c;
	const struct run_result *r;
	int i, n = 0, unread = 0;

	for (i = 0; i < NR_LEVELS * REPS; i++) {
		r = &results.traced[i / REPS][i % REPS];
		unread += r->valid && isnan(r->sched_ns);
		if (!r->valid || isnan(r->sched_ns))
			continue;
		worst = fmax(worst, fabs(r->utime_ns + r->stime_ns -
					 r->sched_ns) / NSEC_PER_USEC);
		n++;
	}
	intro_figures(c->name,
		      "max_excess_us=%.1f bound_us=%.0f runs=%d schedstat_unread=%d",
		      worst, bound_us, n, unread);
	if (unread) {
		intro_report(c->name, KSFT_SKIP,
			     "no /proc/PID/schedstat (CONFIG_SCHED_INFO)");
		return;
	}
	bounded.lo = -INFINITY;
	bounded.hi = bound_us;
	verdict(&bounded, missing_traced(c), 0, 0, NULL, NULL, worst);
}

/*
 * The median over the runs of the runtime rate, traced (level 1) or not.
 * Exact, so no tick gate; host steal and IRQ time are not charged to the
 * task (PARAVIRT_TIME_ACCOUNTING, IRQ_TIME_ACCOUNTING), so a low rate
 * beside them proves nothing.
 */
static void judge_rate(const struct check *c)
{
	const struct run_result *runs = results.rate[c->level];
	double v[REPS], b[REPS], points = 0, steal = 0, wall = 0, med;
	int i, n = 0;

	for (i = 0; i < REPS; i++) {
		if (!runs[i].valid || isnan(runs[i].rate))
			continue;
		v[n] = runs[i].rate;
		b[n++] = runs[i].boundary_ns / NSEC_PER_USEC;
		points += runs[i].rate_points;
		steal += runs[i].steal_ns;
		wall += runs[i].wall_ns;
	}
	med = intro_median(v, n, false);
	intro_figures(c->name,
		      "median_rate=%.4f bound_lo_rate=%.2f bound_hi_rate=%.2f runs=%d",
		      med, c->lo, c->hi, n);
	ksft_print_msg("%s: min_rate=%.4f max_rate=%.4f boundary_us=%.1f\n",
		       c->name, intro_quantile(v, n, 0, false),
		       intro_quantile(v, n, 1, false), intro_median(b, n, false));
	ksft_print_msg("%s: segments=%.0f steal_pct=%.1f\n", c->name, points,
		       wall > 0 ? 100 * steal / wall : 0);
	verdict(c, missing_runs(c, runs), 0, 0,
		steal > STEAL_MAX * wall ? steal_reason : NULL, NULL, med);
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
	  BIAS_LO_SHARE, BIAS_HI_SHARE, BIAS_MAX_SIGMA_SHARE },
	{ "total_covers_user_work", judge_cover, 0, COVER_LO, INFINITY, 1 },
	{ "total_within_schedstat", judge_schedstat, 0, 0, 0, 1 },
	{ "cross_cpu_traced_utime_error", judge_cross, CROSS_LEVEL,
	  CROSS_LO, CROSS_HI, CROSS_MAX_SIGMA },
	{ "untraced_runtime_rate", judge_rate, 0, RATE_LO, RATE_HI, 1 },
	{ "traced_runtime_rate", judge_rate, 1, RATE_LO, RATE_HI, 1 },
};

/* one "# run:" group of lines per run (-v, or when a run failed) */
static void print_run(const char *mode, const char *level, int rep,
		      const struct run_result *r)
{
	if (!opts.verbose && r->valid && !r->shared)
		return;
	ksft_print_msg("run: mode=%s level=%s rep=%d valid=%d fault=%d fifo=%d shared=%d\n",
		       mode, level, rep, r->valid, r->fault, r->fifo,
		       r->shared);
	ksft_print_msg("run: syscalls=%.0f stops=%.0f cpu_share=%.3f delay_ms=%.1f\n",
		       r->syscalls, r->stops, cpu_share(r),
		       r->delay_ns / NSEC_PER_MSEC);
	ksft_print_msg("run: utime_ms=%.1f stime_ms=%.1f truth_ms=%.1f excluded_ms=%.1f\n",
		       r->utime_ns / NSEC_PER_MSEC, r->stime_ns / NSEC_PER_MSEC,
		       r->truth_ns / NSEC_PER_MSEC,
		       r->excluded_ns / NSEC_PER_MSEC);
	ksft_print_msg("run: sched_ms=%.1f wall_ms=%.0f tracer_ms=%.1f steal_ms=%.0f\n",
		       r->sched_ns / NSEC_PER_MSEC, r->wall_ns / NSEC_PER_MSEC,
		       r->tracer_ns / NSEC_PER_MSEC,
		       r->steal_ns / NSEC_PER_MSEC);
	if (!isnan(r->rate))
		ksft_print_msg("run: rate=%.4f boundary_us=%.1f segments=%.0f\n",
			       r->rate, r->boundary_ns / NSEC_PER_USEC,
			       r->rate_points);
}

/*
 * One run, if the budget has room for its wall time cap: @truth_ms of
 * timed work, or @max_s of wall time, both times the scale; once more with
 * the pair at SCHED_FIFO if the CPU was shared and that is allowed, and
 * every later run at SCHED_FIFO from then on (the load rarely goes away
 * within seconds, and each shared run would cost its time twice), unless
 * the pair got less of the CPU that way (a same-CPU pair: less of the wall
 * time; a cross-CPU tracee: a longer run-queue wait): then never again.
 */
static void run_one(const struct intro_budget *b, struct run_cfg cfg,
		    double truth_ms, double max_s, const char *level, int rep,
		    struct run_result *r)
{
	bool cross = cfg.tracee_cpu != plan.same_cpu;
	bool better;
	const char *mode = cfg.rate ? (cfg.traced ? "rate_traced" :
						     "rate_untraced") :
			   cross ? "cross" : cfg.traced ? "traced" : "untraced";
	struct run_result again;

	cfg.tracer_cpu = plan.same_cpu;
	cfg.ns_per_iter = plan.ns_per_iter;
	cfg.truth_ns = truth_ms * opts.scale * NSEC_PER_MSEC;
	cfg.max_ns = max_s * opts.scale * NSEC_PER_SEC;
	r->valid = false;
	r->fault = RUN_NOT_STARTED;
	if (intro_budget_left_ns(b) <
	    cfg.max_ns * CAP_MARGIN + FORK_EXIT_S * NSEC_PER_SEC)
		return;
	cfg.fifo = plan.fifo_on;
	measure(&cfg, r);
	print_run(mode, level, rep, r);
	if (!r->shared || !plan.fifo ||
	    intro_budget_left_ns(b) <
	    cfg.max_ns * CAP_MARGIN + FORK_EXIT_S * NSEC_PER_SEC)
		return;
	plan.fifo_on = true;
	cfg.fifo = true;
	measure(&cfg, &again);
	print_run(mode, level, rep, &again);
	better = cross ? again.delay_ns < r->delay_ns :
			 cpu_share(&again) >= cpu_share(r);
	if (again.valid && better) {
		*r = again;
		return;
	}
	/* a cgroup with little RT runtime: SCHED_FIFO only starves the pair */
	plan.fifo = false;
	plan.fifo_on = false;
}

/* each run its own sequence of segment lengths */
static unsigned int run_seed(int rep, int level, bool traced)
{
	return (unsigned int)(rep * SEED_PER_REP + level * SEED_PER_LEVEL +
			      traced + 1);
}

static void run_all(void)
{
	struct run_cfg cfg = { 0 };
	struct intro_budget b;
	int rep, l, t;

	intro_budget_start(&b, BUDGET_S * opts.scale);
	for (rep = 0; rep < REPS; rep++) {
		cfg.rate = false;
		cfg.tracee_cpu = plan.same_cpu;
		for (l = 0; l < NR_LEVELS; l++) {
			cfg.work_ns = levels[l].work_us * NSEC_PER_USEC;
			cfg.traced = false;
			cfg.seed = run_seed(rep, l, false);
			run_one(&b, cfg, levels[l].untraced_truth_ms,
				levels[l].untraced_max_s, levels[l].name, rep,
				&results.untraced[l][rep]);
			cfg.traced = true;
			cfg.seed = run_seed(rep, l, true);
			run_one(&b, cfg, levels[l].truth_ms, levels[l].max_s,
				levels[l].name, rep, &results.traced[l][rep]);
		}
		if (plan.have_cross) {
			cfg.tracee_cpu = plan.other_cpu;
			cfg.work_ns = levels[CROSS_LEVEL].work_us * NSEC_PER_USEC;
			cfg.seed = run_seed(rep, CROSS_LEVEL, true);
			run_one(&b, cfg, CROSS_TRUTH_MS, CROSS_MAX_S,
				levels[CROSS_LEVEL].name, rep,
				&results.cross[rep]);
		}
		cfg.rate = true;
		cfg.tracee_cpu = plan.same_cpu;
		cfg.work_ns = RATE_WORK_US * NSEC_PER_USEC;
		for (t = 0; t < 2; t++) {
			cfg.traced = t;
			cfg.seed = run_seed(rep, NR_LEVELS, t);
			run_one(&b, cfg, RATE_TRUTH_MS, RATE_MAX_S, "rate", rep,
				&results.rate[t][rep]);
		}
	}
	ksft_print_msg("budget: spent_s=%.1f budget_s=%.1f\n",
		       intro_budget_spent_s(&b), BUDGET_S * opts.scale);
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

/* The usable CPUs whose cputime is tick sampled (nohz_full ones: vtime). */
static int tick_cpus(int *cpus)
{
	static char list[4096];
	int n, i, k = 0;

	if (intro_read_file("/sys/devices/system/cpu/nohz_full", list,
			    sizeof(list)) < 0)
		list[0] = '\0';
	n = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	for (i = 0; i < n; i++)
		if (!in_cpulist(list, cpus[i]))
			cpus[k++] = cpus[i];
	return k;
}

/* Precise cputime: always on s390, on powerpc if built with it. */
static bool native_cputime(void)
{
#ifdef __s390__
	return true;
#else
	return intro_kconfig("VIRT_CPU_ACCOUNTING_NATIVE") == 'y';
#endif
}

static int yama_scope(void)
{
	char buf[16];

	if (intro_read_file("/proc/sys/kernel/yama/ptrace_scope", buf,
			    sizeof(buf)) <= 0)
		return 0;
	return atoi(buf);
}

/* Tracing must work, and the child's clock must not be a syscall (stops). */
static const char *probe_tracing(void)
{
	struct run_cfg cfg = {
		.traced = true,
		.tracer_cpu = plan.same_cpu,
		.tracee_cpu = plan.same_cpu,
		.work_ns = PROBE_WORK_NS,
		.ns_per_iter = plan.ns_per_iter,
		.truth_ns = PROBE_TRUTH_NS,
		.max_ns = PROBE_MAX_NS,
		.seed = PROBE_SEED,
	};
	struct run_result r;

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

	plan.nohz_full_cpus = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	if (native_cputime())
		ksft_exit_skip("cputime is not tick sampled (VIRT_CPU_ACCOUNTING_NATIVE)\n");
	n = tick_cpus(cpus);
	plan.nohz_full_cpus -= n;
	if (n < 1)
		ksft_exit_skip("every usable CPU is nohz_full, cputime is not tick sampled\n");
	if (yama_scope() >= 3)
		ksft_exit_skip("Yama ptrace_scope forbids PTRACE_TRACEME\n");
	plan.same_cpu = cpus[n - 1];
	plan.other_cpu = cpus[0];
	plan.have_cross = n >= 2;
	plan.jiffy_ns = (double)intro_jiffy_ns();
	if (sigaction(SIGALRM, &sa, NULL))
		ksft_exit_fail_perror("sigaction");
	child_segs = mmap(NULL, sizeof(*child_segs), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	child_rates = mmap(NULL, sizeof(*child_rates), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (child_segs == MAP_FAILED || child_rates == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	pread_fd = memfd_create("ptrace_utime", 0);
	if (pread_fd < 0 || ftruncate(pread_fd, sysconf(_SC_PAGESIZE)))
		ksft_exit_fail_perror("memfd");
	if (intro_pin(0, plan.same_cpu))
		ksft_exit_skip("cannot pin to a usable CPU\n");
	plan.ns_per_iter = ns_per_iter(plan.same_cpu);
	plan.fifo = !set_fifo(true);
	set_fifo(false);
	why = probe_tracing();
	if (why)
		ksft_exit_skip("%s\n", why);
	ksft_print_msg("plan: same_cpu=%d other_cpu=%d ns_per_iter=%.3f fifo_allowed=%d\n",
		       plan.same_cpu, plan.have_cross ? plan.other_cpu : -1,
		       plan.ns_per_iter, plan.fifo);
	ksft_print_msg("plan: nohz_full_cpus_left_out=%d\n", plan.nohz_full_cpus);
}

static const struct intro_prog prog = {
	.usage =
	"ptrace_utime: the user time (utime) of a child stopped at every\n"
	"syscall by PTRACE_SYSCALL is accounted like that of an untraced child.\n"
	"Guards against the 3.2-rc6 regression bisected to commit 1e5a74059f9\n"
	"(LKML, Dec 2011): traced utime +17%, and ten times too small in a VM.\n"
	"A child alternates user work it times itself with pread(); a ratio is\n"
	"its wait4() ru_utime / that time. Checks (bounds printed with figures):\n"
	"  untraced_utime_error            ratio untraced (10 and 100 us of work)\n"
	"  traced_utime_error_short_work   ratio traced, 2 us of work per syscall\n"
	"  traced_utime_error_medium_work  ratio traced, 10 us\n"
	"  traced_utime_error_long_work    ratio traced, 100 us\n"
	"  traced_untraced_ratio           traced ratio / untraced ratio, 10 us\n"
	"  traced_bias_per_syscall         share of the CPU time beyond the timed\n"
	"                                  work charged as user time, traced, 2 us\n"
	"  total_covers_user_work          ru_utime + ru_stime >= timed work\n"
	"  total_within_schedstat          |ru_utime + ru_stime - schedstat| <= 50 us\n"
	"  cross_cpu_traced_utime_error    ratio traced from another CPU, 100 us\n"
	"  untraced_runtime_rate           runtime gained per ns the child ran\n"
	"                                  user code by its own clock (~1 ms\n"
	"                                  per boundary), untraced\n"
	"  traced_runtime_rate             the same, traced\n"
	"A check skips when the timer ticks it pooled cannot resolve its bounds.\n"
	"Needs: tracing a child (Yama ptrace_scope 0 or 1, or 2 with\n"
	"CAP_SYS_PTRACE), tick-sampled cputime (a CPU outside nohz_full, not\n"
	"VIRT_CPU_ACCOUNTING_NATIVE), /proc/PID/schedstat (SCHED_INFO), and\n"
	"two usable CPUs for the cross-CPU check.\n",
	.min_scale = MIN_SCALE,
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
		checks[i].judge(&checks[i]);
	munmap(child_segs, sizeof(*child_segs));
	munmap(child_rates, sizeof(*child_rates));
	close(pread_fd);
	ksft_finished();
}
