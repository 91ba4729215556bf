// SPDX-License-Identifier: GPL-2.0
/*
 * smaps_perf - what /proc/PID/smaps costs per mapping, measured against
 * /proc/PID/maps and /proc/PID/smaps_rollup of the same target, and whether
 * smaps_rollup adds up to the sum of the smaps entries.
 *
 * Regression guarded: linux-mm, August 2016, "[PACTH v2 0/3] Implement
 * /proc/<pid>/totmaps". A monitor summing Rss/Pss over smaps of a process
 * holding vm.max_map_count one-page shared mappings spent about half of its
 * kernel time in vsnprintf(). Merged in answer: smaps_rollup (493b0e9d945f,
 * v4.14) and the smaps number printer seq_put_decimal_ull_width()
 * (d1be35cb6f96, v4.17).
 *
 * Invariants, on a target blocked in read() that holds N one-page shared
 * anonymous mappings (each its own shmem object, so none can merge): per
 * VMA, each file costs a bounded multiple of the target's own mincore()
 * over the same mappings (code outside fs/proc/task_mmu.c), smaps a bounded
 * multiple of maps and of smaps_rollup; the per-VMA cost does not grow
 * with N; smaps_rollup equals the sum over the smaps entries; maps lists
 * every VMA once, in order.
 *
 * And while a target maps, unmaps, splits and faults beside mappings it
 * never touches: every read of maps and smaps reports each of those with
 * its range, smaps_rollup's Rss stays within what the change allows, and
 * the reader's CPU stays near that of a quiet read. A mapping after one
 * unmapped between two read() calls was lost until 855af072b5e4 ("mm,
 * proc: Fix region lost in /proc/self/smaps", 2016); since 6.17 maps is
 * read under per-VMA locks, not mmap_lock.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect_util.h"

/* ---- Bounds --------------------------------------------------------------- */

/*
 * Each file's reader CPU per VMA against the target's own CPU per VMA in
 * mincore() over the same mappings: a VMA lookup and a page table walk
 * outside fs/proc/task_mmu.c, so a cost added to code the files share
 * (show_map_vma(), m_start()) moves the ratio. Healthy maps read 1.1 to
 * 1.7, smaps 3.5 to 7, smaps_rollup 0.5 to 1; a show_map_vma() 20 us
 * slower per VMA lifts maps to 5 and more, a rollup that stopped walking
 * reads near 0. The bounds sit 2.5 times outside the healthy range.
 */
#define MAPS_REF_MIN_RATIO	0.4
#define MAPS_REF_MAX_RATIO	4.0
#define SMAPS_REF_MIN_RATIO	1.4
#define SMAPS_REF_MAX_RATIO	17.0
#define ROLLUP_REF_MIN_RATIO	0.2
#define ROLLUP_REF_MAX_RATIO	2.5

/*
 * smaps/maps reader CPU per VMA: healthy kernels read 3.7 to 8 (the top on
 * slow CPUs, where formatting weighs more). A show_smap() 20 us slower per
 * VMA, or the revert of d1be35cb6f96, reads 9.2 and more; an smaps that
 * stopped walking page tables falls towards 1.
 */
#define SMAPS_MAPS_MIN_RATIO	1.5
#define SMAPS_MAPS_MAX_RATIO	9.0

/*
 * smaps/smaps_rollup: the rollup walks the same page tables but prints once,
 * so it stays several times cheaper (healthy 4.5 to 33); at 2 it has lost
 * its reason to exist, and a rollup that walks nothing reads over 1000.
 */
#define SMAPS_ROLLUP_MIN_RATIO	2.0
#define SMAPS_ROLLUP_MAX_RATIO	100.0

/*
 * Per-VMA CPU at N over that at N/4, for maps and smaps (read in many read()
 * calls, each re-entering m_start()), each against mincore() over the same
 * target: a larger target misses the caches more, and beside a task that
 * streams through memory maps alone read up to 2.9 (mincore() moves with
 * it). A reader that re-walks the VMAs from the start on every read()
 * tends to 4.
 */
#define SCALING_MAX_RATIO	2.0

/*
 * Pss_Anon + Pss_File + Pss_Shmem against Pss: every page adds to Pss and to
 * one part (smaps_page_accumulate()), and each of the four fixed-point sums
 * is truncated to kB on its own, so the parts are 0 to 2 kB below Pss.
 */
#define PSS_PARTS_SLACK_KB	2

/*
 * How far a PSS field of smaps_rollup may move between the two reads around
 * the smaps read: exec and exit elsewhere move the Pss of shared libc pages
 * by a few kB. A triple that moved more is retried; page counts must not move.
 */
#define PSS_DRIFT_MAX_KB	4

/*
 * smaps_rollup of the churner while it changes: its quiet Rss less what
 * its own stack and data may give back, up to that plus every slot page
 * faulted in; a rollup that loses or repeats VMAs past a dropped lock
 * leaves the range.
 */
#define ROLLUP_SLACK_KB		256

/*
 * Reader CPU per entry while the target changes over the same when it is
 * still, worst of the three files. Lock waits are not CPU; a reader that
 * retries or re-walks VMAs is.
 */
#define CHURN_COST_MAX_RATIO	8.0

/* ---- Sizing and time ------------------------------------------------------ */

#define BUDGET_S		20.0	/* whole run, times --scale */
#define MIN_SCALE		0.25	/* 16384 VMAs: scaling reads as at scale 1 */
#define MAX_SCALE		1.5	/* a 30 s budget ends inside a 45 s timeout */
#define PLAN_FRACTION		0.4	/* plan the work to fill this of it */
#define BUILD_FRACTION		0.4	/* stop growing the targets past this */
#define RESERVE_FRACTION	0.15	/* kept for the checks and teardown */
#define CONS_RESERVES		2	/* consistency leaves reps this many reserves */
#define REP_HEADROOM		1.5	/* start a rep if 1.5x the last one fits */
#define PLAN_WALL_MAX_CPU	2	/* a calibration stall counts at most 2x CPU */
#define VMAS_PER_SCALE		65536	/* largest target at --scale 1 */
#define LARGE_MIN_VMAS		4096	/* below: cost checks skip */
#define SIZE_RATIO		4	/* large target / small target */
#define CAL_VMAS		1024	/* first mappings of the small target */
#define BUILD_STEP_VMAS		256	/* mappings per command; budget checked */
#define REPS_WANTED		9	/* times --scale, at least REPS_MIN */
#define REPS_MIN		5
#define MAP_COUNT_MARGIN_DIV	100	/* keep 1% + 64 of max_map_count */
#define MAP_COUNT_MARGIN_ADD	64
/*
 * Memory per mapping beyond its page: the VMA, shmem inode, file and dentry.
 * A memory cgroup charges each one-page mapping its page and about 1.4 kB of
 * kernel memory, which swap cannot relieve; twice that leaves room for the
 * reader's copies of maps and smaps, which grow with the mappings too.
 */
#define VMA_OVERHEAD_BYTES	2048
#define MEM_MARGIN		2
#define MEM_AVAIL_DIV		4	/* use at most 1/4 of MemAvailable */
/* a cgroup's charge for the children themselves and the churner: under 10 MiB */
#define MEM_FIXED_BYTES		(16LL << 20)
/*
 * Tearing a target down costs less CPU per mapping than building it (exit
 * frees what mmap() and the fault allocated); half of the build's CPU per
 * mapping is kept for it when a starved build decides where to stop.
 */
#define TEARDOWN_SHARE		0.5
#define MAX_CHILDREN		3	/* two targets and the churner */
#define STAT_BYTES		16384	/* memory.stat */
#define LOCK_VMAS		16	/* mlock()ed mappings, within the rlimit */
#define READ_BUF_BYTES		(1024 * 1024)
#define CONSISTENCY_TRIES	12	/* rollup/smaps/rollup triples, at most */
#define QUIET_TRIPLES		2	/* wanted; as many disagreeing fail */
#define MISMATCHES_SHOWN	16	/* rollup fields shown as evidence */
#define CHILD_MAPS_BYTES	(64 * 1024)	/* the target's maps at start */
#define MEMINFO_BYTES		8192
#define PATH_LEN		64
#define RATIOS_LEN		1024	/* one evidence line of per-rep ratios */
#define REF_RUNS		64	/* address runs mincore() covers */
#define CHURN_PAIRS		128	/* stable mappings, each before a slot */
#define SLOT_PAGES		4	/* pages of a churning slot */
#define CHURN_READ_BYTES	1024	/* read() size: many resumes per file */
#define CHURN_FRACTION		0.1	/* of the budget, reads under change */
#define CHURN_MAX_READS		200	/* of each file, under change */
#define CHURN_MIN_READS		3	/* under change, to judge a file */
#define CHURN_SEED		0x9e3779b97f4a7c15ULL	/* xorshift, any non-zero */
#define REF_VEC_PAGES		4096	/* pages per mincore() call */

static const struct intro_prog prog = {
	.usage =
	"smaps_perf: the cost of /proc/PID/smaps per mapping (VMA), against maps and\n"
	"smaps_rollup of the same target, and smaps_rollup against the smaps sums.\n"
	"\n"
	"Guards the 2016 linux-mm report (\"Implement /proc/<pid>/totmaps\"): number\n"
	"formatting was half of what smaps cost on a process with many mappings;\n"
	"smaps_rollup (493b0e9d945f, v4.14) and a faster printer (d1be35cb6f96, v4.17)\n"
	"followed. Two targets hold N and N/4 one-page shared mappings; costs are the\n"
	"reader's CPU time per VMA, median over interleaved repetitions, against the\n"
	"target's own mincore() over its mappings. A third target changes while read.\n"
	"\n"
	"Checks:\n"
	"  maps_cost                maps/mincore() cost per VMA in 0.4..4\n"
	"  smaps_cost               smaps/mincore() cost per VMA in 1.4..17\n"
	"  smaps_rollup_cost        smaps_rollup/mincore() cost per VMA in 0.2..2.5\n"
	"  smaps_vs_maps_cost       smaps/maps cost per VMA in 1.5..9\n"
	"  smaps_vs_rollup_cost     smaps/smaps_rollup cost per VMA in 2..100\n"
	"  per_vma_cost_scaling     cost per VMA at N / at N/4 <= 2 (maps and smaps)\n"
	"  rollup_equals_smaps_sum  smaps_rollup fields equal the smaps sums (PSS\n"
	"                           within one kB per entry)\n"
	"  vma_count                maps lists every mapping once, in order; smaps\n"
	"                           has as many entries\n"
	"  changing_maps_complete   maps of a target that maps, unmaps, splits and\n"
	"                           faults while read in 1 kB read()s: every mapping\n"
	"                           it never touches is listed, no line malformed\n"
	"  changing_smaps_complete  the same for smaps (and their Rss one page)\n"
	"  changing_rollup_rss      its smaps_rollup Rss within what the change allows\n"
	"  changing_read_cost       reader CPU per entry, changing / quiet <= 8\n"
	"\n"
	"Needs: CONFIG_PROC_PAGE_MONITOR, CONFIG_SHMEM; no privilege. Uses up to\n"
	"65536 x scale mappings, within vm.max_map_count, a quarter of MemAvailable\n"
	"and what its memory cgroup leaves. At most 20 s x scale.\n",
	.min_scale = MIN_SCALE,
	.max_scale = MAX_SCALE,
};

/* the three files, then the reference: mincore() over the same mappings */
enum file_kind { F_MAPS, F_SMAPS, F_ROLLUP, NR_FILES, C_MINCORE = NR_FILES,
		 NR_COSTS };

static const char * const file_names[NR_FILES] = {
	"maps", "smaps", "smaps_rollup",
};

/* ---- The target ----------------------------------------------------------- */

struct target {
	pid_t pid;
	int cmd_fd;		/* parent writes a struct target_cmd */
	int ack_fd;		/* child answers a struct target_ack */
	long baseline;		/* VMAs in maps before it mapped anything */
	long created;		/* one-page mappings it holds */
	long locked;		/* of which mlock()ed */
	long vmas;		/* lines in maps after the last grow */
};

enum target_op { OP_GROW, OP_MINCORE };

struct target_cmd {
	long total;		/* OP_GROW: hold this many mappings; 0: exit */
	enum target_op op;
};

struct target_ack {
	long created;
	long locked;
	int err;
	long ref_vmas;			/* OP_MINCORE: mappings it covered */
	unsigned long long ref_cpu_ns;	/* and its thread CPU time */
};

/* Address ranges of adjacent one-page mappings, for mincore() */
struct page_run {
	char *lo, *hi;
};

static struct page_run runs[REF_RUNS];
static int nr_runs;

static void add_to_runs(char *p, long page)
{
	struct page_run *r = nr_runs ? &runs[nr_runs - 1] : NULL;

	if (r && p + page == r->lo)
		r->lo = p;
	else if (r && p == r->hi)
		r->hi += page;
	else if (nr_runs < REF_RUNS)
		runs[nr_runs++] = (struct page_run){ p, p + page };
}

/*
 * The reference cost: mincore() over every run of mappings, in chunks of
 * REF_VEC_PAGES. It finds each VMA (vma_lookup()) and walks its page table
 * from mm/mincore.c, outside fs/proc/task_mmu.c.
 */
static void time_mincore(struct target_ack *ack, long page)
{
	static unsigned char vec[REF_VEC_PAGES];
	unsigned long long c0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	long len, pages = 0;
	char *p;
	int i;

	ack->err = 0;
	for (i = 0; i < nr_runs; i++)
		for (p = runs[i].lo; p < runs[i].hi; p += len) {
			len = runs[i].hi - p;
			if (len > REF_VEC_PAGES * page)
				len = REF_VEC_PAGES * page;
			if (mincore(p, len, vec))
				ack->err = errno;
			pages += len / page;
		}
	ack->ref_cpu_ns = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	ack->ref_vmas = pages;
}

/* How many mappings to mlock(): LOCK_VMAS pages, fewer if RLIMIT_MEMLOCK is. */
static long lockable_pages(long page)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return LOCK_VMAS;
	return rl.rlim_cur / page < LOCK_VMAS ? rl.rlim_cur / page : LOCK_VMAS;
}

/* A real store of the byte at @p (atomic: kept), so a COW page is copied. */
static void store_same(char *p)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
}

/*
 * Give the child its own copy of every private writable page it shares with
 * the parent, so that the parent's later writes (COW breaks) cannot change
 * the child's Shared_/Private_ and PSS figures while they are read.
 */
static void unshare_private_pages(long page)
{
	static char maps[CHILD_MAPS_BYTES];
	unsigned long lo, hi, a;
	char *p, *q, *nl;

	if (intro_read_file("/proc/self/maps", maps, sizeof(maps)) < 0)
		return;
	for (p = maps; *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		lo = strtoul(p, &q, 16);
		hi = strtoul(q + 1, &q, 16);
		if (strncmp(q, " rw-p", 5))
			continue;
		for (a = lo; a < hi; a += page)
			store_same((char *)a);
	}
}

/*
 * The target child: on each command, map one-page MAP_SHARED|MAP_ANONYMOUS
 * regions (each a separate shmem object: adjacent ones never merge) until it
 * holds cmd.total, write a byte to each, mlock() the first few, answer, and
 * block in read() again. No stdio and no malloc here: nothing may add a VMA
 * that the parent did not count.
 */
static void target_main(int cmd_fd, int ack_fd)
{
	long page = sysconf(_SC_PAGESIZE), want_locked = lockable_pages(page);
	static char *lock_addr[LOCK_VMAS];
	struct target_ack ack = { 0 };
	struct target_cmd cmd;
	struct timespec ts;
	char *p;

	unshare_private_pages(page);
	if (write(ack_fd, &ack, sizeof(ack)) != sizeof(ack))
		_exit(0);
	while (read(cmd_fd, &cmd, sizeof(cmd)) == sizeof(cmd) && cmd.total) {
		if (cmd.op == OP_MINCORE) {
			time_mincore(&ack, page);
			if (write(ack_fd, &ack, sizeof(ack)) != sizeof(ack))
				break;
			continue;
		}
		ack.err = 0;
		while (ack.created < cmd.total) {
			p = mmap(NULL, page, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
			if (p == MAP_FAILED) {
				ack.err = errno;
				break;
			}
			__atomic_store_n(p, (char)ack.created,
					 __ATOMIC_RELAXED);
			if (ack.created < LOCK_VMAS)
				lock_addr[ack.created] = p;
			add_to_runs(p, page);
			ack.created++;
		}
		while (ack.locked < want_locked && ack.locked < ack.created &&
		       !mlock(lock_addr[ack.locked], page))
			ack.locked++;
		/* fault in the vDSO so that the last VMAs have pages too */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (write(ack_fd, &ack, sizeof(ack)) != sizeof(ack))
			break;
	}
	_exit(0);
}

static void target_stop(struct target *t);

/*
 * The live children, for a SIGTERM or SIGINT handler: the runner's timeout
 * signals the program, and its children must be gone before it is. A PID
 * leaves the table after its SIGKILL and before it is reaped, so the
 * handler never signals a PID that may have been reused.
 */
static pid_t children[MAX_CHILDREN];

static void child_forget(pid_t pid)
{
	int i;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (__atomic_load_n(&children[i], __ATOMIC_RELAXED) == pid)
			__atomic_store_n(&children[i], 0, __ATOMIC_SEQ_CST);
}

/* SIGKILL every child and reap them all; async-signal-safe. */
static void children_kill_all(void)
{
	pid_t pid;
	int i;

	for (i = 0; i < MAX_CHILDREN; i++) {
		pid = __atomic_load_n(&children[i], __ATOMIC_SEQ_CST);
		if (pid > 0)
			kill(pid, SIGKILL);
	}
	while (waitpid(-1, NULL, __WALL) > 0 || errno == EINTR)
		;
}

static void child_kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	child_forget(pid);
	intro_kill_wait(pid);
}

/* End with the children reaped, then die of @sig as if unhandled. */
static void on_term(int sig)
{
	children_kill_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_term(void)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGINT);
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		ksft_exit_fail_perror("sigaction");
}

/*
 * intro_fork() (PR_SET_PDEATHSIG: SIGKILL when the program dies, also of
 * SIGKILL) with a command pipe to the child and an answer pipe back: in the
 * child *@cmd_fd is the command read end and *@ack_fd the answer write end,
 * in the parent the other two. SIGTERM and SIGINT stay blocked until the
 * child is in children[] (parent) or back to their default (child).
 * Return: as intro_fork(); on -1 no descriptor is left open.
 */
static pid_t fork_piped(int *cmd_fd, int *ack_fd)
{
	sigset_t term, old;
	int cmd[2], ack[2], i;
	pid_t pid;

	if (pipe2(cmd, O_CLOEXEC))
		return -1;
	if (pipe2(ack, O_CLOEXEC)) {
		close(cmd[0]);
		close(cmd[1]);
		return -1;
	}
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid = intro_fork();
	if (!pid) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
	}
	for (i = 0; pid > 0 && i < MAX_CHILDREN; i++)
		if (!__atomic_load_n(&children[i], __ATOMIC_RELAXED)) {
			__atomic_store_n(&children[i], pid, __ATOMIC_SEQ_CST);
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		close(cmd[0]);
		close(cmd[1]);
		close(ack[0]);
		close(ack[1]);
		return -1;
	}
	close(pid ? cmd[0] : cmd[1]);
	close(pid ? ack[1] : ack[0]);
	*cmd_fd = pid ? cmd[1] : cmd[0];
	*ack_fd = pid ? ack[0] : ack[1];
	return pid;
}

static int target_start(struct target *t)
{
	struct target_ack first;

	memset(t, 0, sizeof(*t));
	t->pid = fork_piped(&t->cmd_fd, &t->ack_fd);
	if (!t->pid)
		target_main(t->cmd_fd, t->ack_fd);
	if (t->pid < 0)
		return -1;
	/* the first answer: its private pages are its own now */
	if (read(t->ack_fd, &first, sizeof(first)) != sizeof(first)) {
		target_stop(t);
		errno = EPIPE;
		return -1;
	}
	return 0;
}

/* Send @cmd to @t and wait for its @ack; 0, or -1 (errno EPIPE: it died). */
static int target_call(struct target *t, const struct target_cmd *cmd,
		       struct target_ack *ack)
{
	if (write(t->cmd_fd, cmd, sizeof(*cmd)) != sizeof(*cmd))
		return -1;
	if (read(t->ack_fd, ack, sizeof(*ack)) != sizeof(*ack)) {
		errno = EPIPE;
		return -1;
	}
	return 0;
}

/* The target's reference cost: its CPU ns in mincore(), *@vmas covered. */
static int target_mincore(struct target *t, unsigned long long *cpu_ns,
			  long *vmas)
{
	struct target_cmd cmd = { .total = 1, .op = OP_MINCORE };
	struct target_ack ack;

	if (target_call(t, &cmd, &ack))
		return -1;
	*cpu_ns = ack.ref_cpu_ns;
	*vmas = ack.ref_vmas;
	errno = ack.err;
	return ack.err ? -1 : 0;
}

static void target_stop(struct target *t)
{
	if (t->pid <= 0)
		return;
	close(t->cmd_fd);
	close(t->ack_fd);
	child_kill_wait(t->pid);
	t->pid = -1;
}

/* Make @t hold @total mappings; 0, or -1 if it could not (errno set). */
static int target_grow(struct target *t, long total)
{
	struct target_cmd cmd = { .total = total, .op = OP_GROW };
	struct target_ack ack;

	if (target_call(t, &cmd, &ack))
		return -1;
	t->created = ack.created;
	t->locked = ack.locked;
	if (ack.created < total) {
		errno = ack.err;
		return -1;
	}
	return 0;
}

/* ---- Reading /proc -------------------------------------------------------- */

struct read_cost {
	unsigned long long cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID of the reader */
	unsigned long long wall_ns;
	size_t bytes;
};

/*
 * Read @path to the end with @len-byte read()s, open and close included.
 * seq_file fills one page per read() whatever @len is, and shows again the
 * record that did not fit (seq_read_iter()): show_smap() runs ~1.2x per VMA.
 */
static int timed_read(const char *path, char *buf, size_t len,
		      struct read_cost *c)
{
	unsigned long long cpu0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	unsigned long long wall0 = intro_now_ns();
	ssize_t n;
	int fd;

	c->bytes = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, len)) > 0)
		c->bytes += (size_t)n;
	close(fd);
	if (n < 0)
		return -1;
	c->cpu_ns = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	c->wall_ns = intro_now_ns() - wall0;
	return 0;
}

struct text {
	char *p;
	size_t len;
	size_t cap;
};

static void churner_step(const struct text *t);

/*
 * Read @path to the end into @t (kept and grown between calls): with
 * @chunk 0 in read()s of all the room the buffer has left (at least
 * READ_BUF_BYTES), else in @chunk-byte read()s with a churner step between
 * two if @stepped. Return: 0, or -1 with errno set.
 */
static int read_text(const char *path, struct text *t, size_t chunk,
		     bool stepped)
{
	size_t room = chunk ? chunk + 1 : READ_BUF_BYTES;
	size_t cap;
	ssize_t n;
	char *p;
	int fd;

	t->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do {
		if (t->cap - t->len < room) {
			cap = t->cap * 2 + (chunk ? chunk + 1 : 2 * READ_BUF_BYTES);
			p = realloc(t->p, cap);
			if (!p) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			t->p = p;
			t->cap = cap;
		}
		n = read(fd, t->p + t->len, chunk ? chunk : t->cap - t->len - 1);
		if (n > 0)
			t->len += (size_t)n;
		if (n > 0 && stepped)
			churner_step(t);
	} while (n > 0);
	close(fd);
	if (n < 0)
		return -1;
	t->p[t->len] = '\0';
	return 0;
}

/* Read all of @path into @t; 0, or -1 with errno set. */
static int slurp(const char *path, struct text *t)
{
	return read_text(path, t, 0, false);
}

static void proc_path(char *buf, size_t len, pid_t pid, enum file_kind f)
{
	snprintf(buf, len, "/proc/%d/%s", (int)pid, file_names[f]);
}

/* ---- Parsing -------------------------------------------------------------- */

/*
 * The "Name: value kB" fields of smaps (fs/proc/task_mmu.c __show_smap())
 * and how smaps_rollup relates to the sum over the smaps entries:
 *  K_EXACT:    whole pages, exact in each entry: the sums agree.
 *  K_PSS:      fixed-point sums truncated to kB once in the rollup and once
 *              per entry, so 0 <= rollup - sum < the entries with a fraction
 *              of a kB; only a page mapped twice or more adds a fraction
 *              (smaps_account()), so those entries show Pss < Rss.
 *  K_SWAP_PSS: the same for SwapPss, entries with SwapPss < Swap.
 *  K_PART:     Pss_Anon/File/Shmem, rollup only: against its Pss.
 *  K_VMA:      per-VMA only, not in the rollup.
 * The gate VMA ([vsyscall]) is in smaps but not in the rollup; its fields
 * are all 0.
 */
enum field_kind { K_EXACT, K_PSS, K_SWAP_PSS, K_PART, K_VMA };

/* in the order smaps prints them */
enum field_id {
	FI_SIZE, FI_KERNEL_PAGE_SIZE, FI_MMU_PAGE_SIZE, FI_RSS, FI_PSS,
	FI_PSS_DIRTY, FI_PSS_ANON, FI_PSS_FILE, FI_PSS_SHMEM,
	FI_SHARED_CLEAN, FI_SHARED_DIRTY, FI_PRIVATE_CLEAN, FI_PRIVATE_DIRTY,
	FI_REFERENCED, FI_ANONYMOUS, FI_KSM, FI_LAZY_FREE, FI_ANON_HUGE_PAGES,
	FI_SHMEM_PMD_MAPPED, FI_FILE_PMD_MAPPED, FI_SHARED_HUGETLB,
	FI_PRIVATE_HUGETLB, FI_SWAP, FI_SWAP_PSS, FI_LOCKED, NR_FIELDS
};

struct field {
	const char *name;
	enum field_kind kind;
};

static const struct field fields[NR_FIELDS] = {
	[FI_SIZE]		= { "Size", K_VMA },
	[FI_KERNEL_PAGE_SIZE]	= { "KernelPageSize", K_VMA },
	[FI_MMU_PAGE_SIZE]	= { "MMUPageSize", K_VMA },
	[FI_RSS]		= { "Rss", K_EXACT },
	[FI_PSS]		= { "Pss", K_PSS },
	[FI_PSS_DIRTY]		= { "Pss_Dirty", K_PSS },
	[FI_PSS_ANON]		= { "Pss_Anon", K_PART },
	[FI_PSS_FILE]		= { "Pss_File", K_PART },
	[FI_PSS_SHMEM]		= { "Pss_Shmem", K_PART },
	[FI_SHARED_CLEAN]	= { "Shared_Clean", K_EXACT },
	[FI_SHARED_DIRTY]	= { "Shared_Dirty", K_EXACT },
	[FI_PRIVATE_CLEAN]	= { "Private_Clean", K_EXACT },
	[FI_PRIVATE_DIRTY]	= { "Private_Dirty", K_EXACT },
	[FI_REFERENCED]		= { "Referenced", K_EXACT },
	[FI_ANONYMOUS]		= { "Anonymous", K_EXACT },
	[FI_KSM]		= { "KSM", K_EXACT },
	[FI_LAZY_FREE]		= { "LazyFree", K_EXACT },
	[FI_ANON_HUGE_PAGES]	= { "AnonHugePages", K_EXACT },
	[FI_SHMEM_PMD_MAPPED]	= { "ShmemPmdMapped", K_EXACT },
	[FI_FILE_PMD_MAPPED]	= { "FilePmdMapped", K_EXACT },
	[FI_SHARED_HUGETLB]	= { "Shared_Hugetlb", K_EXACT },
	[FI_PRIVATE_HUGETLB]	= { "Private_Hugetlb", K_EXACT },
	[FI_SWAP]		= { "Swap", K_EXACT },
	[FI_SWAP_PSS]		= { "SwapPss", K_SWAP_PSS },
	[FI_LOCKED]		= { "Locked", K_PSS },
};

struct kb_sums {
	unsigned long long kb[NR_FIELDS];
	bool seen[NR_FIELDS];
	long entries;		/* header lines */
	long frac_pss;		/* entries with Pss < Rss */
	long frac_swap_pss;	/* entries with SwapPss < Swap */
	long unknown;		/* "Name: N kB" lines not in fields[] */
};

static int field_index(const char *name, size_t len, int hint)
{
	int i;

	if (hint >= 0 && hint < NR_FIELDS &&
	    strlen(fields[hint].name) == len &&
	    !memcmp(fields[hint].name, name, len))
		return hint;
	for (i = 0; i < NR_FIELDS; i++)
		if (strlen(fields[i].name) == len &&
		    !memcmp(fields[i].name, name, len))
			return i;
	return -1;
}

static void end_entry(struct kb_sums *s, const unsigned long long *e)
{
	if (e[FI_PSS] < e[FI_RSS])
		s->frac_pss++;
	if (e[FI_SWAP_PSS] < e[FI_SWAP])
		s->frac_swap_pss++;
}

/*
 * Sum the kB fields of smaps or smaps_rollup text @t into @s. An entry
 * starts with a header line ("start-end perms ..."), which begins with a
 * lower-case hex digit; field names begin with an upper-case letter.
 */
static void parse_smaps(const struct text *t, struct kb_sums *s)
{
	unsigned long long entry[NR_FIELDS] = { 0 };
	const char *p = t->p, *end = t->p + t->len, *nl, *colon;
	unsigned long long v;
	int i, hint = 0;
	char *num;

	memset(s, 0, sizeof(*s));
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')) {
			if (s->entries)
				end_entry(s, entry);
			memset(entry, 0, sizeof(entry));
			s->entries++;
			continue;
		}
		colon = memchr(p, ':', (size_t)(nl - p));
		if (!colon || nl - p < 4 || memcmp(nl - 3, " kB", 3))
			continue;
		v = strtoull(colon + 1, &num, 10);
		i = field_index(p, (size_t)(colon - p), hint);
		if (i < 0) {
			s->unknown++;
			continue;
		}
		hint = i + 1;
		entry[i] = v;
		s->kb[i] += v;
		s->seen[i] = true;
	}
	if (s->entries)
		end_entry(s, entry);
}

struct maps_shape {
	long lines;
	long disordered;	/* ranges not above the previous one */
};

/* Count the maps lines of @t and check that the ranges ascend. */
static void parse_maps(const struct text *t, struct maps_shape *m)
{
	const char *p = t->p, *end = t->p + t->len, *nl;
	unsigned long long lo, hi, prev_hi = 0;
	char *q;

	memset(m, 0, sizeof(*m));
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		lo = strtoull(p, &q, 16);
		hi = *q == '-' ? strtoull(q + 1, NULL, 16) : 0;
		if (m->lines && lo < prev_hi)
			m->disordered++;
		if (hi <= lo)
			m->disordered++;
		prev_hi = hi;
		m->lines++;
	}
}

/* ---- The measurement ------------------------------------------------------ */

enum { T_SMALL, T_LARGE, NR_TARGETS };

static const char * const cost_labels[NR_TARGETS] = {
	"cost_small", "cost_large",
};

/* A field of smaps_rollup that disagreed with the smaps sum. */
struct mismatch {
	const char *name;
	long long rollup_kb, sum_kb, slack_kb, drift_kb;
};

struct smaps_bench {
	struct intro_opts opts;
	struct intro_budget budget;
	struct target tgt[NR_TARGETS];
	long page_size;
	long max_map_count;
	long mem_avail_kb;
	long long cgroup_room;	/* bytes the memory cgroup lets it charge */
	int cgroup_version;
	long map_room;		/* mappings vm.max_map_count lets a target add */
	long cal_vmas;		/* mappings timed before planning */
	/* CPU ns per mapping, calibrated: build, one rep, maps, the small's triple */
	double create_cpu, rep_cpu, count_cpu, triple_cpu;
	double stretch;		/* wall over CPU time of the latest work */
	const char *size_limit;	/* what limited it */
	bool build_cut;		/* the budget stopped the build */
	char *buf;		/* READ_BUF_BYTES, for every cost read */
	struct text text;
	int reps;
	int reps_max;
	/* [target][file or C_MINCORE][rep] */
	double *cpu_ns[NR_TARGETS][NR_COSTS];
	double *wall_ns[NR_TARGETS][NR_COSTS];
	size_t bytes[NR_TARGETS][NR_FILES];
	long ref_vmas[NR_TARGETS];	/* mappings mincore() covered */
	/* consistency */
	struct kb_sums rollup, sum;
	struct maps_shape shape[NR_TARGETS];
	long smaps_entries[NR_TARGETS];
	int cons_tries;
	int cons_stable;	/* quiet triples (changed_field() NULL) */
	int cons_bad;		/* stable triples that disagreed */
	const char *cons_changed;	/* field that moved in the last triple */
	struct mismatch mismatch[MISMATCHES_SHOWN];
	int nr_mismatches;	/* all of them, shown or not */
};

static struct smaps_bench bench;

static __noreturn void bail(const char *what)
{
	int e = errno;

	children_kill_all();
	errno = e;
	ksft_exit_fail_perror(what);
}

static long read_max_map_count(void)
{
	char num[PATH_LEN];

	if (intro_read_file("/proc/sys/vm/max_map_count", num, sizeof(num)) <= 0)
		return -1;
	return strtol(num, NULL, 10);
}

static long mem_available_kb(void)
{
	static const char key[] = "MemAvailable:";
	char buf[MEMINFO_BYTES], *p;

	if (intro_read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* The number after "@key " at the start of a line of @buf, or -1. */
static long long stat_value(const char *buf, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* A memory.* file of cgroup directory @dir: "max" is LLONG_MAX, -1 unread. */
static long long cgroup_value(const char *dir, const char *file)
{
	char path[PATH_MAX], num[PATH_LEN];

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path) ||
	    intro_read_file(path, num, sizeof(num)) <= 0)
		return -1;
	return strcmp(num, "max") ? strtoll(num, NULL, 10) : LLONG_MAX;
}

/*
 * What cgroup directory @dir lets its tasks charge before reclaim of more
 * than its inactive file pages or an OOM kill: the smaller of memory.max and
 * memory.high (v2), of memory.limit_in_bytes and the hierarchical limit
 * (v1), less the usage, plus the inactive file pages it may reclaim.
 * LLONG_MAX when it sets no limit or cannot be read.
 */
static long long cgroup_dir_room(const char *dir, bool v2)
{
	long long limit, high, usage, file;
	char path[PATH_MAX], buf[STAT_BYTES];

	limit = cgroup_value(dir, v2 ? "memory.max" : "memory.limit_in_bytes");
	high = v2 ? cgroup_value(dir, "memory.high") : -1;
	usage = cgroup_value(dir, v2 ? "memory.current" : "memory.usage_in_bytes");
	if (snprintf(path, sizeof(path), "%s/memory.stat", dir) >= (int)sizeof(path) ||
	    intro_read_file(path, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	if (!v2 && stat_value(buf, "hierarchical_memory_limit") >= 0 &&
	    (limit < 0 || stat_value(buf, "hierarchical_memory_limit") < limit))
		limit = stat_value(buf, "hierarchical_memory_limit");
	if (high >= 0 && (limit < 0 || high < limit))
		limit = high;
	/* an unlimited v1 cgroup reads LONG_MAX rounded down to a page */
	if (limit < 0 || usage < 0 || limit >= LLONG_MAX / 2)
		return LLONG_MAX;
	file = stat_value(buf, v2 ? "inactive_file" : "total_inactive_file");
	return limit - usage + (file > 0 ? file : 0);
}

/*
 * What this program's memory cgroup and its ancestors let it charge: the
 * least room of any of them (cgroup_dir_room()). LLONG_MAX when none
 * limits it. *@version: the cgroup version read, 0 if none.
 */
static long long cgroup_memory_room(int *version)
{
	long long room = LLONG_MAX, r;
	char dir[PATH_MAX];
	size_t top;

	*version = intro_cgroup_dir("memory", dir, &top);
	if (!*version)
		return LLONG_MAX;
	do {
		r = cgroup_dir_room(dir, *version == 2);
		if (r < room)
			room = r;
	} while (intro_cgroup_parent(dir, top));
	return room;
}

static long count_vmas(pid_t pid, struct maps_shape *shape)
{
	char path[PATH_LEN];

	proc_path(path, sizeof(path), pid, F_MAPS);
	if (slurp(path, &bench.text))
		bail("read maps");
	parse_maps(&bench.text, shape);
	return shape->lines;
}

/* One timed read of each file of @t, in an order rotated by @rot. */
static void read_all(struct target *t, int rot, struct read_cost *c)
{
	char path[PATH_LEN];
	int i, f;

	for (i = 0; i < NR_FILES; i++) {
		f = (i + rot) % NR_FILES;
		proc_path(path, sizeof(path), t->pid, f);
		if (timed_read(path, bench.buf, READ_BUF_BYTES, &c[f]))
			bail("read target file");
	}
}

/*
 * The wall time to plan for a step that took @wall and used @cpu: at most
 * PLAN_WALL_MAX_CPU times its CPU time, so that one stall while calibrating
 * does not shrink the target to nothing.
 */
static double plan_ns(unsigned long long wall, unsigned long long cpu)
{
	return (double)(wall < PLAN_WALL_MAX_CPU * cpu ?
			wall : PLAN_WALL_MAX_CPU * cpu);
}

/* Mappings both targets together may hold within the memory cgroup. */
static long cgroup_vmas(void)
{
	long long mem_per_vma = MEM_MARGIN * (bench.page_size + VMA_OVERHEAD_BYTES);

	if (bench.cgroup_room == LLONG_MAX)
		return LONG_MAX;
	if (bench.cgroup_room < MEM_FIXED_BYTES)
		return 0;
	return (long)((bench.cgroup_room - MEM_FIXED_BYTES) / mem_per_vma);
}

/*
 * Size the large target: the smallest of VMAS_PER_SCALE x scale, what
 * vm.max_map_count leaves, MemAvailable / MEM_AVAIL_DIV, the memory
 * cgroup's room, and what the work costs at the per-VMA speeds measured on
 * the first mappings: @create_ns, @read_ns (three files), @check_ns (smaps,
 * two rollups, parse).
 */
static long plan_size(double create_ns, double read_ns, double check_ns)
{
	double per_vma, left, n = VMAS_PER_SCALE * bench.opts.scale;
	long limit, mem_per_vma, room;

	bench.size_limit = "scale";
	if (bench.map_room < n) {
		n = bench.map_room;
		bench.size_limit = "max_map_count";
	}
	mem_per_vma = MEM_MARGIN * (bench.page_size + VMA_OVERHEAD_BYTES);
	limit = bench.mem_avail_kb / MEM_AVAIL_DIV * 1024 /
		(mem_per_vma * (SIZE_RATIO + 1) / SIZE_RATIO);
	if (bench.mem_avail_kb > 0 && limit < n) {
		n = limit;
		bench.size_limit = "memory";
	}
	/* both targets in one cgroup; the small one holds the calibration */
	room = cgroup_vmas();
	limit = room - bench.cal_vmas < room / (SIZE_RATIO + 1) * SIZE_RATIO ?
		room - bench.cal_vmas : room / (SIZE_RATIO + 1) * SIZE_RATIO;
	if (room != LONG_MAX && limit < n) {
		n = limit;
		bench.size_limit = "cgroup_memory";
	}
	/* both targets, reps_max reads of both, consistency on the small one */
	per_vma = (create_ns + bench.reps_max * read_ns) *
		  (SIZE_RATIO + 1) / SIZE_RATIO +
		  check_ns * CONSISTENCY_TRIES / SIZE_RATIO;
	left = PLAN_FRACTION * bench.budget.limit_ns -
	       (double)(intro_now_ns() - bench.budget.start_ns);
	if (left / per_vma < n) {
		n = left / per_vma;
		bench.size_limit = "time";
	}
	return n < 0 ? 0 : (long)n;
}

/*
 * Wall ns the work after the build takes if the large target stops at
 * @large mappings, at the latest stretch: the small target's growth to a
 * quarter of it, counting both, one consistency triple, REPS_MIN reps and
 * the teardown, plus the reads under change and the reserve.
 */
static double after_build_ns(long large)
{
	long small = bench.tgt[T_SMALL].created, grow = large / SIZE_RATIO - small;
	double cpu;

	if (grow < 0)
		grow = 0;
	cpu = grow * bench.create_cpu + (large + small + grow) *
	      (bench.count_cpu + REPS_MIN * bench.rep_cpu +
	       TEARDOWN_SHARE * bench.create_cpu) +
	      (small + grow) * bench.triple_cpu;
	return bench.stretch * cpu +
	       (CHURN_FRACTION + RESERVE_FRACTION) * bench.budget.limit_ns;
}

/* The reserve kept while measuring: the report, and the teardown. */
static uint64_t reserve_ns(void)
{
	long vmas = bench.tgt[T_SMALL].created + bench.tgt[T_LARGE].created;

	return (uint64_t)(RESERVE_FRACTION * bench.budget.limit_ns +
			  bench.stretch * TEARDOWN_SHARE * bench.create_cpu * vmas);
}

/* Keep @wall / @cpu as the stretch, if @cpu is enough to tell. */
static void note_stretch(uint64_t wall, uint64_t cpu)
{
	if (cpu >= NSEC_PER_USEC)
		bench.stretch = wall > cpu ? (double)wall / cpu : 1;
}

/*
 * Grow @t towards @total mappings, BUILD_STEP_VMAS at a time, while the
 * build's share of the budget lasts and, at the speed of the last step,
 * the work after it still fits: a run that slowed down since it calibrated
 * (a CPU taken by others) stops with a smaller target. mmap() failing with
 * ENOMEM (a lower vm.max_map_count) leaves a smaller target, measured as
 * it is; a target that died is fatal.
 */
static void grow_target(struct target *t, long total)
{
	uint64_t stop = (uint64_t)((1 - BUILD_FRACTION) * bench.budget.limit_ns);
	struct target *l = &bench.tgt[T_LARGE];
	uint64_t wall, cpu;
	clockid_t clk;
	long step;

	if (clock_getcpuclockid(t->pid, &clk))
		bail("clock_getcpuclockid");
	while (t->created < total) {
		step = total - t->created < BUILD_STEP_VMAS ?
		       total : t->created + BUILD_STEP_VMAS;
		if (intro_budget_left_ns(&bench.budget) < stop ||
		    intro_budget_left_ns(&bench.budget) <
		    bench.stretch * (step - t->created) * bench.create_cpu +
		    after_build_ns(t == l ? step : l->created)) {
			bench.build_cut = true;
			ksft_print_msg("build: out_of_time_at_vmas=%ld wanted_vmas=%ld\n",
				       t->created, total);
			ksft_print_msg("build: stretch_ratio=%.1f\n", bench.stretch);
			return;
		}
		wall = intro_now_ns();
		cpu = intro_clock_ns(clk);
		if (!target_grow(t, step)) {
			note_stretch(intro_now_ns() - wall, intro_clock_ns(clk) - cpu);
			continue;
		}
		if (errno != ENOMEM)
			bail("grow the target");
		ksft_print_msg("build: mmap_enomem_at_vmas=%ld wanted_vmas=%ld\n",
			       t->created, total);
		return;
	}
}

/*
 * The mappings a target may add within vm.max_map_count, and how many to
 * time before planning: CAL_VMAS, fewer when the limit or the memory
 * cgroup leaves less room.
 */
static void size_calibration(void)
{
	long room = cgroup_vmas() / (SIZE_RATIO + 1);

	bench.map_room = bench.max_map_count - bench.tgt[T_LARGE].baseline -
			 bench.max_map_count / MAP_COUNT_MARGIN_DIV -
			 MAP_COUNT_MARGIN_ADD;
	if (bench.map_room < 0)
		bench.map_room = 0;
	bench.cal_vmas = CAL_VMAS;
	if (bench.map_room < bench.cal_vmas)
		bench.cal_vmas = bench.map_room;
	if (room < bench.cal_vmas)
		bench.cal_vmas = room;
	ksft_print_msg("plan: cgroup_version=%d cgroup_room_kb=%lld cgroup_room_vmas=%ld\n",
		       bench.cgroup_version,
		       bench.cgroup_room == LLONG_MAX ? -1 : bench.cgroup_room / 1024,
		       cgroup_vmas() == LONG_MAX ? -1 : cgroup_vmas());
	ksft_print_msg("plan: map_room_vmas=%ld cal_vmas=%ld\n", bench.map_room,
		       bench.cal_vmas);
}

/* Time the small target's first mappings and reads; plan; grow. */
static void build_targets(void)
{
	unsigned long long t0, c0, create_wall, create_cpu, parse_wall;
	struct read_cost cal[NR_FILES], again[NR_FILES];
	double create_ns, read_ns = 0, check_ns, vmas;
	struct target *s = &bench.tgt[T_SMALL], *l = &bench.tgt[T_LARGE];
	unsigned long long parse_cpu, ref_cpu;
	struct maps_shape shape;
	struct kb_sums sums;
	clockid_t child_cpu;
	char path[PATH_LEN];
	long n;
	int i;

	for (i = 0; i < NR_TARGETS; i++) {
		if (target_start(&bench.tgt[i]))
			bail("fork target");
		bench.tgt[i].baseline = count_vmas(bench.tgt[i].pid, &shape);
	}
	size_calibration();
	if (clock_getcpuclockid(s->pid, &child_cpu))
		bail("clock_getcpuclockid");
	t0 = intro_now_ns();
	c0 = intro_clock_ns(child_cpu);
	if (bench.cal_vmas && target_grow(s, bench.cal_vmas))
		bail("create the first mappings");
	create_cpu = intro_clock_ns(child_cpu) - c0;
	create_wall = intro_now_ns() - t0;
	/* the first reads after creating run cold: keep the faster of two */
	read_all(s, 0, cal);
	read_all(s, 1, again);
	for (i = 0; i < NR_FILES; i++) {
		if (again[i].wall_ns < cal[i].wall_ns)
			cal[i] = again[i];
		read_ns += plan_ns(cal[i].wall_ns, cal[i].cpu_ns);
		bench.rep_cpu += cal[i].cpu_ns;
	}
	t0 = intro_now_ns();
	if (target_mincore(s, &ref_cpu, &n))
		bail("mincore() in the target");
	read_ns += plan_ns(intro_now_ns() - t0, ref_cpu);
	bench.rep_cpu += ref_cpu;
	t0 = intro_now_ns();
	c0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	proc_path(path, sizeof(path), s->pid, F_SMAPS);
	if (slurp(path, &bench.text))
		bail("read smaps");
	parse_smaps(&bench.text, &sums);
	parse_cpu = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	parse_wall = intro_now_ns() - t0;

	vmas = bench.cal_vmas + s->baseline;
	create_ns = bench.cal_vmas ?
		    plan_ns(create_wall, create_cpu) / bench.cal_vmas : 0;
	check_ns = (plan_ns(parse_wall, parse_cpu) +
		    2 * plan_ns(cal[F_ROLLUP].wall_ns, cal[F_ROLLUP].cpu_ns)) /
		   vmas;
	read_ns /= vmas;
	bench.create_cpu = bench.cal_vmas ?
			   (double)create_cpu / bench.cal_vmas : 0;
	bench.rep_cpu /= vmas;
	bench.count_cpu = cal[F_MAPS].cpu_ns / vmas;
	bench.triple_cpu = (parse_cpu + 2.0 * cal[F_ROLLUP].cpu_ns) / vmas;
	bench.stretch = 1;
	note_stretch(create_wall, create_cpu);
	n = plan_size(create_ns, read_ns, check_ns);
	if (n < LARGE_MIN_VMAS && !strcmp(bench.size_limit, "time"))
		n = LARGE_MIN_VMAS;	/* cheap to build; reps are time-capped */
	ksft_print_msg("plan: max_map_count=%ld mem_available_kb=%ld baseline_vmas=%ld\n",
		       bench.max_map_count, bench.mem_avail_kb, l->baseline);
	ksft_print_msg("plan: create_us_per_vma=%.2f read_us_per_vma=%.2f check_us_per_vma=%.2f\n",
		       create_ns / NSEC_PER_USEC, read_ns / NSEC_PER_USEC,
		       check_ns / NSEC_PER_USEC);
	ksft_print_msg("plan: vmas=%ld limited_by=%s scale_vmas=%.0f page_kb=%ld\n",
		       n, bench.size_limit, VMAS_PER_SCALE * bench.opts.scale,
		       bench.page_size / 1024);
	/* the large one first: if the budget cuts it, the small one follows */
	t0 = intro_now_ns();
	grow_target(l, n);
	grow_target(s, l->created / SIZE_RATIO);
	for (i = 0; i < NR_TARGETS; i++)
		bench.tgt[i].vmas = count_vmas(bench.tgt[i].pid, &bench.shape[i]);
	ksft_print_msg("build: small_vmas=%ld large_vmas=%ld create_s=%.2f mem_used_kb=%ld\n",
		       s->vmas, l->vmas,
		       (double)(intro_now_ns() - t0) / NSEC_PER_SEC,
		       bench.mem_avail_kb - mem_available_kb());
}

/*
 * Were the two rollups @a and @b, read before and after the smaps read, of
 * the same state? Page-count fields must be equal, the PSS fields within
 * PSS_DRIFT_MAX_KB. Return NULL, or the first field that changed more.
 */
static const char *changed_field(const struct kb_sums *a,
				 const struct kb_sums *b)
{
	long long d;
	int i;

	for (i = 0; i < NR_FIELDS; i++) {
		d = llabs((long long)a->kb[i] - (long long)b->kb[i]);
		if (a->seen[i] != b->seen[i] ||
		    d > (fields[i].kind == K_EXACT ? 0 : PSS_DRIFT_MAX_KB))
			return fields[i].name;
	}
	return NULL;
}

static void add_mismatch(const char *name, long long rollup_kb,
			 long long sum_kb, long long slack_kb, long long drift_kb)
{
	if (bench.nr_mismatches < MISMATCHES_SHOWN)
		bench.mismatch[bench.nr_mismatches] = (struct mismatch){
			name, rollup_kb, sum_kb, slack_kb, drift_kb };
	bench.nr_mismatches++;
}

/*
 * Do the rollups @a, @b agree with the smaps sums @s in between? Page-count
 * fields exactly; PSS fields 0 <= rollup - sum <= bound, widened by the
 * drift d between the rollups to [min - bound - d, max + d]; Pss against its
 * parts within PSS_PARTS_SLACK_KB. Keeps what disagrees; returns how many.
 */
static int rollup_mismatches(const struct kb_sums *a, const struct kb_sums *b,
			     const struct kb_sums *s)
{
	long long lo, hi, d, bound, sum, parts;
	const struct kb_sums *r;
	int bad = 0, i, k;

	for (i = 0; i < NR_FIELDS; i++) {
		if (!a->seen[i] || fields[i].kind == K_VMA ||
		    fields[i].kind == K_PART)
			continue;
		lo = (long long)(a->kb[i] < b->kb[i] ? a->kb[i] : b->kb[i]);
		hi = (long long)(a->kb[i] < b->kb[i] ? b->kb[i] : a->kb[i]);
		d = hi - lo;
		sum = (long long)s->kb[i];
		bound = fields[i].kind == K_PSS ? s->frac_pss :
			fields[i].kind == K_SWAP_PSS ? s->frac_swap_pss : 0;
		if (s->seen[i] && sum >= lo - bound - d && sum <= hi + d)
			continue;
		bad++;
		add_mismatch(fields[i].name, lo, sum, bound, d);
	}
	for (k = 0; k < 2; k++) {
		r = k ? b : a;
		if (!r->seen[FI_PSS] || !r->seen[FI_PSS_ANON])
			continue;
		for (parts = 0, i = 0; i < NR_FIELDS; i++)
			if (fields[i].kind == K_PART)
				parts += (long long)r->kb[i];
		d = (long long)r->kb[FI_PSS] - parts;
		if (d >= 0 && d <= PSS_PARTS_SLACK_KB)
			continue;
		bad++;
		add_mismatch("Pss_parts", (long long)r->kb[FI_PSS], parts,
			     PSS_PARTS_SLACK_KB, 0);
	}
	return bad + (a->entries != 1);
}

/*
 * rollup, smaps, rollup on the small target (a short window is likelier to
 * be quiet). A triple counts when changed_field() finds the rollups to be of
 * one state; the check fails when QUIET_TRIPLES counted triples disagree, so
 * one transient difference cannot fail it and a miscounting kernel (which
 * disagrees every time) cannot pass it. The first triple runs whatever the
 * budget: the build left time for it, and vma_count counts its entries.
 */
static void check_consistency(void)
{
	struct target *t = &bench.tgt[T_SMALL];
	char rpath[PATH_LEN], spath[PATH_LEN];
	uint64_t wall, cpu;
	struct kb_sums r2;

	proc_path(rpath, sizeof(rpath), t->pid, F_ROLLUP);
	proc_path(spath, sizeof(spath), t->pid, F_SMAPS);
	while (bench.cons_tries < CONSISTENCY_TRIES &&
	       bench.cons_stable < QUIET_TRIPLES &&
	       !(bench.cons_stable == 1 && !bench.cons_bad) &&
	       (!bench.cons_tries || intro_budget_left_ns(&bench.budget) >
		CONS_RESERVES * reserve_ns())) {
		bench.cons_tries++;
		wall = intro_now_ns();
		cpu = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (slurp(rpath, &bench.text))
			bail("read smaps_rollup");
		parse_smaps(&bench.text, &bench.rollup);
		if (slurp(spath, &bench.text))
			bail("read smaps");
		parse_smaps(&bench.text, &bench.sum);
		bench.smaps_entries[T_SMALL] = bench.sum.entries;
		if (slurp(rpath, &bench.text))
			bail("read smaps_rollup");
		parse_smaps(&bench.text, &r2);
		note_stretch(intro_now_ns() - wall,
			     intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu);
		bench.cons_changed = changed_field(&bench.rollup, &r2);
		if (bench.cons_changed)
			continue;
		bench.cons_stable++;
		if (rollup_mismatches(&bench.rollup, &r2, &bench.sum))
			bench.cons_bad++;
	}
}

/*
 * Interleaved reps over both targets while the next fits: as long as the
 * last took, the first as long as its calibrated CPU at the latest stretch.
 */
static void measure_costs(void)
{
	unsigned long long rep_start, left, reserve, ref_ns, cpu;
	double rep_ns = bench.stretch * bench.rep_cpu *
			(bench.tgt[T_SMALL].vmas + bench.tgt[T_LARGE].vmas);
	struct read_cost c[NR_FILES];
	int i, f, k, ti;

	for (k = 0; k < NR_TARGETS; k++)
		for (f = 0; f < NR_COSTS; f++) {
			bench.cpu_ns[k][f] = calloc(bench.reps_max, sizeof(double));
			bench.wall_ns[k][f] = calloc(bench.reps_max, sizeof(double));
			if (!bench.cpu_ns[k][f] || !bench.wall_ns[k][f])
				bail("allocate samples");
		}
	for (i = 0; i < bench.reps_max; i++) {
		left = intro_budget_left_ns(&bench.budget);
		reserve = reserve_ns();
		if (left < reserve ||
		    (double)(left - reserve) < REP_HEADROOM * rep_ns)
			break;
		rep_start = intro_now_ns();
		cpu = 0;
		for (k = 0; k < NR_TARGETS; k++) {
			ti = (k + i) % NR_TARGETS;
			read_all(&bench.tgt[ti], i, c);
			if (target_mincore(&bench.tgt[ti], &ref_ns,
					   &bench.ref_vmas[ti]))
				bail("mincore() in the target");
			for (f = 0; f < NR_FILES; f++) {
				bench.cpu_ns[ti][f][i] = (double)c[f].cpu_ns;
				bench.wall_ns[ti][f][i] = (double)c[f].wall_ns;
				bench.bytes[ti][f] = c[f].bytes;
				cpu += c[f].cpu_ns;
			}
			bench.cpu_ns[ti][C_MINCORE][i] = (double)ref_ns;
			cpu += ref_ns;
		}
		rep_ns = (double)(intro_now_ns() - rep_start);
		note_stretch(intro_now_ns() - rep_start, cpu);
		bench.reps++;
	}
}

/* Per-rep ratios a/b of CPU per VMA; median, min and max. */
struct ratio {
	double median, min, max;
};

/* CPU ns per VMA of cost @f of target @t in repetition @i */
static double ns_per_vma(int t, int f, int i)
{
	return bench.cpu_ns[t][f][i] /
	       (f == C_MINCORE ? bench.ref_vmas[t] : bench.tgt[t].vmas);
}

static double rep_ratio(int i, int ta, int fa, int tb, int fb)
{
	return ns_per_vma(ta, fa, i) / ns_per_vma(tb, fb, i);
}

static struct ratio cost_ratio(int ta, int fa, int tb, int fb)
{
	double *v = calloc(bench.reps ? bench.reps : 1, sizeof(double));
	struct ratio r = { NAN, NAN, NAN };
	int i;

	if (!v)
		bail("allocate ratios");
	for (i = 0; i < bench.reps; i++)
		v[i] = rep_ratio(i, ta, fa, tb, fb);
	if (bench.reps) {
		intro_sort(v, bench.reps);
		r.median = intro_median(v, bench.reps, true);
		r.min = v[0];
		r.max = v[bench.reps - 1];
	}
	free(v);
	return r;
}

static double us_per_vma(int t, int f)
{
	return intro_median(bench.cpu_ns[t][f], bench.reps, false) /
	       (f == C_MINCORE ? bench.ref_vmas[t] : bench.tgt[t].vmas) /
	       NSEC_PER_USEC;
}

/* Append @v to the comma-separated list in @line of @cap bytes. */
static void append_value(char *line, size_t cap, double v)
{
	size_t len = strlen(line);

	snprintf(line + len, cap - len, "%s%.2f", len ? "," : "", v);
}

/* Evidence: "# @label: @key=r1,r2,..." per repetition, in run order. */
static void print_ratios(const char *label, const char *key, int ta, int fa,
			 int tb, int fb)
{
	char line[RATIOS_LEN] = "";
	int i;

	for (i = 0; i < bench.reps; i++)
		append_value(line, sizeof(line), rep_ratio(i, ta, fa, tb, fb));
	ksft_print_msg("%s: %s=%s\n", label, key, line);
}

/* -v: every repetition's CPU us per VMA of file @f of target @t. */
static void print_samples(int t, int f)
{
	static const char * const keys[NR_FILES] = {
		"maps_cpu_us_per_vma", "smaps_cpu_us_per_vma",
		"smaps_rollup_cpu_us_per_vma",
	};
	char line[RATIOS_LEN] = "";
	int i;

	for (i = 0; i < bench.reps; i++)
		append_value(line, sizeof(line), bench.cpu_ns[t][f][i] /
			     bench.tgt[t].vmas / NSEC_PER_USEC);
	ksft_print_msg("%s: %s=%s\n", cost_labels[t], keys[f], line);
}

static void print_cost(int t, int f)
{
	double wall = intro_median(bench.wall_ns[t][f], bench.reps, false);

	ksft_print_msg("%s: vmas=%ld file=%s bytes=%zu cpu_us_per_vma=%.3f wall_us_per_vma=%.3f\n",
		       cost_labels[t], bench.tgt[t].vmas, file_names[f],
		       bench.bytes[t][f], us_per_vma(t, f),
		       wall / bench.tgt[t].vmas / NSEC_PER_USEC);
	if (bench.opts.verbose)
		print_samples(t, f);
}

/* ---- Reading a target that changes ----------------------------------------- */

/*
 * The churner holds CHURN_PAIRS one-page shared mappings that it never
 * touches ("stable"), each followed by a slot of SLOT_PAGES pages that it
 * maps, unmaps, splits, faults and zaps at random while the parent reads
 * its maps, smaps and smaps_rollup in CHURN_READ_BYTES read() calls. A
 * read() ends every ten-odd maps lines and every smaps entry, and each next
 * one resumes in m_start(): every stable mapping sits beside a VMA that may
 * have gone away by then.
 */
enum churn_op { CH_UNMAP, CH_MAP, CH_SPLIT, CH_FAULT, CH_ZAP };
enum slot_state { SLOT_NONE, SLOT_RW, SLOT_SPLIT, SLOT_HOLE };
/*
 * Quiet reads; reads while the churner changes slots freely; reads that
 * stop after each read() while it unmaps the slot after the last record
 * received, the VMA the next read() resumes at.
 */
enum churn_kind { CK_QUIET, CK_CHANGING, CK_STEPPED, NR_CHURN_KINDS };

/* what the parent asks of the churner */
struct churn_cmd {
	enum { CC_RUN, CC_STEP } op;
	unsigned long addr;	/* CC_STEP: the last record begun */
};

/* on a page the parent shares with the churner */
struct churn_ctl {
	unsigned long ops;	/* free changes made so far */
	unsigned long resume_unmaps;	/* steps that unmapped a slot */
	int stop;		/* parent: end the free churn */
};

struct churner {
	pid_t pid;
	int cmd_fd, ack_fd;
	struct churn_ctl *ctl;
	unsigned long area;	/* first stable mapping */
};

static unsigned long long churn_next(unsigned long long *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * A slot that goes away between two read()s is what a resuming reader can
 * trip on, so unmapping and mapping again are drawn twice as often.
 */
static const enum churn_op churn_ops[] = {
	CH_UNMAP, CH_MAP, CH_UNMAP, CH_MAP, CH_SPLIT, CH_FAULT, CH_ZAP, CH_FAULT,
};

/* One random change to a slot; errors (a slot already a hole) are fine. */
static void churn_once(char *area, long page, unsigned char *state,
		       unsigned long long *x)
{
	unsigned long long r = churn_next(x);
	long i = (long)(r % CHURN_PAIRS), k;
	size_t len = SLOT_PAGES * page;
	char *slot = area + (i * (1 + SLOT_PAGES) + 1) * page;

	switch (churn_ops[(r >> 32) % ARRAY_SIZE(churn_ops)]) {
	case CH_UNMAP:
		munmap(slot, len);
		state[i] = SLOT_HOLE;
		break;
	case CH_MAP:
		if (mmap(slot, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    MAP_FAILED)
			state[i] = SLOT_RW;
		break;
	case CH_SPLIT:
		if (!mprotect(slot + page, page, PROT_READ) &&
		    state[i] == SLOT_RW)
			state[i] = SLOT_SPLIT;
		break;
	case CH_FAULT:
		for (k = 0; k < SLOT_PAGES && state[i] == SLOT_RW; k++)
			store_same(slot + k * page);
		if (state[i] == SLOT_SPLIT)
			store_same(slot);
		break;
	default:
		madvise(slot, len, MADV_DONTNEED);
		break;
	}
}

/*
 * A step: map back the slot unmapped at the last step, then unmap the slot
 * after the pair that holds @addr, so that the VMA a reader resumes at is
 * gone when it resumes.
 */
static bool churn_step(char *area, long page, unsigned char *state,
		       unsigned long addr, long *gone)
{
	size_t stride = (1 + SLOT_PAGES) * page, len = SLOT_PAGES * page;
	unsigned long i = (addr - (unsigned long)area) / stride;

	if (*gone >= 0 &&
	    mmap(area + *gone * stride + page, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
		state[*gone] = SLOT_RW;
	*gone = -1;
	if (addr < (unsigned long)area || i >= CHURN_PAIRS ||
	    state[i] == SLOT_HOLE)
		return false;
	munmap(area + i * stride + page, len);
	state[i] = SLOT_HOLE;
	*gone = (long)i;
	return true;
}

/*
 * The churner: reserve the area, map the stable pages into it (the slots
 * stay PROT_NONE pieces of the reservation), send the area's address, then
 * churn on each command byte until ctl->stop, answering with one byte.
 */
static void churner_main(struct churn_ctl *ctl, int cmd_fd, int ack_fd)
{
	static unsigned char state[CHURN_PAIRS];
	long page = sysconf(_SC_PAGESIZE), i;
	unsigned long long x = CHURN_SEED;
	size_t stride = (1 + SLOT_PAGES) * page;
	struct churn_cmd cmd;
	long gone = -1;
	char *area, *p, c = 0;

	area = mmap(NULL, CHURN_PAIRS * stride, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	for (i = 0; area != MAP_FAILED && i < CHURN_PAIRS; i++) {
		p = mmap(area + i * stride, page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE,
			 -1, 0);
		if (p == MAP_FAILED)
			area = MAP_FAILED;
		else
			store_same(p);
	}
	if (write(ack_fd, &area, sizeof(area)) != sizeof(area) ||
	    area == MAP_FAILED)
		_exit(0);
	while (read(cmd_fd, &cmd, sizeof(cmd)) == sizeof(cmd)) {
		if (cmd.op == CC_STEP &&
		    churn_step(area, page, state, cmd.addr, &gone))
			__atomic_add_fetch(&ctl->resume_unmaps, 1,
					   __ATOMIC_RELAXED);
		while (cmd.op == CC_RUN &&
		       !__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE)) {
			churn_once(area, page, state, &x);
			__atomic_add_fetch(&ctl->ops, 1, __ATOMIC_RELAXED);
		}
		if (write(ack_fd, &c, 1) != 1)
			break;
	}
	_exit(0);
}

static void churner_stop(struct churner *ch)
{
	if (ch->pid <= 0)
		return;
	close(ch->cmd_fd);
	close(ch->ack_fd);
	child_kill_wait(ch->pid);
	munmap(ch->ctl, sizeof(*ch->ctl));
	ch->pid = -1;
}

static int churner_start(struct churner *ch)
{
	char *area;

	ch->pid = -1;
	ch->ctl = mmap(NULL, sizeof(*ch->ctl), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch->ctl == MAP_FAILED)
		return -1;
	ch->pid = fork_piped(&ch->cmd_fd, &ch->ack_fd);
	if (!ch->pid)
		churner_main(ch->ctl, ch->cmd_fd, ch->ack_fd);
	if (ch->pid < 0) {
		munmap(ch->ctl, sizeof(*ch->ctl));
		return -1;
	}
	if (read(ch->ack_fd, &area, sizeof(area)) != sizeof(area) ||
	    area == MAP_FAILED) {
		churner_stop(ch);
		errno = ENOMEM;
		return -1;
	}
	ch->area = (unsigned long)area;
	return 0;
}

/* What the reads of one file found. */
struct churn_file {
	int reads[NR_CHURN_KINDS];
	int reads_changed;	/* reads during which the churner changed */
	double *cpu_ns_per_entry[NR_CHURN_KINDS];
	long missing;		/* stable mappings not reported, all reads */
	long torn;		/* lines overlapping a stable one, not it */
	long malformed;		/* lines or entries not as printed */
	long rss_out;		/* smaps: stable Rss not one page; rollup */
	unsigned long first_missing;
	char first_bad[RATIOS_LEN];
	/* rollup min, max: [CK_QUIET], [CK_CHANGING] for every changing read */
	unsigned long long rss_kb[NR_CHURN_KINDS][2];
};

struct churn_run {
	struct churner ch;
	struct churn_file file[NR_FILES];
	unsigned long ops;	/* free changes during the changing reads */
	unsigned long resume_unmaps;	/* slots unmapped at read() boundaries */
	bool changed;		/* a changing round has begun */
	bool no_room;		/* its mappings did not fit (ENOMEM) */
	double seconds;
	long page_kb;
};

static struct churn_run churn;

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Skip 1 or more of the characters @ok accepts, at least @min; NULL if not. */
static const char *skip_run(const char *p, const char *end, int min,
			    bool (*ok)(char))
{
	const char *q = p;

	while (q < end && ok(*q))
		q++;
	return q - p >= min ? q : NULL;
}

static bool is_dec(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_blank(char c)
{
	return c == ' ';
}

static const char *expect(const char *p, const char *end, char c)
{
	return p && p < end && *p == c ? p + 1 : NULL;
}

/*
 * Is [@p, @end) a maps line as show_vma_header_prefix() prints it:
 * "lo-hi rwxp offset maj:min inode[ name]", lo < hi, both page aligned?
 */
static bool parse_header(const char *p, const char *end, unsigned long *lo,
			 unsigned long *hi)
{
	const char *q = skip_run(p, end, 1, is_hex);
	unsigned long mask = (unsigned long)churn.page_kb * 1024 - 1;

	*lo = strtoul(p, NULL, 16);
	q = expect(q, end, '-');
	if (!q)
		return false;
	*hi = strtoul(q, NULL, 16);
	q = expect(skip_run(q, end, 1, is_hex), end, ' ');
	if (!q || end - q < 5 || !strchr("r-", q[0]) || !strchr("w-", q[1]) ||
	    !strchr("x-", q[2]) || !strchr("sp", q[3]) || q[4] != ' ')
		return false;
	q = expect(skip_run(q + 5, end, 8, is_hex), end, ' ');
	q = q ? expect(skip_run(q, end, 2, is_hex), end, ':') : NULL;
	q = q ? skip_run(q, end, 2, is_hex) : NULL;
	q = q ? expect(q, end, ' ') : NULL;
	q = q ? skip_run(q, end, 1, is_dec) : NULL;
	return q && (q == end || *q == ' ') && *lo < *hi &&
	       !(*lo & mask) && !(*hi & mask);
}

/* "Name:   N kB", "Name:   N" or "VmFlags: ..." as __show_smap() prints. */
static bool field_line_ok(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
		q++;
	if (q == p || q == end || *q != ':' || !isupper((unsigned char)*p))
		return false;
	if (q - p == 7 && !memcmp(p, "VmFlags", 7))
		return true;
	q = skip_run(q + 1, end, 1, is_blank);
	q = q ? skip_run(q, end, 1, is_dec) : NULL;
	return q && (q == end || (end - q == 3 && !memcmp(q, " kB", 3)));
}

static void note_bad(struct churn_file *cf, const char *p, const char *nl)
{
	if (!cf->first_bad[0])
		snprintf(cf->first_bad, sizeof(cf->first_bad), "%.*s",
			 (int)(nl - p < 120 ? nl - p : 120), p);
}

/*
 * Scan one read of maps or smaps of the churner: every header well formed,
 * every stable mapping reported with its exact range (and, in smaps, Rss of
 * one page), no line that overlaps one otherwise, smaps entries complete.
 */
static void scan_churn_read(const struct text *t, struct churn_file *cf,
			    bool smaps)
{
	static unsigned char seen[CHURN_PAIRS];
	unsigned long lo, hi, stride = (1 + SLOT_PAGES) * churn.page_kb * 1024;
	unsigned long area = churn.ch.area, area_end = area + CHURN_PAIRS * stride;
	const char *p = t->p, *end = t->p + t->len, *nl;
	long fields = -1, in_entry = -1, stable = -1, i;

	memset(seen, 0, sizeof(seen));
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (smaps && isupper((unsigned char)*p)) {
			if (!field_line_ok(p, nl) || in_entry < 0) {
				cf->malformed++;
				note_bad(cf, p, nl);
			}
			if (in_entry >= 0)
				in_entry++;
			if (stable >= 0 && !strncmp(p, "Rss:", 4) &&
			    strtoul(p + 4, NULL, 10) != (unsigned long)churn.page_kb) {
				cf->rss_out++;
				note_bad(cf, p, nl);
			}
			continue;
		}
		if (smaps && in_entry >= 0) {
			if (fields < 0)
				fields = in_entry;
			else if (in_entry != fields)
				cf->malformed++;
		}
		in_entry = 0;
		stable = -1;
		if (!parse_header(p, nl, &lo, &hi)) {
			cf->malformed++;
			note_bad(cf, p, nl);
			continue;
		}
		if (hi <= area || lo >= area_end)
			continue;
		i = (long)((lo - area) / stride);
		if (lo == area + i * stride && hi == lo + churn.page_kb * 1024) {
			seen[i] = 1;
			stable = i;
		} else if (lo < area || lo == area + i * stride ||
			   hi > area + (i + 1) * stride) {
			cf->torn++;
			note_bad(cf, p, nl);
		}
	}
	if (smaps && in_entry >= 0 && fields >= 0 && in_entry != fields)
		cf->malformed++;
	for (i = 0; i < CHURN_PAIRS; i++) {
		if (seen[i])
			continue;
		if (!cf->missing)
			cf->first_missing = area + i * stride;
		cf->missing++;
	}
}

/* Entries of a read: maps lines, smaps headers, 1 for smaps_rollup. */
static long churn_entries(const struct text *t, enum file_kind f)
{
	const char *p = t->p, *end = t->p + t->len;
	long n = 0;

	if (f == F_ROLLUP)
		return 1;
	for (; p < end; p++)
		if (p == t->p || p[-1] == '\n')
			n += is_hex(*p);
	return n ? n : 1;
}

/* The start of the last maps line or smaps entry begun in @t, or 0. */
static unsigned long last_record(const struct text *t)
{
	const char *p = t->p + t->len, *q;

	while (p > t->p) {
		q = p - 1;
		while (q > t->p && q[-1] != '\n')
			q--;
		p = q;
		if (!is_hex(*q))
			continue;
		while (q < t->p + t->len && is_hex(*q))
			q++;
		if (q < t->p + t->len && *q == '-')
			return strtoul(p, NULL, 16);
	}
	return 0;
}

/* Ask the churner to unmap the slot after the last record of @t; wait. */
static void churner_step(const struct text *t)
{
	struct churn_cmd cmd = { .op = CC_STEP, .addr = last_record(t) };
	char c;

	if (write(churn.ch.cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd) ||
	    read(churn.ch.ack_fd, &c, 1) != 1)
		bail("step the churner");
}

/*
 * Rollup Rss under change: at least the stable pages and the quiet Rss
 * less slack, at most that plus every slot page faulted in.
 */
static unsigned long long churn_rss_lo_kb(void)
{
	unsigned long long q = churn.file[F_ROLLUP].rss_kb[CK_QUIET][0];
	unsigned long long stable = CHURN_PAIRS * (unsigned long long)churn.page_kb;

	q = q > ROLLUP_SLACK_KB ? q - ROLLUP_SLACK_KB : 0;
	return q > stable ? q : stable;
}

static unsigned long long churn_rss_hi_kb(void)
{
	return churn.file[F_ROLLUP].rss_kb[CK_QUIET][1] + ROLLUP_SLACK_KB +
	       (unsigned long long)CHURN_PAIRS * SLOT_PAGES * churn.page_kb;
}

/* One timed read of file @f of the churner, scanned. */
static void churn_read(enum file_kind f, enum churn_kind k)
{
	struct churn_file *cf = &churn.file[f];
	unsigned long long cpu0, *mm, rss;
	unsigned long ops0, ops1;
	struct kb_sums sums;
	char path[PATH_LEN];

	proc_path(path, sizeof(path), churn.ch.pid, f);
	ops0 = __atomic_load_n(&churn.ch.ctl->ops, __ATOMIC_RELAXED);
	cpu0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (read_text(path, &bench.text, CHURN_READ_BYTES, k == CK_STEPPED))
		bail("read the churner's file");
	cpu0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	ops1 = __atomic_load_n(&churn.ch.ctl->ops, __ATOMIC_RELAXED);
	cf->reads_changed += k == CK_CHANGING && ops1 != ops0;
	cf->cpu_ns_per_entry[k][cf->reads[k]++] =
		(double)cpu0 / churn_entries(&bench.text, f);
	if (f != F_ROLLUP) {
		scan_churn_read(&bench.text, cf, f == F_SMAPS);
		return;
	}
	parse_smaps(&bench.text, &sums);
	rss = sums.kb[FI_RSS];
	/* the bounds come from the quiet reads before the first change */
	if (k == CK_QUIET && churn.changed)
		return;
	mm = cf->rss_kb[k == CK_QUIET ? CK_QUIET : CK_CHANGING];
	if (!mm[1] || rss < mm[0])
		mm[0] = rss;
	if (rss > mm[1])
		mm[1] = rss;
	if (k != CK_QUIET && (rss < churn_rss_lo_kb() ||
			      rss > churn_rss_hi_kb()))
		cf->rss_out++;
}

/* Let the churner change slots freely until churner_pause(). */
static void churner_run(void)
{
	struct churn_cmd cmd = { .op = CC_RUN };
	uint64_t t0 = intro_now_ns();
	unsigned long ops0 = churn.ch.ctl->ops;

	__atomic_store_n(&churn.ch.ctl->stop, 0, __ATOMIC_RELEASE);
	if (write(churn.ch.cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		bail("start the churner");
	/* the reads start once it changes; a jiffy or so on a busy CPU */
	while (__atomic_load_n(&churn.ch.ctl->ops, __ATOMIC_RELAXED) == ops0 &&
	       intro_now_ns() - t0 < NSEC_PER_SEC)
		sched_yield();
}

static void churner_pause(void)
{
	char c;

	__atomic_store_n(&churn.ch.ctl->stop, 1, __ATOMIC_RELEASE);
	if (read(churn.ch.ack_fd, &c, 1) != 1)
		bail("stop the churner");
}

/*
 * Read the churner in rounds of three: still, changing freely, changing at
 * each read() boundary (interleaved, so that load from elsewhere weighs on
 * the quiet and the changing reads alike), for CHURN_FRACTION of the
 * budget or CHURN_MAX_READS rounds of each kind.
 */
static void measure_churn(void)
{
	uint64_t limit = (uint64_t)(CHURN_FRACTION * bench.budget.limit_ns);
	uint64_t t0, left;
	enum churn_kind k;
	int f, i;

	churn.page_kb = bench.page_size / 1024;
	for (f = 0; f < NR_FILES; f++)
		for (k = 0; k < NR_CHURN_KINDS; k++) {
			churn.file[f].cpu_ns_per_entry[k] =
				calloc(CHURN_MAX_READS, sizeof(double));
			if (!churn.file[f].cpu_ns_per_entry[k])
				bail("allocate samples");
		}
	if (churner_start(&churn.ch)) {
		if (errno != ENOMEM)
			bail("fork the churner");
		churn.no_room = true;
		return;
	}
	t0 = intro_now_ns();
	for (i = 0; i < NR_CHURN_KINDS * CHURN_MAX_READS; i++) {
		left = intro_budget_left_ns(&bench.budget);
		k = i % NR_CHURN_KINDS;
		if (k == CK_QUIET && (intro_now_ns() - t0 >= limit ||
				      left < reserve_ns()))
			break;
		if (k == CK_CHANGING)
			churner_run();
		churn.changed |= k != CK_QUIET;
		for (f = 0; f < NR_FILES; f++)
			churn_read((f + i / NR_CHURN_KINDS) % NR_FILES, k);
		if (k == CK_CHANGING)
			churner_pause();
	}
	churn.ops = churn.ch.ctl->ops;
	churn.resume_unmaps = churn.ch.ctl->resume_unmaps;
	churn.seconds = (double)(intro_now_ns() - t0) / NSEC_PER_SEC;
	churner_stop(&churn.ch);
}

/* ---- Checks --------------------------------------------------------------- */

static const char *cost_skip_reason(void)
{
	if (bench.tgt[T_LARGE].created < LARGE_MIN_VMAS && bench.build_cut)
		return "time budget too small to build the target";
	if (bench.tgt[T_LARGE].created < LARGE_MIN_VMAS &&
	    !strcmp(bench.size_limit, "cgroup_memory"))
		return "memory cgroup limit too low for a cost measurement";
	if (bench.tgt[T_LARGE].created < LARGE_MIN_VMAS)
		return "too few mappings allowed for a cost measurement";
	if (bench.reps < REPS_MIN)
		return "time budget too small for enough repetitions";
	return NULL;
}

static const char * const cost_keys[NR_COSTS] = {
	"maps", "smaps", "rollup", "mincore",
};

/*
 * Cost @fa against cost @fb per VMA on the large target, the median of the
 * per-repetition ratios within [@lo, @hi].
 */
static int judge_cost(const char *name, const char **reason, int fa, int fb,
		      double lo, double hi)
{
	struct ratio r = cost_ratio(T_LARGE, fa, T_LARGE, fb);
	int result;

	*reason = cost_skip_reason();
	result = *reason ? KSFT_SKIP :
		 r.median >= lo && r.median <= hi ? KSFT_PASS : KSFT_FAIL;
	ksft_print_msg("%s: %s_us_per_vma=%.3f %s_us_per_vma=%.3f vmas=%ld reps=%d\n",
		       name, cost_keys[fa], us_per_vma(T_LARGE, fa),
		       cost_keys[fb], us_per_vma(T_LARGE, fb),
		       bench.tgt[T_LARGE].vmas, bench.reps);
	intro_figures(name,
		      "median_ratio=%.2f min_ratio=%.2f max_ratio=%.2f bound_lo_ratio=%.2f bound_hi_ratio=%.1f",
		      r.median, r.min, r.max, lo, hi);
	if (result == KSFT_FAIL || bench.opts.verbose)
		print_ratios(name, "per_rep_ratio", T_LARGE, fa, T_LARGE, fb);
	return result;
}

/*
 * Median over the repetitions of @f's cost per VMA against mincore()'s on
 * the large target, over the same on the small one.
 */
static double scaling_ratio(int f)
{
	double *v = calloc(bench.reps ? bench.reps : 1, sizeof(double));
	double r = NAN;
	int i;

	if (!v)
		bail("allocate ratios");
	for (i = 0; i < bench.reps; i++)
		v[i] = rep_ratio(i, T_LARGE, f, T_LARGE, C_MINCORE) /
		       rep_ratio(i, T_SMALL, f, T_SMALL, C_MINCORE);
	if (bench.reps)
		r = intro_median(v, bench.reps, false);
	free(v);
	return r;
}

static int check_scaling(const char *name, const char **reason)
{
	static const char * const keys[NR_FILES] = {
		"maps_per_rep_ratio", "smaps_per_rep_ratio",
		"smaps_rollup_per_rep_ratio",
	};
	double r[NR_FILES], worst;
	int f, result;

	for (f = 0; f < NR_FILES; f++)
		r[f] = scaling_ratio(f);
	/* judged: the two files read in many read() calls (m_start() each) */
	worst = fmax(r[F_MAPS], r[F_SMAPS]);
	*reason = cost_skip_reason();
	if (!*reason && bench.tgt[T_LARGE].vmas <
	    (SIZE_RATIO - 1) * bench.tgt[T_SMALL].vmas)
		*reason = "targets too close in size";
	result = *reason ? KSFT_SKIP :
		 worst <= SCALING_MAX_RATIO ? KSFT_PASS : KSFT_FAIL;
	ksft_print_msg("%s: small_vmas=%ld large_vmas=%ld rollup_ratio=%.2f reps=%d\n",
		       name, bench.tgt[T_SMALL].vmas, bench.tgt[T_LARGE].vmas,
		       r[F_ROLLUP], bench.reps);
	intro_figures(name,
		      "maps_ratio=%.2f smaps_ratio=%.2f worst_ratio=%.2f bound_hi_ratio=%.1f",
		      r[F_MAPS], r[F_SMAPS], worst, SCALING_MAX_RATIO);
	for (f = 0; f < NR_FILES; f++)
		if (result == KSFT_FAIL || bench.opts.verbose)
			print_ratios(name, keys[f], T_LARGE, f, T_SMALL, f);
	return result;
}

static void print_mismatch(const char *check, const struct mismatch *m)
{
	ksft_print_msg("%s: field=%s rollup_kb=%lld sum_kb=%lld slack_kb=%lld drift_kb=%lld\n",
		       check, m->name, m->rollup_kb, m->sum_kb, m->slack_kb,
		       m->drift_kb);
}

static int check_rollup_sum(const char *name, const char **reason)
{
	const struct kb_sums *r = &bench.rollup, *s = &bench.sum;
	int i, result = KSFT_SKIP;

	*reason = NULL;
	if (!bench.cons_tries)
		*reason = "time budget too small for a consistency read";
	else if (!bench.cons_stable)
		*reason = "target changed during every read";
	else if (bench.cons_bad >= QUIET_TRIPLES)
		result = KSFT_FAIL;
	else if (bench.cons_stable > bench.cons_bad)
		result = KSFT_PASS;
	else
		*reason = "difference seen once, target not quiescent to confirm";
	intro_figures(name,
		      "disagreeing_triples=%d quiet_triples=%d rss_diff_kb=%lld pss_diff_kb=%lld pss_bound_kb=%ld",
		      bench.cons_bad, bench.cons_stable,
		      (long long)(r->kb[FI_RSS] - s->kb[FI_RSS]),
		      (long long)(r->kb[FI_PSS] - s->kb[FI_PSS]), s->frac_pss);
	ksft_print_msg("%s: rss_rollup_kb=%llu rss_sum_kb=%llu entries=%ld tries=%d\n",
		       name, r->kb[FI_RSS], s->kb[FI_RSS], s->entries,
		       bench.cons_tries);
	ksft_print_msg("%s: pss_rollup_kb=%llu pss_sum_kb=%llu\n",
		       name, r->kb[FI_PSS], s->kb[FI_PSS]);
	ksft_print_msg("%s: locked_rollup_kb=%llu locked_sum_kb=%llu\n", name,
		       r->kb[FI_LOCKED], s->kb[FI_LOCKED]);
	for (i = 0; i < bench.nr_mismatches && i < MISMATCHES_SHOWN; i++)
		print_mismatch(name, &bench.mismatch[i]);
	if (bench.cons_changed && result != KSFT_PASS)
		ksft_print_msg("%s: last_moved_field=%s\n", name,
			       bench.cons_changed);
	return result;
}

static int check_vma_count(const char *name, const char **reason)
{
	const struct target *s = &bench.tgt[T_SMALL], *l = &bench.tgt[T_LARGE];
	long bad, disordered;

	disordered = bench.shape[T_SMALL].disordered +
		     bench.shape[T_LARGE].disordered;
	bad = (l->vmas != l->baseline + l->created) +
	      (s->vmas != s->baseline + s->created) +
	      (bench.smaps_entries[T_SMALL] != s->vmas) + (disordered != 0);
	ksft_print_msg("%s: small_smaps_entries=%ld baseline_vmas=%ld disordered=%ld\n",
		       name, bench.smaps_entries[T_SMALL], l->baseline,
		       disordered);
	intro_figures(name,
		      "large_lines=%ld large_expected=%ld small_lines=%ld small_expected=%ld",
		      l->vmas, l->baseline + l->created, s->vmas,
		      s->baseline + s->created);
	*reason = NULL;
	return bad ? KSFT_FAIL : KSFT_PASS;
}

static const char *churn_skip_reason(const struct churn_file *cf)
{
	if (churn.no_room)
		return "too few mappings allowed for the changing target";
	if (cf->reads[CK_CHANGING] < CHURN_MIN_READS ||
	    cf->reads[CK_STEPPED] < CHURN_MIN_READS)
		return "time budget too small for reads under change";
	if (!cf->reads_changed && !churn.resume_unmaps)
		return "target made no change during the reads";
	return NULL;
}

/* A fault seen is a FAIL even when too few reads ran to call it clean. */
static int churn_verdict(const struct churn_file *cf, long faults,
			 const char **reason)
{
	*reason = churn_skip_reason(cf);
	if (faults)
		return KSFT_FAIL;
	return *reason ? KSFT_SKIP : KSFT_PASS;
}

/* @s with its blanks as '_', so that it stays one token of a figure line */
static const char *one_token(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (*p == ' ' || *p == '\t')
			*p = '_';
	return s;
}

static int judge_complete(const char *name, const char **reason,
			  enum file_kind f)
{
	struct churn_file *cf = &churn.file[f];
	int result;

	result = churn_verdict(cf, cf->missing + cf->torn + cf->malformed +
			       cf->rss_out, reason);
	ksft_print_msg("%s: reads=%d reads_changed=%d stepped_reads=%d quiet_reads=%d\n",
		       name, cf->reads[CK_CHANGING], cf->reads_changed,
		       cf->reads[CK_STEPPED], cf->reads[CK_QUIET]);
	ksft_print_msg("%s: churn_ops=%lu resume_unmaps=%lu churn_s=%.2f read_bytes=%d\n",
		       name, churn.ops, churn.resume_unmaps, churn.seconds,
		       CHURN_READ_BYTES);
	intro_figures(name,
		      "missing_vmas=%ld torn_lines=%ld malformed=%ld stable_rss_bad=%ld stable_vmas=%d",
		      cf->missing, cf->torn, cf->malformed, cf->rss_out,
		      CHURN_PAIRS);
	if (cf->missing)
		ksft_print_msg("%s: first_missing_start=%#lx\n", name,
			       cf->first_missing);
	if (cf->first_bad[0])
		ksft_print_msg("%s: first_bad_line=%s\n", name,
			       one_token(cf->first_bad));
	return result;
}

static int check_changing_maps(const char *name, const char **reason)
{
	return judge_complete(name, reason, F_MAPS);
}

static int check_changing_smaps(const char *name, const char **reason)
{
	return judge_complete(name, reason, F_SMAPS);
}

static int check_changing_rollup(const char *name, const char **reason)
{
	struct churn_file *cf = &churn.file[F_ROLLUP];
	int result = churn_verdict(cf, cf->rss_out, reason);

	ksft_print_msg("%s: reads=%d reads_changed=%d stepped_reads=%d quiet_rss_kb=%llu\n",
		       name, cf->reads[CK_CHANGING], cf->reads_changed,
		       cf->reads[CK_STEPPED], cf->rss_kb[CK_QUIET][0]);
	intro_figures(name,
		      "rss_out_of_bounds=%ld min_rss_kb=%llu max_rss_kb=%llu bound_lo_kb=%llu bound_hi_kb=%llu",
		      cf->rss_out, cf->rss_kb[CK_CHANGING][0],
		      cf->rss_kb[CK_CHANGING][1], churn_rss_lo_kb(),
		      churn_rss_hi_kb());
	return result;
}

/* Median CPU us per entry of the quiet reads of @f */
static double churn_quiet_us(enum file_kind f)
{
	const struct churn_file *cf = &churn.file[f];

	return intro_median(cf->cpu_ns_per_entry[CK_QUIET],
			    cf->reads[CK_QUIET], false) / NSEC_PER_USEC;
}

/* Median CPU per entry of @f's changing reads over its quiet reads. */
static double churn_cost_ratio(enum file_kind f)
{
	const struct churn_file *cf = &churn.file[f];

	return intro_median(cf->cpu_ns_per_entry[CK_CHANGING],
			    cf->reads[CK_CHANGING], false) /
	       intro_median(cf->cpu_ns_per_entry[CK_QUIET],
			    cf->reads[CK_QUIET], false);
}

static int check_changing_cost(const char *name, const char **reason)
{
	double r[NR_FILES], worst = 0;
	int f, result;

	*reason = NULL;
	for (f = 0; f < NR_FILES; f++) {
		r[f] = churn_cost_ratio(f);
		if (!*reason)
			*reason = churn_skip_reason(&churn.file[f]);
		if (r[f] > worst)
			worst = r[f];
	}
	result = *reason ? KSFT_SKIP :
		 worst <= CHURN_COST_MAX_RATIO ? KSFT_PASS : KSFT_FAIL;
	ksft_print_msg("%s: reads=%d quiet_reads=%d churn_ops=%lu\n", name,
		       churn.file[F_MAPS].reads[CK_CHANGING],
		       churn.file[F_MAPS].reads[CK_QUIET], churn.ops);
	ksft_print_msg("%s: quiet_maps_us_per_line=%.3f quiet_smaps_us_per_entry=%.3f\n",
		       name, churn_quiet_us(F_MAPS), churn_quiet_us(F_SMAPS));
	ksft_print_msg("%s: quiet_rollup_us=%.1f\n", name,
		       churn_quiet_us(F_ROLLUP));
	intro_figures(name,
		      "median_ratio=%.2f maps_ratio=%.2f smaps_ratio=%.2f rollup_ratio=%.2f bound_hi_ratio=%.1f",
		      worst, r[F_MAPS], r[F_SMAPS], r[F_ROLLUP],
		      CHURN_COST_MAX_RATIO);
	return result;
}

/* A cost check has no judge: judge_cost() of fa / fb within [lo, hi]. */
static const struct check {
	const char *name;
	int (*judge)(const char *name, const char **reason);
	int fa, fb;
	double lo, hi;
} checks[] = {
	{ "maps_cost", NULL, F_MAPS, C_MINCORE,
	  MAPS_REF_MIN_RATIO, MAPS_REF_MAX_RATIO },
	{ "smaps_cost", NULL, F_SMAPS, C_MINCORE,
	  SMAPS_REF_MIN_RATIO, SMAPS_REF_MAX_RATIO },
	{ "smaps_rollup_cost", NULL, F_ROLLUP, C_MINCORE,
	  ROLLUP_REF_MIN_RATIO, ROLLUP_REF_MAX_RATIO },
	{ "smaps_vs_maps_cost", NULL, F_SMAPS, F_MAPS,
	  SMAPS_MAPS_MIN_RATIO, SMAPS_MAPS_MAX_RATIO },
	{ "smaps_vs_rollup_cost", NULL, F_SMAPS, F_ROLLUP,
	  SMAPS_ROLLUP_MIN_RATIO, SMAPS_ROLLUP_MAX_RATIO },
	{ .name = "per_vma_cost_scaling", .judge = check_scaling },
	{ .name = "rollup_equals_smaps_sum", .judge = check_rollup_sum },
	{ .name = "vma_count", .judge = check_vma_count },
	{ .name = "changing_maps_complete", .judge = check_changing_maps },
	{ .name = "changing_smaps_complete", .judge = check_changing_smaps },
	{ .name = "changing_rollup_rss", .judge = check_changing_rollup },
	{ .name = "changing_read_cost", .judge = check_changing_cost },
};

int main(int argc, char **argv)
{
	double t_build, t_cons, t_stop;
	const struct check *c;
	const char *reason;
	int k, f, result;
	size_t i;

	intro_parse_opts(argc, argv, &prog, &bench.opts);
	intro_budget_start(&bench.budget, BUDGET_S * bench.opts.scale);
	ksft_print_header();
	intro_print_env(&bench.opts);
	if (access("/proc/self/smaps_rollup", R_OK))
		ksft_exit_skip("no /proc/PID/smaps_rollup (CONFIG_PROC_PAGE_MONITOR)\n");
	bench.max_map_count = read_max_map_count();
	if (bench.max_map_count <= 0)
		ksft_exit_skip("vm.max_map_count not readable\n");
	bench.mem_avail_kb = mem_available_kb();
	bench.cgroup_room = cgroup_memory_room(&bench.cgroup_version);
	bench.page_size = sysconf(_SC_PAGESIZE);
	catch_term();
	ksft_set_plan(ARRAY_SIZE(checks));

	bench.reps_max = (int)lround(REPS_WANTED * bench.opts.scale);
	if (bench.reps_max < REPS_MIN)
		bench.reps_max = REPS_MIN;
	bench.buf = malloc(READ_BUF_BYTES);
	if (!bench.buf)
		bail("allocate read buffer");
	build_targets();
	t_build = intro_budget_spent_s(&bench.budget);
	check_consistency();
	measure_churn();
	t_cons = intro_budget_spent_s(&bench.budget);
	measure_costs();
	for (k = 0; k < NR_TARGETS && bench.reps; k++) {
		for (f = 0; f < NR_FILES; f++)
			print_cost(k, f);
		ksft_print_msg("%s: mincore_vmas=%ld mincore_cpu_us_per_vma=%.3f\n",
			       cost_labels[k], bench.ref_vmas[k],
			       us_per_vma(k, C_MINCORE));
	}
	ksft_print_msg("phases: build_s=%.2f consistency_s=%.2f tries=%d cost_s=%.2f reps=%d\n",
		       t_build, t_cons - t_build, bench.cons_tries,
		       intro_budget_spent_s(&bench.budget) - t_cons, bench.reps);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		reason = NULL;
		c = &checks[i];
		result = c->judge ? c->judge(c->name, &reason) :
			 judge_cost(c->name, &reason, c->fa, c->fb, c->lo,
				    c->hi);
		intro_report(c->name, result, reason);
	}
	t_stop = intro_budget_spent_s(&bench.budget);
	for (k = 0; k < NR_TARGETS; k++)
		target_stop(&bench.tgt[k]);
	ksft_print_msg("run: spent_s=%.2f teardown_s=%.2f budget_s=%.1f\n",
		       intro_budget_spent_s(&bench.budget),
		       intro_budget_spent_s(&bench.budget) - t_stop,
		       BUDGET_S * bench.opts.scale);
	for (k = 0; k < NR_TARGETS; k++)
		for (f = 0; f < NR_COSTS; f++) {
			free(bench.cpu_ns[k][f]);
			free(bench.wall_ns[k][f]);
		}
	free(bench.buf);
	free(bench.text.p);
	ksft_finished();
}
