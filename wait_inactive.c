// SPDX-License-Identifier: GPL-2.0
/*
 * wait_inactive - a tracer's round trip per ptrace stop stays far below one
 * jiffy. Guards 53da1d9456fe ("fix ptrace slowness", LKML, March 2009): a
 * tracer woken by ptrace_stop() could preempt its tracee before it scheduled
 * out, then find it still queued in wait_task_inactive() (through
 * ptrace_check_attach()) and sleep a jiffy, on every stop. The fix keeps
 * preemption off from the wakeup until schedule(); PREEMPT_RT drops that
 * window by design (1aabbc532413). Judged on one CPU (normal tracer, and a
 * tracer whose wakeup always preempts the tracee) and across two; stops that
 * waited on the run queue behind other load are left out.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

#include "introspect_util.h"

/*
 * Bounds, as fractions of one jiffy J (intro_jiffy_ns()) or of the stops.
 * Median round trip < J/4, median request time < J/8: healthy kernels stay
 * below J/16 and J/90 even under emulation; without the fix both are about
 * a jiffy (the first request absorbs the sleep).
 */
#define ROUND_TRIP_MEDIAN_MAX_J		0.25
#define REQUEST_MEDIAN_MAX_J		0.125
/*
 * Slow stops (J/2 or more: far above healthy tails, half the regression's
 * sleep) < 20 % of round trips, < 5 % of requests: host stalls under
 * emulation make up to 3.3 % and 0.7 % (they rarely fall in the short
 * request window); without the fix 57 % to 100 %.
 */
#define ROUND_TRIP_SLOW_MAX		0.20
#define REQUEST_SLOW_MAX		0.05
#define SLOW_THRESHOLD_J		0.5
/*
 * A stop whose tracer and tracee waited J/16 or more on the run queue
 * (run_delay, /proc/PID/schedstat) timed the CPU's other load, not
 * wait_task_inactive(), which sleeps: it is contended and not judged. A
 * judged stop is thus at most J/16 above its own time, below every bound.
 */
#define CONTENDED_RUN_DELAY_J		0.0625

/* The HZ the bounds are set for, those of kernel/Kconfig.hz: 100 to 1000. */
#define JIFFY_MIN_US			1000
#define JIFFY_MAX_US			10000

/* Per placement, both times --scale: healthy, the count ends it. */
#define STOPS_PER_PLACEMENT		40000
#define PLACEMENT_SECONDS		3.5
/* The probe traces a single stop. */
#define PROBE_SECONDS			1.0
/* Fewer judged stops cannot decide: skip. */
#define MIN_STOPS			50
/* Stops traced before recording: first faults, cold caches. */
#define WARMUP_STOPS			8

/* A syscall stop under PTRACE_O_TRACESYSGOOD. */
#define SYSCALL_STOP_SIG		(SIGTRAP | 0x80)
/* Words of a register buffer any arch's NT_PRSTATUS fits in. */
#define REGSET_MAX_WORDS		128
/* The lowest SCHED_FIFO priority: enough to preempt any normal tracee. */
#define TRACER_FIFO_PRIO		1
/* /proc/PID/schedstat: three numbers, the second run_delay in ns. */
#define SCHEDSTAT_MAX_CHARS		96

#define RT_XFAIL_REASON	"PREEMPT_RT drops the preempt-off window of ptrace_stop"

static const struct intro_prog prog = {
	.usage =
	"wait_inactive: the cost of a ptrace stop to its tracer, against one jiffy (J).\n"
	"\n"
	"Guards 53da1d9456fe (\"fix ptrace slowness\", 2009): a tracer that preempted\n"
	"its tracee inside ptrace_stop() slept a jiffy in wait_task_inactive() on every\n"
	"stop. A child loops on getppid() under PTRACE_SYSCALL; per stop the tracer\n"
	"waits, inspects it as strace does (PTRACE_GET_SYSCALL_INFO, PTRACE_GETREGSET:\n"
	"the \"request\") and resumes it (with the wait, the \"round trip\"). A slow stop\n"
	"takes J/2 or more. On PREEMPT_RT a failure is an XFAIL: RT drops the fix's\n"
	"preempt-off window by design (1aabbc532413).\n"
	"\n"
	"Checks: same_cpu_* tracer and tracee on one CPU, fifo_tracer_* the same with\n"
	"a SCHED_FIFO tracer (where refused: a SCHED_IDLE tracee), whose wakeup always\n"
	"preempts the tracee, cross_cpu_* on two CPUs. A stop whose tracer and tracee\n"
	"waited J/16 or more on the run queue (other load) is not judged.\n"
	"  same_cpu_round_trip_median            median round trip < J/4\n"
	"  same_cpu_round_trip_slow_fraction     slow round trips < 20 %\n"
	"  same_cpu_request_median               median request < J/8\n"
	"  same_cpu_request_slow_fraction        slow requests < 5 %\n"
	"  fifo_tracer_round_trip_median         median round trip < J/4\n"
	"  fifo_tracer_round_trip_slow_fraction  slow round trips < 20 %\n"
	"  fifo_tracer_request_median            median request < J/8\n"
	"  fifo_tracer_request_slow_fraction     slow requests < 5 %\n"
	"  cross_cpu_request_median              median request < J/8\n"
	"\n"
	"Needs: tracing a child (Yama ptrace_scope 0 or 1, or 2 with CAP_SYS_PTRACE),\n"
	"PTRACE_GET_SYSCALL_INFO (v5.3); cross_cpu_* two usable CPUs; HZ from 100\n"
	"to 1000; /proc/PID/schedstat (SCHED_INFO) to leave contended stops out.\n"
	"Runs at most 10.5 s x scale + 1 s (a healthy kernel: about 6 s).\n",
	/* 35 ms a stop (HZ=100, a jiffy sleep per request) still gives 67 stops */
	.min_scale = 0.75,
	/* 27 s even when the time budget ends every placement */
	.max_scale = 2.5,
};

/* Exit codes of a tracee that could not start (intro_fork() uses 1). */
enum tracee_exit {
	TRACEE_PIN_FAILED = 2,
	TRACEE_TRACEME_FAILED,
};

enum placement_id {
	SAME_CPU,
	SAME_CPU_FIFO,
	CROSS_CPU,
	NR_PLACEMENTS,
};

/* What one placement measured; times in microseconds, sorted. */
struct placement {
	const char *name;
	bool fifo;
	bool cross;
	bool measured;
	const char *skip;	/* constant reason when it cannot decide */
	char skip_figures[128];	/* the figures that show the reason */
	const char *preempter;	/* what makes the tracer's wakeup preempt */
	bool fifo_set;
	double *round_trip_us;	/* of the judged stops */
	double *request_us;
	size_t stops;		/* judged */
	size_t contended;	/* waited on the run queue: not judged */
	size_t contended_slow;
	bool run_delay_read;
	double judged_wait_max_us;
	size_t other_stops;
	double seconds;
	long nvcsw;		/* tracer's voluntary switches (sleeps) */
	long nivcsw;
};

static struct placement placements[NR_PLACEMENTS] = {
	[SAME_CPU] = { .name = "same_cpu" },
	[SAME_CPU_FIFO] = { .name = "fifo_tracer", .fifo = true },
	[CROSS_CPU] = { .name = "cross_cpu", .cross = true },
};

static struct intro_opts opts;
static double jiffy_us;
static const char *failed_request;	/* the inspection request refused */
static int tracer_cpu, tracee_cpu_other;
static int nr_cpus;
static bool preempt_rt;

static long ptrace_req(long request, pid_t pid, void *addr, void *data)
{
	return syscall(SYS_ptrace, request, pid, addr, data);
}

/* The tracee: on @cpu (if >= 0), traced by its parent, stops once, loops. */
static void tracee(int cpu)
{
	if (cpu >= 0 && intro_pin(0, cpu))
		_exit(TRACEE_PIN_FAILED);
	if (ptrace_req(PTRACE_TRACEME, 0, NULL, NULL)) {
		ksft_print_msg("probe: traceme_errno=%d\n", errno);
		fflush(stdout);
		_exit(TRACEE_TRACEME_FAILED);
	}
	raise(SIGSTOP);
	for (;;)
		syscall(SYS_getppid);
}

enum trace_status {
	TRACE_OK,
	TRACE_NOT_PERMITTED,
	TRACE_INSPECTION_REFUSED,
};

/* Kill the tracee @pid and exit with "@what: <errno>". */
static __noreturn void kill_exit_perror(pid_t pid, const char *what)
{
	int err = errno;

	intro_kill_wait(pid);
	errno = err;
	ksft_exit_fail_perror(what);
}

/* waitpid() for the next stop of @pid; dies if the tracee did not stop. */
static int wait_stop(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, __WALL) < 0) {
		if (errno != EINTR)
			kill_exit_perror(pid, "waitpid");
	}
	if (!WIFSTOPPED(status)) {
		intro_kill_wait(pid);
		ksft_exit_fail_msg("tracee ended unexpectedly (status %#x)\n",
				   status);
	}
	return WSTOPSIG(status);
}

/*
 * What strace does at each syscall stop: which syscall, then the registers,
 * both through ptrace_check_attach(). Return: 0, or -1 with errno set.
 */
static int inspect(pid_t pid)
{
	struct ptrace_syscall_info info;
	unsigned long long regs[REGSET_MAX_WORDS];
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(regs) };
	long len;

	failed_request = "PTRACE_GET_SYSCALL_INFO";
	len = ptrace_req(PTRACE_GET_SYSCALL_INFO, pid,
			 (void *)sizeof(info), &info);
	if (len < 0)
		return -1;
	if (info.op != PTRACE_SYSCALL_INFO_ENTRY &&
	    info.op != PTRACE_SYSCALL_INFO_EXIT) {
		errno = EPROTO;
		return -1;
	}
	failed_request = "PTRACE_GETREGSET";
	if (ptrace_req(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return -1;
	failed_request = NULL;
	return 0;
}

/* run_delay in ns: the second number of the schedstat file open as @fd. */
static long long read_run_delay_ns(int fd)
{
	char buf[SCHEDSTAT_MAX_CHARS], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	strtoull(buf, &end, 10);
	return strtoll(end, NULL, 10);
}

/*
 * The run-queue wait so far of the tracer (@fd[0]) plus the tracee (@fd[1],
 * if open), in ns, -1 if unknown. sched_info adds a wait when the task next
 * runs or is dequeued, so a stopped tracee's and the running tracer's are
 * complete.
 */
static long long run_delay_ns(const int fd[2])
{
	long long tracer, tracee = 0;

	if (fd[0] < 0)
		return -1;
	tracer = read_run_delay_ns(fd[0]);
	if (fd[1] >= 0)
		tracee = read_run_delay_ns(fd[1]);
	return tracer < 0 || tracee < 0 ? -1 : tracer + tracee;
}

/* Judge a stop, or count it contended when it @waited on the run queue. */
static void record_stop(struct placement *p, uint64_t round_trip_ns,
			uint64_t request_ns, long long waited)
{
	double round_trip_us = (double)round_trip_ns / NSEC_PER_USEC;
	double waited_us = (double)waited / NSEC_PER_USEC;

	if (waited_us >= CONTENDED_RUN_DELAY_J * jiffy_us) {
		p->contended++;
		p->contended_slow += round_trip_us >= SLOW_THRESHOLD_J * jiffy_us;
		return;
	}
	p->round_trip_us[p->stops] = round_trip_us;
	p->request_us[p->stops] = (double)request_ns / NSEC_PER_USEC;
	if (waited_us > p->judged_wait_max_us)
		p->judged_wait_max_us = waited_us;
	p->stops++;
}

/* Resume @pid to its next syscall stop, delivering @sig. */
static void resume(pid_t pid, int sig)
{
	if (ptrace_req(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
		kill_exit_perror(pid, "PTRACE_SYSCALL");
}

/*
 * Trace @pid's syscall stops, skipping the first @warmup, until @cap are
 * recorded or @budget is spent. Round trip: from before PTRACE_SYSCALL to
 * the end of the next stop's inspection; request: the inspection alone
 * (not the resume: a same-CPU tracer's wakeup of the tracee can preempt it).
 * The run-queue wait is read between stops, outside both: the tracer's, and
 * on one CPU, where the round trip is judged, the tracee's.
 */
static enum trace_status trace_stops(struct placement *p, pid_t pid,
				     size_t warmup, size_t cap,
				     const struct intro_budget *budget)
{
	enum trace_status st = TRACE_OK;
	long long rd0, rd1, waited;
	struct rusage ru0, ru1;
	char path[64];
	size_t seen = 0;
	int sig = 0, stopsig, fd[2], i;
	uint64_t t0, t1, t2;

	fd[0] = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	fd[1] = p->cross ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	rd0 = run_delay_ns(fd);
	p->run_delay_read = rd0 >= 0;
	getrusage(RUSAGE_THREAD, &ru0);
	while (p->stops < cap) {
		t0 = intro_now_ns();
		resume(pid, sig);
		stopsig = wait_stop(pid);
		if (stopsig != SYSCALL_STOP_SIG) {
			/* a signal-delivery stop: pass the signal on */
			sig = stopsig == SIGSTOP || stopsig == SIGTRAP ?
			      0 : stopsig;
			p->other_stops++;
			continue;
		}
		sig = 0;
		t1 = intro_now_ns();
		if (inspect(pid)) {
			st = errno == EPERM ? TRACE_NOT_PERMITTED :
			     TRACE_INSPECTION_REFUSED;
			break;
		}
		t2 = intro_now_ns();
		rd1 = p->run_delay_read ? run_delay_ns(fd) : -1;
		waited = rd1 >= 0 ? rd1 - rd0 : 0;
		rd0 = rd1;
		p->run_delay_read = rd1 >= 0;
		if (seen++ >= warmup)
			record_stop(p, t2 - t0, t2 - t1, waited);
		if (!intro_budget_left_ns(budget))
			break;
	}
	getrusage(RUSAGE_THREAD, &ru1);
	p->nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
	p->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return st;
}

/* Make the calling thread SCHED_FIFO (@on) or SCHED_OTHER again. */
static int set_fifo(bool on)
{
	struct sched_param sp = { .sched_priority = on ? TRACER_FIFO_PRIO : 0 };

	return sched_setscheduler(0, on ? SCHED_FIFO | SCHED_RESET_ON_FORK :
				  SCHED_OTHER, &sp);
}

/* cpu.rt_runtime_us of our cgroup v1 cpu hierarchy (RT_GROUP_SCHED), or -1. */
static long long cgroup_rt_runtime_us(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], value[32];
	size_t top;

	if (intro_cgroup_dir("cpu", dir, &top) != 1)
		return -1;
	snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
	if (intro_read_file(path, value, sizeof(value)) <= 0)
		return -1;
	return strtoll(value, NULL, 10);
}

/*
 * Make each wakeup of the tracer preempt the tracee @pid: a SCHED_FIFO
 * tracer; where refused (a cgroup without RT runtime, no RLIMIT_RTPRIO), a
 * SCHED_IDLE tracee, which check_preempt_wakeup_fair() lets any normal
 * task preempt, and which needs no privilege. Return: 0, -1 if neither.
 */
static int make_tracer_preempt(struct placement *p, pid_t pid)
{
	struct sched_param sp = { .sched_priority = 0 };
	int fifo_errno, idle_errno = 0;
	struct rlimit rl;

	if (!set_fifo(true)) {
		p->fifo_set = true;
		p->preempter = "fifo_tracer";
		return 0;
	}
	fifo_errno = errno;
	if (getrlimit(RLIMIT_RTPRIO, &rl))
		rl.rlim_cur = 0;
	if (sched_setscheduler(pid, SCHED_IDLE, &sp))
		idle_errno = errno;
	else
		p->preempter = "idle_tracee";
	snprintf(p->skip_figures, sizeof(p->skip_figures),
		 "fifo_errno=%d rlimit_rtprio=%lld cgroup_rt_runtime_us=%lld idle_errno=%d",
		 fifo_errno, (long long)rl.rlim_cur, cgroup_rt_runtime_us(),
		 idle_errno);
	ksft_print_msg("%s: %s\n", p->name, p->skip_figures);
	return idle_errno ? -1 : 0;
}

/*
 * Start a tracee on @cpu (-1: anywhere), wait for its first stop and set
 * the options. Return: its pid, 0 if tracing a child is not permitted.
 */
static pid_t start_tracee(int cpu)
{
	long opt = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;
	int status;
	pid_t pid;

	pid = intro_fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid)
		tracee(cpu);
	if (waitpid(pid, &status, __WALL) != pid)
		kill_exit_perror(pid, "waitpid");
	if (WIFEXITED(status) &&
	    WEXITSTATUS(status) == TRACEE_TRACEME_FAILED)
		return 0;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		intro_kill_wait(pid);
		ksft_exit_fail_msg("tracee did not stop (status %#x)\n",
				   status);
	}
	if (ptrace_req(PTRACE_SETOPTIONS, pid, NULL, (void *)opt))
		kill_exit_perror(pid, "PTRACE_SETOPTIONS");
	return pid;
}

/* Yama's kernel.yama.ptrace_scope, -1 without Yama. */
static int yama_scope(void)
{
	char buf[16];

	if (intro_read_file("/proc/sys/kernel/yama/ptrace_scope", buf,
			    sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/* Can we trace a child (Yama) and inspect it (PTRACE_GET_SYSCALL_INFO)? */
static enum trace_status probe_tracing(void)
{
	struct placement p = { .name = "probe" };
	double rt[1], req[1];
	struct intro_budget b;
	enum trace_status st;
	pid_t pid;

	p.round_trip_us = rt;
	p.request_us = req;
	pid = start_tracee(-1);
	if (!pid)
		return TRACE_NOT_PERMITTED;
	intro_budget_start(&b, PROBE_SECONDS);
	st = trace_stops(&p, pid, 0, ARRAY_SIZE(rt), &b);
	intro_kill_wait(pid);
	return st;
}

/* What a placement measured beside its judged stops. */
static void print_placement(const struct placement *p, int tracee_cpu)
{
	ksft_print_msg("%s: tracer_cpu=%d tracee_cpu=%d stops=%zu seconds=%.2f\n",
		       p->name, tracer_cpu, tracee_cpu, p->stops, p->seconds);
	ksft_print_msg("%s: other_stops=%zu nvcsw=%ld nivcsw=%ld\n",
		       p->name, p->other_stops, p->nvcsw, p->nivcsw);
	if (p->preempter)
		ksft_print_msg("%s: wakeup_preempted_by=%s\n", p->name,
			       p->preempter);
	if (!p->run_delay_read) {
		ksft_print_msg("%s: run_delay_read=0\n", p->name);
		return;
	}
	ksft_print_msg("%s: contended=%zu contended_slow=%zu\n", p->name,
		       p->contended, p->contended_slow);
	ksft_print_msg("%s: judged_wait_max_us=%.1f bound_us=%.0f\n", p->name,
		       p->judged_wait_max_us,
		       CONTENDED_RUN_DELAY_J * jiffy_us);
}

static void measure(struct placement *p, const struct intro_budget *total)
{
	size_t cap = (size_t)(STOPS_PER_PLACEMENT * opts.scale);
	double seconds = PLACEMENT_SECONDS * opts.scale;
	double left = (double)intro_budget_left_ns(total) / NSEC_PER_SEC;
	int tracee_cpu = p->cross ? tracee_cpu_other : tracer_cpu;
	struct intro_budget budget;
	enum trace_status st;
	pid_t pid;

	p->measured = true;
	if (p->cross && nr_cpus < 2) {
		p->skip = "needs two usable CPUs";
		snprintf(p->skip_figures, sizeof(p->skip_figures),
			 "usable_cpus=%d", nr_cpus);
		return;
	}
	p->round_trip_us = calloc(cap, sizeof(double));
	p->request_us = calloc(cap, sizeof(double));
	if (!p->round_trip_us || !p->request_us)
		ksft_exit_fail_msg("out of memory for %zu stops\n", cap);
	if (intro_pin(0, tracer_cpu) || !intro_current_cpu_ok(tracer_cpu))
		ksft_exit_fail_msg("cannot pin the tracer to CPU %d\n",
				   tracer_cpu);
	pid = start_tracee(tracee_cpu);
	if (!pid)
		ksft_exit_fail_msg("PTRACE_TRACEME refused after the probe\n");
	if (p->fifo && make_tracer_preempt(p, pid)) {
		intro_kill_wait(pid);
		p->skip = "neither SCHED_FIFO nor SCHED_IDLE permitted";
		return;
	}
	intro_budget_start(&budget, seconds < left ? seconds : left);
	st = trace_stops(p, pid, WARMUP_STOPS, cap, &budget);
	p->seconds = intro_budget_spent_s(&budget);
	if (p->fifo_set && set_fifo(false))
		kill_exit_perror(pid, "restore SCHED_OTHER");
	intro_kill_wait(pid);
	if (st != TRACE_OK)
		ksft_exit_fail_msg("ptrace inspection failed after the probe\n");
	intro_sort(p->round_trip_us, p->stops);
	intro_sort(p->request_us, p->stops);
	snprintf(p->skip_figures, sizeof(p->skip_figures),
		 "stops=%zu contended=%zu min_stops=%d seconds=%.2f",
		 p->stops, p->contended, MIN_STOPS, p->seconds);
	if (p->stops < MIN_STOPS)
		p->skip = p->stops + p->contended < MIN_STOPS ?
			  "too few ptrace stops measured in the time budget" :
			  "CPU contended: too few stops without run-queue wait";
	print_placement(p, tracee_cpu);
}

enum series { ROUND_TRIP, REQUEST };
enum statistic { MEDIAN, SLOW_FRACTION };

struct check {
	const char *name;
	enum placement_id where;
	enum series what;
	enum statistic stat;
	double bound;	/* MEDIAN: fraction of J; SLOW_FRACTION: 0..1 */
};

static const struct check checks[] = {
	{ "same_cpu_round_trip_median", SAME_CPU, ROUND_TRIP, MEDIAN,
	  ROUND_TRIP_MEDIAN_MAX_J },
	{ "same_cpu_round_trip_slow_fraction", SAME_CPU, ROUND_TRIP,
	  SLOW_FRACTION, ROUND_TRIP_SLOW_MAX },
	{ "same_cpu_request_median", SAME_CPU, REQUEST, MEDIAN,
	  REQUEST_MEDIAN_MAX_J },
	{ "same_cpu_request_slow_fraction", SAME_CPU, REQUEST,
	  SLOW_FRACTION, REQUEST_SLOW_MAX },
	{ "fifo_tracer_round_trip_median", SAME_CPU_FIFO, ROUND_TRIP, MEDIAN,
	  ROUND_TRIP_MEDIAN_MAX_J },
	{ "fifo_tracer_round_trip_slow_fraction", SAME_CPU_FIFO, ROUND_TRIP,
	  SLOW_FRACTION, ROUND_TRIP_SLOW_MAX },
	{ "fifo_tracer_request_median", SAME_CPU_FIFO, REQUEST, MEDIAN,
	  REQUEST_MEDIAN_MAX_J },
	{ "fifo_tracer_request_slow_fraction", SAME_CPU_FIFO, REQUEST,
	  SLOW_FRACTION, REQUEST_SLOW_MAX },
	/* Across CPUs wakeups give the round trip long tails: requests only. */
	{ "cross_cpu_request_median", CROSS_CPU, REQUEST, MEDIAN,
	  REQUEST_MEDIAN_MAX_J },
};

/* Fraction (0..1) of the @n samples @v that are >= @threshold. */
static double frac_at_least(const double *v, size_t n, double threshold)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i] >= threshold)
			k++;
	return (double)k / (double)n;
}

/* The tail of sorted series @v of @p, and the round trip median beside it. */
static void print_spread(const char *check, const struct placement *p,
			 const double *v)
{
	ksft_print_msg("%s: p90_us=%.1f p99_us=%.1f max_us=%.0f round_trip_median_us=%.1f\n",
		       check, intro_quantile(v, p->stops, 0.9, true),
		       intro_quantile(v, p->stops, 0.99, true), v[p->stops - 1],
		       intro_median(p->round_trip_us, p->stops, true));
}

static void run_check(const struct check *c, const struct intro_budget *b)
{
	struct placement *p = &placements[c->where];
	double value, bound, half = SLOW_THRESHOLD_J * jiffy_us;
	const double *v;
	int result;

	if (!p->measured)
		measure(p, b);
	if (p->skip) {
		intro_figures(c->name, "%s", p->skip_figures);
		intro_report(c->name, KSFT_SKIP, p->skip);
		return;
	}
	v = c->what == ROUND_TRIP ? p->round_trip_us : p->request_us;
	if (c->stat == MEDIAN) {
		value = intro_median(v, p->stops, true);
		bound = c->bound * jiffy_us;
		intro_figures(c->name, "median_us=%.1f bound_us=%.0f jiffy_us=%.0f stops=%zu",
			      value, bound, jiffy_us, p->stops);
		print_spread(c->name, p, v);
	} else {
		value = frac_at_least(v, p->stops, half);
		bound = c->bound;
		intro_figures(c->name, "slow_pct=%.3f bound_pct=%.1f threshold_us=%.0f stops=%zu",
			      100 * value, 100 * bound, half, p->stops);
	}
	result = value < bound ? KSFT_PASS : preempt_rt ? KSFT_XFAIL : KSFT_FAIL;
	if (result != KSFT_PASS || opts.verbose)
		intro_print_log2_hist(c->name, v, p->stops, "us");
	intro_report(c->name, result, RT_XFAIL_REASON);
}

int main(int argc, char **argv)
{
	int cpus[INTRO_MAX_CPUS];
	struct intro_budget total;
	cpu_set_t saved;
	size_t i;

	intro_parse_opts(argc, argv, &prog, &opts);
	ksft_print_header();
	intro_print_env(&opts);
	intro_budget_start(&total, NR_PLACEMENTS * PLACEMENT_SECONDS *
			   opts.scale + PROBE_SECONDS);

	jiffy_us = (double)intro_jiffy_ns() / NSEC_PER_USEC;
	if (jiffy_us < JIFFY_MIN_US || jiffy_us > JIFFY_MAX_US) {
		ksft_print_msg("jiffy: jiffy_us=%.0f min_us=%d max_us=%d\n",
			       jiffy_us, JIFFY_MIN_US, JIFFY_MAX_US);
		ksft_exit_skip("jiffy length outside the range of HZ\n");
	}
	preempt_rt = !strcmp(intro_preempt_model(), "rt");
	nr_cpus = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	if (nr_cpus < 1 || sched_getaffinity(0, sizeof(saved), &saved))
		ksft_exit_fail_perror("sched_getaffinity");
	tracer_cpu = cpus[nr_cpus - 1];
	tracee_cpu_other = cpus[0];
	switch (probe_tracing()) {
	case TRACE_NOT_PERMITTED:
		ksft_print_msg("probe: ptrace_scope=%d request=%s\n", yama_scope(),
			       failed_request ? failed_request : "PTRACE_TRACEME");
		ksft_exit_skip("tracing a child is not permitted\n");
	case TRACE_INSPECTION_REFUSED:
		ksft_perror(failed_request);
		ksft_exit_skip("%s refused at a syscall stop\n", failed_request);
	case TRACE_OK:
		break;
	}

	ksft_set_plan(ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		run_check(&checks[i], &total);
	sched_setaffinity(0, sizeof(saved), &saved);
	ksft_print_msg("run: seconds=%.2f stops=%zu\n",
		       intro_budget_spent_s(&total), placements[SAME_CPU].stops +
		       placements[SAME_CPU_FIFO].stops +
		       placements[CROSS_CPU].stops);
	for (i = 0; i < NR_PLACEMENTS; i++) {
		free(placements[i].round_trip_us);
		free(placements[i].request_us);
	}
	ksft_finished();
}
