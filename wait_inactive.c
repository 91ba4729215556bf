// SPDX-License-Identifier: GPL-2.0
/*
 * wait_inactive - the cost of a ptrace stop to its tracer, against a plain
 * wakeup between the same two tasks.
 *
 * Guards 53da1d9456fe ("fix ptrace slowness", March 2009): a tracer woken
 * by ptrace_stop() could preempt its tracee before it scheduled out, then
 * find it still queued in wait_task_inactive() (through
 * ptrace_check_attach()) and sleep a jiffy on every stop. The fix keeps
 * preemption off until schedule(); PREEMPT_RT drops that window by design
 * (1aabbc532413). A child alternates blocks of syscall stops and of pipe
 * ping-pong with its tracer, so load and emulation slow both alike; at
 * each stop the tracer inspects it as strace does, against a lookup of
 * the same task without ptrace. Each figure is less its syscalls (0.1 to
 * 3 us each), at the cost of null ones timed at the same stops.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

#include "introspect_util.h"

/*
 * Median pair ratios, each bound 10 % over the highest healthy median of
 * every machine kind in lab/data/grid.tsv. Round trips: 0.83-1.55 (1.55:
 * a KVM guest with every syscall 3.7 us slower). Requests: 2.06-4.95 on
 * one CPU, 2.28-5.58 on two (4.9-5.6: Linux 6.1 and 6.12 under qemu TCG
 * on a busy host), a spread of 2.4 between machines: the lookups share
 * little of a request's work (ptrace_check_attach(), the register copy).
 */
#define ROUND_TRIP_RATIO_MAX		1.75
#define SAME_CPU_REQUEST_RATIO_MAX	5.5
#define CROSS_CPU_REQUEST_RATIO_MAX	6.2

/*
 * A run-queue wait this long timed another task's turn (kernel/sched/fair.c:
 * sysctl_sched_base_slice, 0.75 ms): that round trip is not judged.
 */
#define ANOTHER_TASK_WAIT_NS	500000LL
/* A race like 2009's slows only some requests (60 % of wakeups preempt). */
#define REQUEST_QUANTILE	0.75
/*
 * Syscalls on a round trip's path, [0] stop and [1] pipe, counted from
 * this program's own calls (syscall(), or wrappers that are one syscall in
 * any libc: waitpid() is wait4()): on one CPU the tracer's resume and
 * waitpid() and half the tracee's getppid(), against write() and read() on
 * both sides; across two, a woken task runs while its waker leaves one
 * syscall and enters the next, so half of those.
 */
static const double round_trip_syscalls[2][2] = {
	{ 2.5, 4.0 },	/* same CPU */
	{ 1.5, 2.0 },	/* two CPUs */
};

/* The lookup pair beyond its syscalls: below, mostly their noise. */
#define REF_NET_MIN			0.03
/* Round trips of each kind in a block, and stops skipped at its start. */
#define BLOCK_ROUND_TRIPS	32
#define BLOCK_WARMUP_STOPS	2
/* Pairs of blocks per placement, both times --scale: the count ends it. */
#define MAX_PAIRS		200
#define PLACEMENT_SECONDS	3.0
/* Fewer pairs cannot decide: skip. */
#define MIN_PAIRS		3

#define SYSCALL_STOP_SIG	(SIGTRAP | 0x80)
/* Words of a register buffer any arch's NT_PRSTATUS fits in. */
#define REGSET_MAX_WORDS	128

#define RT_XFAIL_REASON	"PREEMPT_RT drops the preempt-off window of ptrace_stop"

/* Exit codes of a tracee that could not start (intro_fork() uses 1). */
enum tracee_exit {
	TRACEE_PIN_FAILED = 2,
	TRACEE_TRACEME_FAILED,
};

/* What the tracer writes to the tracee's command pipe. */
enum { CMD_PING = 'p', CMD_STOPS = 's' };

/* What the tracer does at a stop, each first after the stop in turn. */
enum stop_work { W_REQUEST, W_LOOKUP, W_NULL, NR_WORK };

struct block {
	double stop[BLOCK_ROUND_TRIPS];		/* stop round trips */
	double plain[BLOCK_ROUND_TRIPS];	/* pipe round trips */
	/* the two inspection requests, their lookup pair, a null pair */
	double work[NR_WORK][BLOCK_ROUND_TRIPS / NR_WORK + 1];
	int stops, plains;			/* round trips without a wait */
	int works[NR_WORK];			/* ... not preempted */
};

/* Per pair of blocks, each block's figure less its syscalls, [1]: reference. */
struct placement {
	const char *name;
	bool cross;
	bool measured;
	const char *skip;
	double *round_trip[2], *request[2], *null_pair[2], *lookup_pair;
	size_t round_trip_pairs, request_pairs, pairs;
	double seconds;
	int schedstat[2];	/* tracer's and tracee's, -1 if absent */
};

static struct placement placements[] = {
	{ .name = "same_cpu" },
	{ .name = "cross_cpu", .cross = true },
};

static struct intro_opts opts;
static int nr_cpus, tracer_cpu, other_cpu;
static bool preempt_rt;
static const char *failed_request;	/* the inspection request refused */
static int cmd_pipe[2], ack_pipe[2];
static int *stops_done;	/* shared: end the tracee's stop block */

static long ptrace_req(long request, pid_t pid, void *addr, void *data)
{
	return syscall(SYS_ptrace, request, pid, addr, data);
}

/* Answers each ping; on CMD_STOPS makes getppid() calls until told. */
static __noreturn void tracee(int cpu)
{
	sigset_t all;
	char c;

	/* a traced task stops even for an ignored signal: block them all */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if (cpu >= 0 && intro_pin(0, cpu))
		_exit(TRACEE_PIN_FAILED);
	if (ptrace_req(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(TRACEE_TRACEME_FAILED);
	raise(SIGSTOP);
	while (read(cmd_pipe[0], &c, 1) == 1) {
		if (c == CMD_PING) {
			if (write(ack_pipe[1], &c, 1) != 1)
				break;
			continue;
		}
		kill(getpid(), SIGSTOP);
		while (!__atomic_load_n(stops_done, __ATOMIC_RELAXED))
			syscall(SYS_getppid);
	}
	_exit(0);
}

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

/* Resume @pid with @request (PTRACE_SYSCALL, PTRACE_CONT), delivering @sig. */
static void resume(pid_t pid, long request, int sig)
{
	if (ptrace_req(request, pid, NULL, (void *)(long)sig))
		kill_exit_perror(pid, "resume");
}

/* What strace does at a stop, both through ptrace_check_attach(). */
static int inspect(pid_t pid)
{
	struct ptrace_syscall_info info;
	unsigned long long regs[REGSET_MAX_WORDS];
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(regs) };

	failed_request = "PTRACE_GET_SYSCALL_INFO";
	if (ptrace_req(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof(info),
		       &info) < 0)
		return -1;
	failed_request = "PTRACE_GETREGSET";
	if (ptrace_req(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		return -1;
	failed_request = NULL;
	return 0;
}

/*
 * Two lookups that lock the task and copy a little out, without
 * ptrace_check_attach(): sched_rr_get_interval() (task_rq_lock()) and
 * prlimit() (tasklist_lock, kernel/sys.c: prlimit64()).
 */
static void query_task(pid_t pid)
{
	struct timespec ts;
	struct rlimit rl;

	sched_rr_get_interval(pid, &ts);
	prlimit(pid, RLIMIT_NOFILE, NULL, &rl);
}

/* Work @w of a stop of @pid; 0, or -1 if the inspection was refused. */
static int stop_work(pid_t pid, int w)
{
	if (w == W_REQUEST)
		return inspect(pid);
	/* the null pair: the same syscalls refused at once (pid -1) */
	query_task(w == W_LOOKUP ? pid : -1);
	return 0;
}

static void send_cmd(pid_t pid, char c)
{
	if (write(cmd_pipe[1], &c, 1) != 1)
		kill_exit_perror(pid, "write to the tracee");
}

/* run_delay in ns: the second number of the schedstat file open as @fd. */
static long long read_run_delay(int fd)
{
	char buf[96], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	strtoull(buf, &end, 10);
	return strtoll(end, NULL, 10);
}

/*
 * Run-queue waits of tracer and tracee so far (0 without SCHED_INFO):
 * sched_info_arrive() adds a wait when the task gets the CPU.
 */
static long long run_delay(const struct placement *p)
{
	long long sum = 0;
	int i;

	for (i = 0; i < 2; i++)
		if (p->schedstat[i] >= 0)
			sum += read_run_delay(p->schedstat[i]);
	return sum;
}

/* A request with an involuntary switch of the tracer timed another task. */
static long long involuntary_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nivcsw;
}

/*
 * Per stop the round trip and, in turn, the request, its reference or the
 * null pair (the first work after a switch pays for cold caches).
 * Return: 0, -1 if the inspection was refused (errno set).
 */
static int stop_block(const struct placement *p, pid_t pid,
		      struct block *b)
{
	int i = 0, k, w, first, sig = 0, stopsig;
	long long waited, preempted;
	uint64_t t0, t1;

	b->stops = 0;
	memset(b->works, 0, sizeof(b->works));
	__atomic_store_n(stops_done, 0, __ATOMIC_RELAXED);
	send_cmd(pid, CMD_STOPS);
	while ((stopsig = wait_stop(pid)) != SIGSTOP)
		resume(pid, PTRACE_CONT, stopsig);
	while (i < BLOCK_WARMUP_STOPS + BLOCK_ROUND_TRIPS) {
		waited = run_delay(p);
		t0 = intro_now_ns();
		resume(pid, PTRACE_SYSCALL, sig);
		stopsig = wait_stop(pid);
		t1 = intro_now_ns();
		waited = run_delay(p) - waited;
		if (stopsig != SYSCALL_STOP_SIG) {
			/* a signal-delivery stop: pass the signal on */
			sig = stopsig == SIGSTOP ? 0 : stopsig;
			continue;
		}
		sig = 0;
		k = i++ - BLOCK_WARMUP_STOPS;
		if (k >= 0 && waited < ANOTHER_TASK_WAIT_NS)
			b->stop[b->stops++] = t1 - t0;
		first = (k + NR_WORK) % NR_WORK;
		preempted = involuntary_switches();
		t0 = intro_now_ns();
		if (stop_work(pid, first))
			return -1;
		t1 = intro_now_ns();
		if (k >= 0 && involuntary_switches() == preempted)
			b->work[first][b->works[first]++] = t1 - t0;
		for (w = 0; w < NR_WORK; w++)
			if (w != first && stop_work(pid, w))
				return -1;
	}
	__atomic_store_n(stops_done, 1, __ATOMIC_RELAXED);
	resume(pid, PTRACE_CONT, 0);
	return 0;
}

/* One block of pipe round trips with @pid (resumed by PTRACE_CONT). */
static void plain_block(const struct placement *p, pid_t pid,
			struct block *b)
{
	long long waited;
	uint64_t t0, t1;
	char c;
	int i;

	b->plains = 0;
	for (i = 0; i < BLOCK_ROUND_TRIPS; i++) {
		waited = run_delay(p);
		t0 = intro_now_ns();
		send_cmd(pid, CMD_PING);
		if (read(ack_pipe[0], &c, 1) != 1)
			kill_exit_perror(pid, "read from the tracee");
		t1 = intro_now_ns();
		if (run_delay(p) - waited < ANOTHER_TASK_WAIT_NS)
			b->plain[b->plains++] = t1 - t0;
	}
}

/*
 * A tracee on @cpu (-1: anywhere) at its first stop; 0: not permitted,
 * -1: a task limit refused it (EAGAIN).
 */
static pid_t start_tracee(int cpu)
{
	int status;
	pid_t pid;

	pid = intro_fork();
	if (pid < 0 && errno == EAGAIN)
		return -1;
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid)
		tracee(cpu);
	if (waitpid(pid, &status, __WALL) != pid)
		kill_exit_perror(pid, "waitpid");
	if (WIFEXITED(status) && WEXITSTATUS(status) == TRACEE_TRACEME_FAILED)
		return 0;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
		intro_kill_wait(pid);
		ksft_exit_fail_msg("tracee did not stop (status %#x)\n", status);
	}
	if (ptrace_req(PTRACE_SETOPTIONS, pid, NULL,
		       (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)))
		kill_exit_perror(pid, "PTRACE_SETOPTIONS");
	resume(pid, PTRACE_CONT, 0);
	return pid;
}

/* REQUEST_QUANTILE of each work of @b; -1 if under half were kept. */
static int work_quantiles(struct block *b, double *q)
{
	int w;

	for (w = 0; w < NR_WORK; w++) {
		if (2 * NR_WORK * b->works[w] < BLOCK_ROUND_TRIPS)
			return -1;
		q[w] = intro_quantile(b->work[w], b->works[w],
				      REQUEST_QUANTILE, false);
	}
	return 0;
}

/* Measure alternating blocks until MAX_PAIRS x scale or the time is spent. */
static void measure(struct placement *p, const struct intro_budget *total)
{
	size_t cap = (size_t)(MAX_PAIRS * opts.scale), k;
	double left = (double)intro_budget_left_ns(total) / NSEC_PER_SEC;
	double seconds = PLACEMENT_SECONDS * opts.scale;
	struct intro_budget budget;
	double q[NR_WORK], null;
	struct block b;
	char path[64];
	pid_t pid;
	int i;

	p->measured = true;
	if (p->cross && nr_cpus < 2) {
		p->skip = "needs two usable CPUs";
		return;
	}
	for (i = 0; i < 2; i++) {
		p->round_trip[i] = calloc(cap, sizeof(double));
		p->request[i] = calloc(cap, sizeof(double));
		p->null_pair[i] = calloc(cap, sizeof(double));
		if (!p->round_trip[i] || !p->request[i] || !p->null_pair[i])
			ksft_exit_fail_msg("out of memory for %zu pairs\n", cap);
	}
	p->lookup_pair = calloc(cap, sizeof(double));
	if (!p->lookup_pair)
		ksft_exit_fail_msg("out of memory for %zu pairs\n", cap);
	if (intro_pin(0, tracer_cpu) || sched_getcpu() != tracer_cpu)
		ksft_exit_fail_msg("cannot pin the tracer to CPU %d\n",
				   tracer_cpu);
	pid = start_tracee(p->cross ? other_cpu : tracer_cpu);
	if (pid < 0) {
		p->skip = INTRO_NO_TASK;
		return;
	}
	if (!pid)
		ksft_exit_fail_msg("PTRACE_TRACEME refused after the probe\n");
	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	p->schedstat[0] = open("/proc/thread-self/schedstat", O_RDONLY);
	p->schedstat[1] = open(path, O_RDONLY);
	intro_budget_start(&budget, seconds < left ? seconds : left);
	while (p->pairs < cap && intro_budget_left_ns(&budget)) {
		if (stop_block(p, pid, &b))
			kill_exit_perror(pid, failed_request);
		plain_block(p, pid, &b);
		p->pairs++;
		if (!work_quantiles(&b, q)) {
			k = p->request_pairs++;
			p->request[0][k] = q[W_REQUEST] - q[W_NULL];
			p->request[1][k] = q[W_LOOKUP] - q[W_NULL];
			p->null_pair[0][k] = q[W_NULL];
			p->lookup_pair[k] = q[W_LOOKUP];
		}
		if (2 * b.stops >= BLOCK_ROUND_TRIPS &&
		    2 * b.plains >= BLOCK_ROUND_TRIPS && b.works[W_NULL]) {
			null = intro_median(b.work[W_NULL], b.works[W_NULL],
					    false) / 2;
			k = p->round_trip_pairs++;
			p->round_trip[0][k] = intro_median(b.stop, b.stops, false);
			p->round_trip[1][k] = intro_median(b.plain, b.plains,
							   false);
			for (i = 0; i < 2; i++)
				p->round_trip[i][k] -=
					round_trip_syscalls[p->cross][i] * null;
			p->null_pair[1][k] = 2 * null;
		}
	}
	p->seconds = intro_budget_spent_s(&budget);
	intro_kill_wait(pid);
	for (i = 0; i < 2; i++)
		if (p->schedstat[i] >= 0)
			close(p->schedstat[i]);
}

struct check {
	const char *name;
	int where;		/* index into placements[] */
	bool request;		/* else the round trip */
	double bound;
};

static const struct check checks[] = {
	{ "same_cpu_round_trip_median", 0, false, ROUND_TRIP_RATIO_MAX },
	{ "same_cpu_request_median", 0, true, SAME_CPU_REQUEST_RATIO_MAX },
	{ "cross_cpu_round_trip_median", 1, false, ROUND_TRIP_RATIO_MAX },
	{ "cross_cpu_request_median", 1, true, CROSS_CPU_REQUEST_RATIO_MAX },
};

static const struct intro_prog prog = {
	.usage =
	"wait_inactive: the cost of a ptrace stop to its tracer, against a plain\n"
	"wakeup round trip between the same two tasks.\n"
	"\n"
	"Guards 53da1d9456fe (\"fix ptrace slowness\", 2009): a tracer that preempted\n"
	"its tracee inside ptrace_stop() slept a jiffy in wait_task_inactive() on every\n"
	"stop. One child alternates, in blocks of 32, between syscall stops under\n"
	"PTRACE_SYSCALL and a pipe ping-pong with its tracer under PTRACE_CONT.\n"
	"Round trip: resume to the next stop, against a write to the child and the\n"
	"read of its answer (round trips in which either task waited 0.5 ms or more\n"
	"on a run queue are left out). Request: the inspection strace makes at a\n"
	"stop (PTRACE_GET_SYSCALL_INFO, PTRACE_GETREGSET), against the lookup pair\n"
	"sched_rr_get_interval() and prlimit() of the same task (requests during\n"
	"which the tracer was preempted are left out). Each figure is less its\n"
	"syscalls at the cost of a null pair (the lookup pair refused at once,\n"
	"null_pair_us). Per pair of blocks the ratio of the block medians\n"
	"(requests: third quartiles); each check is the median of those ratios.\n"
	"On PREEMPT_RT a failure is an XFAIL: RT drops the fix's preempt-off\n"
	"window by design (1aabbc532413).\n"
	"\n"
	"Checks (same_cpu_*: tracer and tracee on one CPU; cross_cpu_*: on two):\n"
	"  same_cpu_round_trip_median   stop round trip / pipe round trip <= 1.75\n"
	"  same_cpu_request_median      request / lookup pair <= 5.5\n"
	"  cross_cpu_round_trip_median  stop round trip / pipe round trip <= 1.75\n"
	"  cross_cpu_request_median     request / lookup pair <= 6.2\n"
	"\n"
	"Needs: tracing a child (Yama ptrace_scope 0 or 1, or 2 with CAP_SYS_PTRACE),\n"
	"PTRACE_GET_SYSCALL_INFO (v5.3); cross_cpu_* two usable CPUs.\n"
	"Runs at most 6 s x scale + 1 s (a healthy kernel: about 1 s natively).\n",
	/* a jiffy slept per request at HZ=100 still leaves MIN_PAIRS pairs */
	.min_scale = 1,
	/* 6 s x 6 + 1 s, and a last pair of 1 s per placement, end in 45 s */
	.max_scale = 6,
};

static void run_check(const struct check *c, const struct intro_budget *b)
{
	struct placement *p = &placements[c->where];
	double *const *v = c->request ? p->request : p->round_trip;
	const char *skip;
	double *ratio, value, share, null, net[2];
	int result;
	size_t i, n;

	if (!p->measured)
		measure(p, b);
	skip = p->skip;
	n = c->request ? p->request_pairs : p->round_trip_pairs;
	if (!skip && n < MIN_PAIRS)
		skip = p->pairs < MIN_PAIRS ?
		       "too few block pairs measured in the time budget" :
		       "CPU contended: too few samples another task did not hold up";
	if (skip) {
		intro_figures(c->name,
			      "pairs=%zu judged_pairs=%zu min_pairs=%d usable_cpus=%d seconds=%.2f",
			      p->pairs, n, MIN_PAIRS, nr_cpus, p->seconds);
		intro_report(c->name, KSFT_SKIP, skip);
		return;
	}
	ratio = malloc(n * sizeof(*ratio));
	if (!ratio)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < n; i++)
		ratio[i] = v[0][i] / v[1][i];
	intro_sort(ratio, n);
	value = intro_median(ratio, n, true);
	/* a precondition: the reference is more than its syscalls */
	null = intro_median(p->null_pair[!c->request], n, false);
	for (i = 0; i < 2; i++)
		net[i] = intro_median(v[i], n, false);
	share = net[1] / (c->request ? intro_median(p->lookup_pair, n, false) :
			  net[1] + round_trip_syscalls[p->cross][1] * null / 2);
	ksft_print_msg("%s: %s_net_us=%.2f %s_net_us=%.2f null_pair_us=%.2f\n",
		       c->name, c->request ? "request" : "stop_round_trip",
		       net[0] / NSEC_PER_USEC, c->request ? "lookup_pair" : "plain_round_trip",
		       net[1] / NSEC_PER_USEC, null / NSEC_PER_USEC);
	ksft_print_msg("%s: p10=%.3f p90=%.3f pairs=%zu\n", c->name,
		       intro_quantile(ratio, n, 0.1, true), intro_quantile(ratio, n, 0.9, true), n);
	intro_figures(c->name,
		      "ratio=%.3f bound_hi_ratio=%.2f ref_net_share=%.3f min_ref_net_share=%.2f",
		      value, c->bound, share, REF_NET_MIN);
	if (!(share >= REF_NET_MIN)) {
		free(ratio);
		intro_report(c->name, KSFT_SKIP, c->request ?
			     "lookup pair is mostly syscall entry and exit" :
			     "plain round trip is mostly syscall entry and exit");
		return;
	}
	result = value <= c->bound ? KSFT_PASS :
		 preempt_rt ? KSFT_XFAIL : KSFT_FAIL;
	if (result != KSFT_PASS || opts.verbose)
		intro_print_log2_hist(c->name, ratio, n, "ratio");
	free(ratio);
	intro_report(c->name, result, RT_XFAIL_REASON);
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
static void probe_tracing(void)
{
	struct placement p = { .schedstat = { -1, -1 } };
	pid_t pid = start_tracee(-1);
	struct block b;
	int err;

	if (pid < 0)
		ksft_exit_skip("%s\n", INTRO_NO_TASK);
	if (!pid) {
		ksft_print_msg("probe: ptrace_scope=%d\n", yama_scope());
		ksft_exit_skip("tracing a child is not permitted\n");
	}
	if (stop_block(&p, pid, &b)) {
		err = errno;
		intro_kill_wait(pid);
		errno = err;
		/* ptrace_request(): -EIO for a request this kernel lacks */
		if (err == EIO)
			ksft_exit_skip("%s not supported by this kernel\n", failed_request);
		ksft_exit_fail_perror(failed_request);
	}
	intro_kill_wait(pid);
}

int main(int argc, char **argv)
{
	int cpus[INTRO_MAX_CPUS];
	struct intro_budget total;
	size_t i;

	intro_parse_opts(argc, argv, &prog, &opts);
	ksft_print_header();
	intro_print_env(&opts);
	intro_budget_start(&total, 2 * PLACEMENT_SECONDS * opts.scale + 1);
	preempt_rt = !strcmp(intro_preempt_model(), "rt");
	nr_cpus = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	if (nr_cpus < 1)
		ksft_exit_fail_perror("sched_getaffinity");
	tracer_cpu = cpus[nr_cpus - 1];
	other_cpu = cpus[0];
	stops_done = mmap(NULL, sizeof(*stops_done), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stops_done == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	if (pipe2(cmd_pipe, O_CLOEXEC) || pipe2(ack_pipe, O_CLOEXEC))
		ksft_exit_fail_perror("pipe2");
	probe_tracing();

	ksft_set_plan(ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		run_check(&checks[i], &total);
	ksft_print_msg("run: seconds=%.2f\n", intro_budget_spent_s(&total));
	for (i = 0; i < ARRAY_SIZE(placements); i++) {
		free(placements[i].round_trip[0]);
		free(placements[i].round_trip[1]);
		free(placements[i].request[0]);
		free(placements[i].request[1]);
		free(placements[i].null_pair[0]);
		free(placements[i].null_pair[1]);
		free(placements[i].lookup_pair);
	}
	ksft_finished();
}
