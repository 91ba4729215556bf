// SPDX-License-Identifier: GPL-2.0
/*
 * smaps_perf - what /proc/PID/maps, smaps and smaps_rollup cost per VMA
 * (guards linux-mm, August 2016, "Implement /proc/<pid>/totmaps": summing
 * smaps spent half its time in vsnprintf(); 493b0e9d945f, d1be35cb6f96),
 * whether smaps_rollup adds up to the smaps entries, and whether maps and
 * smaps of a changing target list what it never touches (lost at a read()
 * boundary until 855af072b5e4). Each cost is timed next to a reference
 * that does the same kind of work by another path (maps: text formatted by
 * the epoll fdinfo; smaps_rollup: the page walk of pagemap), each less its
 * syscalls at the cost of null ones.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sched.h>
#include <unistd.h>

#include "introspect_util.h"

/*
 * Ratios of costs less their syscalls, per item (a VMA of the target, a line
 * of the epoll fdinfo). Each upper bound sits 10 % over the highest healthy
 * median of every machine kind in lab/data/grid.tsv; below a lower bound
 * the file stopped walking its VMAs. maps per VMA / an epoll fdinfo line
 * (ep_show_fdinfo(): seq_printf() of six numbers): both format text, so
 * machines weigh them alike: healthy 0.99-1.28 natively, idle or loaded,
 * 1.0-1.17 under TCG (x86_64, PTI, arm64, 6.1), 0.65-0.68 on 32-bit ARM
 * (8-digit addresses) and a contended PTI guest; maps doing its own work
 * twice reads 1.7-2.1 (32-bit ARM: 1.3, not caught).
 */
#define MAPS_MIN_RATIO		0.05
#define MAPS_MAX_RATIO		1.45

/*
 * smaps/maps: healthy 3.8-5.2 natively, 5.8-7.1 under TCG; smaps 1.6-2.2
 * times as slow fails natively; smaps doing its own work twice reads
 * 9.6-14 everywhere; a maps twice as slow reads about 2.2.
 */
#define SMAPS_MIN_RATIO		1.5
#define SMAPS_MAX_RATIO		8.5

/*
 * smaps_rollup / pagemap over the same VMAs: both walk each VMA's page
 * tables and look at each page (smaps_pte_entry(), pagemap_pmd_range()):
 * healthy 0.77-1.30 natively (1.30 with syscalls 3 us slower), 0.79-0.99
 * under TCG, 0.66 on 32-bit ARM (pagemap's entries are 64-bit); gathering
 * each VMA twice reads 1.47-1.74 (32-bit ARM: 1.25, not caught).
 */
#define ROLLUP_MIN_RATIO	0.1
#define ROLLUP_MAX_RATIO	1.45

/*
 * Share of a reference walk beyond its syscalls: one read() serves
 * hundreds of items (healthy 0.9 and more); a reference near its syscalls'
 * cost, or below, decides nothing.
 */
#define REF_NET_MIN		0.05

/*
 * Pss_Anon + Pss_File + Pss_Shmem against Pss: four sums each truncated to
 * kB (smaps_page_accumulate()), so the parts are 0 to 2 kB below Pss.
 */
#define PSS_PARTS_SLACK_KB	2

/* PSS drift between two rollups (exec and exit elsewhere move libc's). */
#define PSS_DRIFT_MAX_KB	4

/*
 * A smaps sum above both rollups: a process sharing libc came and went in
 * between (up to 6 kB seen); a lost mapping still fails on page counts.
 */
#define PSS_HIDDEN_DRIFT_KB	32

#define BUDGET_S		20.0	/* whole run, times --scale */
#define TARGET_VMAS		4096	/* mappings of the target */
#define MIN_VMAS		768	/* fewer: the program skips */
/*
 * Fewer: the cost checks skip. Under 2,500 VMAs maps_cost rises (1.30-1.41
 * at 966, 1.10-1.26 at 2,466 and 1.13-1.22 at 4,126, natively): what a walk
 * pays per VMA is not yet what it pays for the memfd mappings alone.
 */
#define COST_MIN_VMAS		3000
/* the reference's lines: as many on every machine, in RLIMIT_NOFILE's 1024 */
#define EPOLL_LINES		960
#define FD_SPARE		32	/* of RLIMIT_NOFILE, for everything else */
#define PMD_BYTES		(2UL << 20)	/* pagemap_read() walks in these */
#define MAP_COUNT_MARGIN	64	/* of vm.max_map_count, kept free */
#define ROUNDS			31	/* times --scale (<= 2), at least ROUNDS_MIN */
#define ROUNDS_MIN		7	/* fewer within the budget: the cost checks skip */
#define CHURN_FRACTION		0.1	/* of the budget, reads under change */
#define RESERVE_FRACTION	0.15	/* kept for the checks and teardown */
#define LOCK_VMAS		16	/* mlock()ed mappings, as RLIMIT_MEMLOCK allows */
#define READ_BUF_BYTES		(1024 * 1024)
#define SLOTS			8	/* places in the buffer a round reads to */
#define CONSISTENCY_TRIES	8	/* rollup/smaps/smaps/rollup sets, at most */
#define PATH_LEN		64
#define LINE_LEN		1024	/* one evidence line */
#define CHURN_PAIRS		128	/* stable mappings, each before a slot */
#define SLOT_PAGES		4	/* pages of a churning slot */
#define CHURN_READ_BYTES	1024	/* read() size: many resumes per file */
#define CHURN_MAX_READS		200	/* of each file, under change */
#define CHURN_MIN_READS		3	/* under change, to judge a file */
#define CHURN_ROLLUP_READS	64	/* per changing round: one read() each */
#define CHUNK_CALLS		32	/* syscalls timed between two null chunks */
#define ANON_PAGES		8	/* written pages of a private memfd mapping */
#define FILE_PAGES		(2 * LOCK_VMAS + 1)	/* then ANON_PAGES */
#define MEMFD_NAME		"/memfd:smaps_perf"

enum file_kind { F_MAPS, F_SMAPS, F_ROLLUP, NR_FILES };
static const char * const file_names[NR_FILES] = { "maps", "smaps", "smaps_rollup" };

enum cost_kind { C_MAPS, C_SMAPS, C_ROLLUP, C_PAGEMAP, C_EPOLL, NR_COSTS };
static const char * const cost_keys[NR_COSTS] = {
	"maps", "smaps", "rollup", "pagemap", "epoll"
};

/* A round, in this order and backwards in every other: each pair adjacent. */
static const enum cost_kind round_order[NR_COSTS] = {
	C_PAGEMAP, C_ROLLUP, C_EPOLL, C_MAPS, C_SMAPS
};

struct target_ack {
	long baseline;		/* VMAs in maps before it mapped anything */
	long created;		/* shared mappings: LOCK_VMAS pages, then one */
	long locked;		/* of which mlock()ed */
	long anon;		/* pages of its private mapping, all written */
	int err;		/* of the first call that failed: */
	const char *failed;	/* "memfd_create", "ftruncate", "mmap" */
};

struct target {
	pid_t pid;
	int cmd_fd, ack_fd;	/* the target waits on cmd_fd until killed */
	struct target_ack ack;
	long vmas;		/* lines in maps after it mapped */
};

/* A real store of the byte at @p (atomic: kept), so a COW page is copied. */
static void store_same(char *p)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

/*
 * Map ANON_PAGES of a memfd privately and write them (anonymous pages),
 * then a memfd page @n - 1 times shared at offsets that never follow on
 * (no merge): the first LOCK_VMAS pages each once, mlock()ed, then one
 * page. Answer, block. No stdio, no malloc: no VMA the parent did not count.
 */
static void target_main(long n, int cmd_fd, int ack_fd)
{
	long page = sysconf(_SC_PAGESIZE);
	static char maps[64 * 1024];
	struct target_ack ack = { 0 };
	unsigned long lo, hi, a;
	char *p, *q, *nl, c;
	struct timespec ts;
	off_t off;
	int fd;

	/* break COW of private pages, so the parent cannot move our PSS */
	ack.baseline = intro_read_file("/proc/self/maps", maps, sizeof(maps)) < 0 ? -1 : 0;
	for (p = maps; ack.baseline >= 0 && *p; p = *nl ? nl + 1 : nl) {
		nl = strchrnul(p, '\n');
		ack.baseline++;
		lo = strtoul(p, &q, 16);
		hi = strtoul(q + 1, &q, 16);
		if (strncmp(q, " rw-p", 5))
			continue;
		for (a = lo; a < hi; a += page)
			store_same((char *)a);
	}
	fd = memfd_create("smaps_perf", MFD_CLOEXEC);
	p = MAP_FAILED;
	ack.failed = fd < 0 ? "memfd_create" : "ftruncate";
	if (fd >= 0 && !ftruncate(fd, (FILE_PAGES + ANON_PAGES) * page)) {
		ack.failed = "mmap";
		p = mmap(NULL, ANON_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
			 FILE_PAGES * page);
	}
	ack.err = p == MAP_FAILED ? errno : 0;
	/* not even with a copy's pages under PR_SET_MEMORY_MERGE (KSM) */
	if (!ack.err)
		madvise(p, ANON_PAGES * page, MADV_UNMERGEABLE);
	for (; !ack.err && ack.anon < ANON_PAGES; ack.anon++)
		p[ack.anon * page] = ack.anon + 1;
	for (; !ack.err && ack.created < n - 1; ack.created++) {
		off = 2 * page * (ack.created < LOCK_VMAS ? ack.created : LOCK_VMAS);
		p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);
		if (p == MAP_FAILED) {
			ack.err = errno;
			ack.failed = "mmap";
			break;
		}
		store_same(p);
		if (ack.created < LOCK_VMAS && !mlock(p, page))
			ack.locked++;
	}
	/* fault in the vDSO so that the last VMAs have pages too */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (write(ack_fd, &ack, sizeof(ack)) == sizeof(ack))
		while (read(cmd_fd, &c, 1) > 0)
			;
	_exit(0);
}

/* intro_fork() with a command pipe and an answer pipe; @what names a failure. */
static pid_t fork_piped(int *cmd_fd, int *ack_fd, const char *what)
{
	int cmd[2], ack[2];
	pid_t pid = -1;

	if (!pipe2(cmd, O_CLOEXEC) && !pipe2(ack, O_CLOEXEC))
		pid = intro_fork();
	if (pid < 0 && errno == EAGAIN)
		ksft_exit_skip("%s\n", INTRO_NO_TASK);
	if (pid < 0)
		ksft_exit_fail_perror(what);
	close(pid ? cmd[0] : cmd[1]);
	close(pid ? ack[1] : ack[0]);
	*cmd_fd = pid ? cmd[1] : cmd[0];
	*ack_fd = pid ? ack[0] : ack[1];
	return pid;
}

struct text {
	char *p;
	size_t len, cap;
};

/* File @f of @pid into @t in read()s of @chunk bytes (0: all room), @step after each. */
static void read_text(pid_t pid, enum file_kind f, struct text *t, size_t chunk,
		      void (*step)(const struct text *t))
{
	char path[PATH_LEN];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file_names[f]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		ksft_exit_fail_perror(path);
	t->len = 0;
	do {
		if (t->cap - t->len <= (chunk ? chunk : READ_BUF_BYTES)) {
			t->cap = 2 * t->cap + 2 * READ_BUF_BYTES;
			t->p = realloc(t->p, t->cap);
		}
		if (!t->p)
			ksft_exit_skip("no memory to read %s (address space limit)\n", path);
		n = read(fd, t->p + t->len, chunk ? chunk : t->cap - t->len - 1);
		t->len += n > 0 ? (size_t)n : 0;
		t->p[t->len] = '\0';
		if (n > 0 && step)
			step(t);
	} while (n > 0);
	if (n < 0)
		ksft_exit_fail_perror(path);
	close(fd);
}

/* Does a maps line or smaps header start here? (Field names: upper case.) */
static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * The kB fields of smaps (fs/proc/task_mmu.c: __show_smap()) against the
 * rollup: K_EXACT whole pages, equal; K_PSS fixed-point sums truncated to
 * kB per entry, 0 <= rollup - sum < entries with Pss < Rss (a page mapped
 * twice, smaps_account()); K_SWAP_PSS likewise; K_PART rollup only,
 * against its Pss; K_VMA not in the rollup.
 */
enum field_kind { K_EXACT, K_PSS, K_SWAP_PSS, K_PART, K_VMA };

enum field_id {
	FI_SIZE, FI_KERNEL_PAGE_SIZE, FI_MMU_PAGE_SIZE, FI_RSS, FI_PSS, FI_PSS_DIRTY, FI_PSS_ANON,
	FI_PSS_FILE, FI_PSS_SHMEM, FI_SHARED_CLEAN, FI_SHARED_DIRTY, FI_PRIVATE_CLEAN,
	FI_PRIVATE_DIRTY, FI_REFERENCED, FI_ANONYMOUS, FI_KSM, FI_LAZY_FREE, FI_ANON_HUGE_PAGES,
	FI_SHMEM_PMD_MAPPED, FI_FILE_PMD_MAPPED, FI_SHARED_HUGETLB, FI_PRIVATE_HUGETLB, FI_SWAP,
	FI_SWAP_PSS, FI_LOCKED, NR_FIELDS
};

/* in the order of enum field_id, as smaps prints them */
static const struct field {
	const char *name;
	enum field_kind kind;
} fields[NR_FIELDS] = {
	{ "Size", K_VMA }, { "KernelPageSize", K_VMA }, { "MMUPageSize", K_VMA },
	{ "Rss", K_EXACT }, { "Pss", K_PSS }, { "Pss_Dirty", K_PSS }, { "Pss_Anon", K_PART },
	{ "Pss_File", K_PART }, { "Pss_Shmem", K_PART }, { "Shared_Clean", K_EXACT },
	{ "Shared_Dirty", K_EXACT }, { "Private_Clean", K_EXACT }, { "Private_Dirty", K_EXACT },
	{ "Referenced", K_EXACT }, { "Anonymous", K_EXACT }, { "KSM", K_EXACT },
	{ "LazyFree", K_EXACT }, { "AnonHugePages", K_EXACT }, { "ShmemPmdMapped", K_EXACT },
	{ "FilePmdMapped", K_EXACT }, { "Shared_Hugetlb", K_EXACT }, { "Private_Hugetlb", K_EXACT },
	{ "Swap", K_EXACT }, { "SwapPss", K_SWAP_PSS }, { "Locked", K_PSS },
};

struct kb_sums {
	long long kb[NR_FIELDS];
	bool seen[NR_FIELDS];
	long entries;		/* header lines */
	long frac_pss;		/* entries with Pss < Rss */
	long frac_swap_pss;	/* entries with SwapPss < Swap */
};

/* Line @p..@nl as a kB field, looked for from @hint on: its index and *@v, or -1. */
static int parse_field(const char *p, const char *nl, int hint, long long *v)
{
	const char *colon = memchr(p, ':', (size_t)(nl - p));
	size_t len = colon ? (size_t)(colon - p) : 0;
	int i, k;

	if (!colon || nl - p < 4 || memcmp(nl - 3, " kB", 3))
		return -1;
	*v = strtoll(colon + 1, NULL, 10);
	for (k = 0, i = hint; k < NR_FIELDS; k++, i = (i + 1) % NR_FIELDS)
		if (strlen(fields[i].name) == len && !memcmp(fields[i].name, p, len))
			return i;
	return -1;
}

/* Sums of smaps text @t into @s, those of the MEMFD_NAME entries into @own. */
static void parse_smaps(const struct text *t, struct kb_sums *s, struct kb_sums *own)
{
	long long rss = 0, swap = 0, v;
	const char *p = t->p, *end = t->p + t->len, *nl;
	struct kb_sums *o = NULL;
	int i, hint = 0;

	memset(s, 0, sizeof(*s));
	memset(own, 0, sizeof(*own));
	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (is_hex(*p)) {
			rss = 0;
			swap = 0;
			s->entries++;
			o = memmem(p, nl - p, MEMFD_NAME, strlen(MEMFD_NAME)) ? own : NULL;
			own->entries += !!o;
			continue;
		}
		i = parse_field(p, nl, hint, &v);
		if (i < 0)
			continue;
		hint = (i + 1) % NR_FIELDS;
		/* __show_smap() prints Rss before Pss, Swap before SwapPss */
		rss = i == FI_RSS ? v : rss;
		swap = i == FI_SWAP ? v : swap;
		s->frac_pss += i == FI_PSS && v < rss;
		s->frac_swap_pss += i == FI_SWAP_PSS && v < swap;
		s->kb[i] += v;
		s->seen[i] = true;
		if (!o)
			continue;
		o->kb[i] += v;
		o->frac_pss += i == FI_PSS && v < rss;
	}
}

/* Lines of maps text; *@disordered: ranges empty or below the last. */
static long parse_maps(const struct text *t, long *disordered)
{
	const char *p = t->p, *end = t->p + t->len, *nl;
	unsigned long long lo, hi, prev_hi = 0;
	long lines = 0;
	char *q;

	*disordered = 0;
	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		lo = strtoull(p, &q, 16);
		hi = *q == '-' ? strtoull(q + 1, NULL, 16) : 0;
		*disordered += (lines && lo < prev_hi) + (hi <= lo);
		prev_hi = hi;
		lines++;
	}
	return lines;
}

struct smaps_bench {
	struct intro_opts opts;
	struct intro_budget budget;
	uint64_t reserve_ns;	/* what the rounds leave: checks, teardown */
	struct target tgt;
	long page_size, page_kb;
	char *buf;		/* READ_BUF_BYTES + slots, for every timed read */
	char *at;		/* where this round reads to: buf + a slot */
	struct text text;
	int rounds, rounds_max;
	/* reader CPU by cost and round: the walk's syscalls, as many nulls */
	double cpu_ns[NR_COSTS][2 * ROUNDS], null_ns[NR_COSTS][2 * ROUNDS];
	bool preempted[NR_COSTS][2 * ROUNDS];	/* an involuntary switch in the walk */
	long calls[NR_COSTS];		/* read()s of the last walk */
	unsigned long (*runs)[2];	/* the target's mapped ranges, PMD-aligned */
	int nr_runs;
	int epoll_fd;		/* watching epoll_lines dups of a pipe */
	int epoll_info;		/* its fdinfo, open: the seq_file grown to fit */
	long epoll_lines;
	const char *no_epoll;	/* why there is no epoll reference */
	struct kb_sums rollup, sum, sum2, rollup2;	/* read in this order */
	struct kb_sums own, scratch;	/* own: MEMFD_NAME entries of sum */
	long disordered;	/* maps ranges out of order */
	int cons_tries;
	const char *cons_changed;	/* field that moved in the last set of reads */
};

static struct smaps_bench bench;

/* Append [@lo, @hi) to the pagemap runs, in pieces one read() covers. */
static void add_run(unsigned long lo, unsigned long hi)
{
	unsigned long max = READ_BUF_BYTES / 8 * bench.page_size, (*r)[2];

	while (lo < hi) {
		r = realloc(bench.runs, (bench.nr_runs + 1) * sizeof(*r));
		if (!r)
			ksft_exit_fail_msg("out of memory\n");
		bench.runs = r;
		r[bench.nr_runs][0] = lo;
		lo = hi - lo > max ? lo + max : hi;
		r[bench.nr_runs++][1] = lo;
	}
}

/*
 * The target's mappings from its maps text @t, as ranges rounded out to
 * PMD_BYTES and merged: pagemap_read() walks a PMD at a time (before 6.12
 * to its end whatever the read asked), so every kernel walks the same.
 */
static void pagemap_runs(const struct text *t)
{
	const char *p = t->p, *end = t->p + t->len, *nl;
	unsigned long lo, hi, run_lo = 0, run_hi = 0;

	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (sscanf(p, "%lx-%lx", &lo, &hi) != 2)
			continue;
		lo &= ~(PMD_BYTES - 1);
		hi = (hi + PMD_BYTES - 1) & ~(PMD_BYTES - 1);
		if (hi <= lo)	/* the top PMD of a 32-bit space */
			continue;
		if (run_hi && lo <= run_hi) {
			run_hi = hi > run_hi ? hi : run_hi;
			continue;
		}
		add_run(run_lo, run_hi);
		run_lo = lo;
		run_hi = hi;
	}
	add_run(run_lo, run_hi);
}

/*
 * The epoll reference: an epoll instance watching up to EPOLL_LINES dups
 * of a pipe, one line each in its fdinfo, RLIMIT_NOFILE allowing.
 */
static void epoll_setup(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	char path[PATH_LEN];
	struct rlimit rl;
	int pfd[2], fd;

	bench.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (bench.epoll_fd < 0 || pipe2(pfd, O_CLOEXEC)) {
		bench.no_epoll = "no epoll_create1() or pipe2() (CONFIG_EPOLL)";
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl))
		rl.rlim_cur = 0;
	while (bench.epoll_lines < EPOLL_LINES &&
	       bench.epoll_lines + FD_SPARE < (long)rl.rlim_cur) {
		fd = fcntl(pfd[0], F_DUPFD_CLOEXEC, 0);
		ev.data.u64 = bench.epoll_lines;
		if (fd < 0 || epoll_ctl(bench.epoll_fd, EPOLL_CTL_ADD, fd, &ev))
			break;
		bench.epoll_lines++;
	}
	if (bench.epoll_lines < EPOLL_LINES) {
		bench.no_epoll = "too few file descriptors for the epoll reference (RLIMIT_NOFILE)";
		return;
	}
	/*
	 * One seq_file show() prints every line: the first read() doubles the
	 * buffer until they fit (seq_read_iter()); later walks reuse it.
	 */
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bench.epoll_fd);
	bench.epoll_info = open(path, O_RDONLY | O_CLOEXEC);
	if (bench.epoll_info < 0 || read(bench.epoll_info, bench.buf, READ_BUF_BYTES) <= 0)
		ksft_exit_fail_perror(path);
}

/*
 * Read @i of walk @c: the @i-th pagemap run, the epoll fdinfo whole (a
 * read from offset 0 shows every line again), else the file's next read().
 * 0: the walk is over, for pagemap and epoll without a syscall.
 */
static ssize_t walk_read(enum cost_kind c, int fd, int i)
{
	if (c == C_EPOLL)
		return i ? 0 : pread(fd, bench.at, READ_BUF_BYTES, 0);
	if (c != C_PAGEMAP)
		return read(fd, bench.at, READ_BUF_BYTES);
	if (i >= bench.nr_runs)
		return 0;
	return pread(fd, bench.at,
		     fmin((bench.runs[i][1] - bench.runs[i][0]) / bench.page_size * 8,
			  READ_BUF_BYTES),
		     bench.runs[i][0] / bench.page_size * 8);
}

/* Involuntary context switches of this thread so far (-1: unknown). */
static long involuntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/*
 * Walk @c of round @r in read()s, CHUNK_CALLS syscalls timed then as many
 * null ones on the same file (the same moments of the machine): a read()
 * of 0 bytes (seq_read_iter() and pagemap_read() return at once). A walk
 * another task preempted paid for the caches it left: marked, not judged.
 * Return: 0, or -1 and errno.
 */
static int walk(enum cost_kind c, int r)
{
	long nivcsw = involuntary_switches();
	uint64_t t0, t1, t2;
	char path[PATH_LEN];
	int fd, i, n, k = 0;
	ssize_t ret = 1;

	snprintf(path, sizeof(path), "/proc/%d/%s", bench.tgt.pid,
		 c == C_PAGEMAP ? "pagemap" : file_names[c]);
	fd = c == C_EPOLL ? bench.epoll_info : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	bench.cpu_ns[c][r] = 0;
	bench.null_ns[c][r] = 0;
	bench.calls[c] = 0;
	while (ret > 0) {
		t0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (n = 0; n < CHUNK_CALLS && ret > 0; n++) {
			ret = walk_read(c, fd, k++);
			if (!ret && (c == C_PAGEMAP || c == C_EPOLL))
				break;
		}
		t1 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		for (i = 0; i < n && !read(fd, bench.at, 0); i++)
			;
		t2 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		ret = i < n ? -1 : ret;
		bench.cpu_ns[c][r] += t1 - t0;
		bench.null_ns[c][r] += t2 - t1;
		bench.calls[c] += n;
	}
	if (c != C_EPOLL)
		close(fd);
	bench.preempted[c][r] = involuntary_switches() != nivcsw;
	return ret;
}

/*
 * Rounds of one walk of each cost (round_order), each round to another of
 * SLOTS places: a copy_to_user() destination may alias kernel pages in a cache.
 */
static void measure_costs(void)
{
	int r, k, c;

	/* round -1 warms the caches, and round 0 overwrites it */
	for (r = -1; r < bench.rounds_max; r++) {
		if (r > 0 && intro_budget_left_ns(&bench.budget) < bench.reserve_ns)
			break;
		bench.at = bench.buf + ((r + SLOTS) % SLOTS) * (bench.page_size + 256);
		for (k = 0; k < NR_COSTS; k++) {
			c = round_order[r % 2 ? NR_COSTS - 1 - k : k];
			if (c == C_EPOLL && bench.no_epoll)
				continue;
			if (walk(c, r < 0 ? 0 : r))
				ksft_exit_fail_perror(cost_keys[c]);
		}
		bench.rounds = r + 1;
	}
}

/*
 * How far the rollup's PSS may exceed the smaps sum: a kB per entry with
 * Pss < Rss, but the entries of the page mapped created - LOCK_VMAS times
 * add up to one page at most.
 */
static long pss_bound_kb(const struct kb_sums *s)
{
	return s->frac_pss - bench.own.frac_pss + bench.page_kb;
}

/*
 * Field @i of pages the program made, in pages, as smaps_account() and
 * smaps_page_accumulate() (fs/proc/task_mmu.c) count them: @priv shmem
 * pages mapped once, of which @locked in VM_LOCKED VMAs; @shared mappings
 * of one shmem page, each with a PSS under 1 kB; @anon anonymous pages of
 * a private mapping; all present and dirty; @vmas entries. -1: Referenced,
 * not judged (reclaim clears young bits: folio_referenced()).
 */
static long expected_pages(int i, long priv, long locked, long shared, long anon, long vmas)
{
	switch (i) {
	case FI_SIZE: case FI_RSS:
		return priv + shared + anon;
	case FI_KERNEL_PAGE_SIZE: case FI_MMU_PAGE_SIZE:
		return vmas;
	case FI_PSS: case FI_PSS_DIRTY: case FI_PRIVATE_DIRTY:
		return priv + anon;
	case FI_PSS_ANON: case FI_ANONYMOUS:
		return anon;
	case FI_PSS_SHMEM:
		return priv;
	case FI_SHARED_DIRTY:
		return shared;
	case FI_LOCKED:
		return locked;
	case FI_REFERENCED:
		return -1;
	}
	return 0;
}

static void print_mismatch(const char *check, const char *field, long long rollup_kb,
			   long long sum_kb, long long slack_kb, long long drift_kb)
{
	ksft_print_msg("%s: field=%s rollup_kb=%lld sum_kb=%lld slack_kb=%lld drift_kb=%lld\n",
		       check, field, rollup_kb, sum_kb, slack_kb, drift_kb);
}

/*
 * Fields where rollups @a, @b disagree with the smaps sums @s between them:
 * page counts exactly, PSS within [min - bound - d, max + d +
 * PSS_HIDDEN_DRIFT_KB] (d: the rollups' drift). Each is printed.
 */
static int rollup_mismatches(const char *check, const struct kb_sums *a,
			     const struct kb_sums *b, const struct kb_sums *s)
{
	long long lo, hi, d, bound, parts;
	const struct kb_sums *r;
	int bad = 0, i, k;

	for (i = 0; i < NR_FIELDS; i++) {
		if (!a->seen[i] || fields[i].kind == K_VMA || fields[i].kind == K_PART)
			continue;
		lo = a->kb[i] < b->kb[i] ? a->kb[i] : b->kb[i];
		hi = a->kb[i] < b->kb[i] ? b->kb[i] : a->kb[i];
		d = hi - lo;
		bound = fields[i].kind == K_PSS ? pss_bound_kb(s) :
			fields[i].kind == K_SWAP_PSS ? s->frac_swap_pss : 0;
		if (s->seen[i] && s->kb[i] >= lo - bound - d &&
		    s->kb[i] <= hi + d + (fields[i].kind == K_EXACT ? 0 : PSS_HIDDEN_DRIFT_KB))
			continue;
		bad++;
		print_mismatch(check, fields[i].name, lo, s->kb[i], bound, d);
	}
	for (k = 0; k < 2; k++) {
		r = k ? b : a;
		if (!r->seen[FI_PSS] || !r->seen[FI_PSS_ANON])
			continue;
		for (parts = 0, i = 0; i < NR_FIELDS; i++)
			if (fields[i].kind == K_PART)
				parts += r->kb[i];
		d = r->kb[FI_PSS] - parts;
		if (d >= 0 && d <= PSS_PARTS_SLACK_KB)
			continue;
		bad++;
		print_mismatch(check, "Pss_parts", r->kb[FI_PSS], parts, PSS_PARTS_SLACK_KB, 0);
	}
	return bad + (a->entries != 1);
}

/* The first field @a and @b disagree on beyond drift, or NULL. */
static const char *moved(const struct kb_sums *a, const struct kb_sums *b)
{
	int i;

	for (i = 0; i < NR_FIELDS; i++)
		if (a->seen[i] != b->seen[i] || llabs(a->kb[i] - b->kb[i]) >
		    (fields[i].kind == K_EXACT ? 0 : PSS_DRIFT_MAX_KB))
			return fields[i].name;
	return NULL;
}

/*
 * rollup, smaps, smaps, rollup until each pair agrees: that set decides. A
 * page migrating during one read is a non-present entry there, counted as
 * shared (smaps_account()), so that read differs from its pair.
 */
static void check_consistency(void)
{
	struct kb_sums *sums[] = { &bench.rollup, &bench.sum, &bench.sum2, &bench.rollup2 };
	int i;

	do {
		bench.cons_tries++;
		for (i = 0; i < 4; i++) {
			read_text(bench.tgt.pid, i % 3 ? F_SMAPS : F_ROLLUP, &bench.text, 0, NULL);
			parse_smaps(&bench.text, sums[i], i == 1 ? &bench.own : &bench.scratch);
		}
		bench.cons_changed = moved(&bench.rollup, &bench.rollup2) ?:
				     moved(&bench.sum, &bench.sum2);
	} while (bench.cons_changed && bench.cons_tries < CONSISTENCY_TRIES);
}

/*
 * The churner: CHURN_PAIRS stable pages, each before a slot it maps,
 * unmaps, splits, faults and zaps while read in small read()s, each of
 * which resumes in m_start() beside a VMA that may have gone. Changing
 * reads run beside free churn; stepped ones unmap, between two read()s,
 * the slot the next read() resumes at.
 */
enum churn_op { CH_UNMAP, CH_MAP, CH_SPLIT, CH_FAULT, CH_ZAP };
enum churn_kind { CK_CHANGING, CK_STEPPED, NR_CHURN_KINDS };

struct churn_cmd {
	enum { CC_RUN, CC_STEP } op;
	unsigned long addr;	/* CC_STEP: the last record begun */
};

struct churn_ctl {
	unsigned long ops;	/* free changes made so far */
	unsigned long resume_unmaps;	/* steps that unmapped a slot */
	int stop;		/* parent: end the free churn */
	long locked;		/* stable pages mlock()ed: the first ones */
};

struct churn_file {
	int reads[NR_CHURN_KINDS];
	int reads_changed;	/* reads during which the churner changed */
	long missing;		/* stable mappings not reported, all reads */
	long torn;		/* lines overlapping a stable one, not it */
	long malformed;		/* lines or entries not as printed */
	long stable_bad;	/* rollup: Locked not the stable pages locked */
	unsigned long first_missing;
	char first_bad[LINE_LEN];
};

static struct churn_run {
	pid_t pid;		/* the churner */
	int cmd_fd, ack_fd;
	struct churn_ctl *ctl;	/* shared with the churner, read to the end */
	char *area;		/* first stable mapping */
	struct churn_file file[NR_FILES];
	double locked_kb[2];	/* rollup Locked: min (NAN: no read), max */
	long fields_bad;	/* smaps fields of locked stable pages wrong */
	char first_bad_field[LINE_LEN];	/* its evidence line */
	double seconds;
} churn;

/* A resuming reader trips on a slot gone: unmap and map drawn twice. */
static const enum churn_op churn_ops[] = {
	CH_UNMAP, CH_MAP, CH_UNMAP, CH_MAP, CH_SPLIT, CH_FAULT, CH_ZAP, CH_FAULT,
};

static void *map_slot(char *slot, long page)
{
	return mmap(slot, SLOT_PAGES * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

/*
 * One random change to a slot; errors are fine. A fault is a read() from
 * /dev/zero, EFAULT where a store would raise SIGSEGV.
 */
static long churn_once(char *area, long page, int zero, unsigned long long *x)
{
	char *slot;

	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	slot = area + ((*x % CHURN_PAIRS) * (1 + SLOT_PAGES) + 1) * page;
	switch (churn_ops[(*x >> 32) % ARRAY_SIZE(churn_ops)]) {
	case CH_UNMAP:
		return munmap(slot, SLOT_PAGES * page);
	case CH_MAP:
		return map_slot(slot, page) == MAP_FAILED;
	case CH_SPLIT:
		return mprotect(slot + page, page, PROT_READ);
	case CH_FAULT:
		return read(zero, slot, SLOT_PAGES * page);
	default:
		return madvise(slot, SLOT_PAGES * page, MADV_DONTNEED);
	}
}

/* Stable pages in a PROT_NONE reservation; then churn on command. */
static void churner_main(struct churn_ctl *ctl, int cmd_fd, int ack_fd)
{
	long page = sysconf(_SC_PAGESIZE), i, gone = -1;
	unsigned long long x = 0x9e3779b97f4a7c15ULL;	/* any non-zero */
	unsigned long slot, stride = (1 + SLOT_PAGES) * page;
	int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	struct churn_cmd cmd;
	char *area, *p, c = 0;

	area = mmap(NULL, CHURN_PAIRS * stride, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	for (i = 0; area != MAP_FAILED && i < CHURN_PAIRS; i++) {
		p = mmap(area + i * stride, page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			area = MAP_FAILED;
		else
			store_same(p);
		if (ctl->locked == i && p != MAP_FAILED && !mlock(p, page))
			ctl->locked++;
	}
	if (write(ack_fd, &area, sizeof(area)) != sizeof(area) || area == MAP_FAILED)
		_exit(0);
	while (read(cmd_fd, &cmd, sizeof(cmd)) == sizeof(cmd)) {
		/* a step: map back the last slot, unmap the one after addr */
		if (cmd.op == CC_STEP) {
			slot = (cmd.addr - (unsigned long)area) / stride;
			if (gone >= 0)
				map_slot(area + gone * stride + page, page);
			gone = cmd.addr >= (unsigned long)area &&
			       slot < CHURN_PAIRS ? (long)slot : -1;
			if (gone >= 0) {
				munmap(area + slot * stride + page, SLOT_PAGES * page);
				__atomic_add_fetch(&ctl->resume_unmaps, 1, __ATOMIC_RELAXED);
			}
		}
		while (cmd.op == CC_RUN && !__atomic_load_n(&ctl->stop, __ATOMIC_ACQUIRE)) {
			churn_once(area, page, zero, &x);
			__atomic_add_fetch(&ctl->ops, 1, __ATOMIC_RELAXED);
		}
		if (write(ack_fd, &c, 1) != 1)
			break;
	}
	_exit(0);
}

/* A maps line as show_vma_header_prefix() prints it, page aligned? */
static bool parse_header(const char *p, unsigned long *lo, unsigned long *hi)
{
	unsigned long mask = bench.page_size - 1;
	char perms[5];
	int n = 0;

	if (!is_hex(*p) ||
	    sscanf(p, "%lx-%lx %4[-rwxsp] %*x %*x:%*x %*u%n", lo, hi, perms, &n) < 3 || !n)
		return false;
	return (p[n] == ' ' || p[n] == '\n' || !p[n]) && strlen(perms) == 4 &&
	       *lo < *hi && !(*lo & mask) && !(*hi & mask);
}

/* "Name:   N kB", "Name:   N" or "VmFlags: ..." as __show_smap() prints. */
static bool field_line_ok(const char *p)
{
	int n = 0;

	if (!strncmp(p, "VmFlags:", 8))
		return true;
	if (sscanf(p, "%*[A-Za-z0-9_]: %*u%n", &n) < 0 || !n)
		return false;
	if (!strncmp(p + n, " kB", 3))
		n += 3;
	return p[n] == '\n' || !p[n];
}

/* One more in *@count; the first bad line kept, blanks as '_' (one token). */
static void count_bad(struct churn_file *cf, long *count, const char *p, const char *nl)
{
	char *q = cf->first_bad;

	(*count)++;
	if (*q)
		return;
	snprintf(q, sizeof(cf->first_bad), "%.*s", (int)(nl - p < 120 ? nl - p : 120), p);
	for (; *q; q++)
		*q = *q == ' ' || *q == '\t' ? '_' : *q;
}

/* Every line well formed, every stable mapping listed once, locked ones as mapped. */
static void scan_churn_read(const struct text *t, struct churn_file *cf, bool smaps)
{
	unsigned char seen[CHURN_PAIRS] = { 0 };
	unsigned long lo, hi, stride = (1 + SLOT_PAGES) * bench.page_size;
	unsigned long area = (unsigned long)churn.area, area_end = area + CHURN_PAIRS * stride;
	const char *p = t->p, *end = t->p + t->len, *nl;
	long first = -1, in_entry = -1, i, want;
	long long v, split = 0;
	bool locked = false;
	int k;

	for (; p < end; p = nl + 1) {
		nl = strchrnul(p, '\n');
		if (smaps && isupper((unsigned char)*p)) {
			if (!field_line_ok(p) || in_entry < 0)
				count_bad(cf, &cf->malformed, p, nl);
			if (in_entry >= 0)
				in_entry++;
			k = locked ? parse_field(p, nl, 0, &v) : -1;
			want = k < 0 ? -1 : expected_pages(k, 1, 1, 0, 0, 1) * bench.page_kb;
			/*
			 * A page migrating is a non-present entry: shared
			 * (smaps_account()), and clean once its dirty flag
			 * moved (__folio_migrate_mapping()). So Pss_Dirty is
			 * not judged, and Shared_Clean to Private_Dirty as a sum.
			 */
			if (k >= FI_SHARED_CLEAN && k <= FI_PRIVATE_DIRTY) {
				v += k == FI_SHARED_CLEAN ? 0 : split;
				split = v;
				want = k == FI_PRIVATE_DIRTY ? want : -1;
			}
			want = k == FI_PSS_DIRTY ? -1 : want;
			if (want >= 0 && v != want && !churn.fields_bad++)
				snprintf(churn.first_bad_field, LINE_LEN,
					 "changing_smaps_field=%s%s expected_kb=%ld read_kb=%lld",
					 k == FI_PRIVATE_DIRTY ? "Shared_Clean.." : "",
					 fields[k].name, want, v);
			continue;
		}
		/* each smaps entry has as many fields as the first (maps: 0) */
		cf->malformed += first >= 0 && in_entry != first;
		first = first < 0 ? in_entry : first;
		in_entry = 0;
		locked = false;
		if (!parse_header(p, &lo, &hi)) {
			count_bad(cf, &cf->malformed, p, nl);
			continue;
		}
		if (hi <= area || lo >= area_end)
			continue;
		i = (long)((lo - area) / stride);
		if (lo == area + i * stride && hi == lo + bench.page_size) {
			seen[i] = 1;
			locked = i < churn.ctl->locked;
		} else if (lo < area || lo == area + i * stride || hi > area + (i + 1) * stride) {
			count_bad(cf, &cf->torn, p, nl);
		}
	}
	cf->malformed += first >= 0 && in_entry != first;
	for (i = 0; i < CHURN_PAIRS; i++)
		if (!seen[i] && !cf->missing++)
			cf->first_missing = area + i * stride;
}

/* Have the churner unmap the slot after the last entry begun in @t. */
static void churner_step(const struct text *t)
{
	struct churn_cmd cmd = { .op = CC_STEP };
	const char *p = t->p + t->len;
	unsigned long lo, hi;
	char c;

	while (p > t->p) {
		do
			p--;
		while (p > t->p && p[-1] != '\n');
		if (is_hex(*p) && sscanf(p, "%lx-%lx", &lo, &hi) == 2) {
			cmd.addr = lo;
			break;
		}
	}
	if (write(churn.cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd) ||
	    read(churn.ack_fd, &c, 1) != 1)
		ksft_exit_fail_perror("step the churner");
}

static void churn_read(enum file_kind f, enum churn_kind k)
{
	struct churn_file *cf = &churn.file[f];
	unsigned long ops0 = __atomic_load_n(&churn.ctl->ops, __ATOMIC_RELAXED);
	struct kb_sums sums;
	long long kb;

	read_text(churn.pid, f, &bench.text, CHURN_READ_BYTES,
		  k == CK_STEPPED ? churner_step : NULL);
	cf->reads[k]++;
	cf->reads_changed += k == CK_CHANGING &&
		__atomic_load_n(&churn.ctl->ops, __ATOMIC_RELAXED) != ops0;
	if (f != F_ROLLUP) {
		scan_churn_read(&bench.text, cf, f == F_SMAPS);
		return;
	}
	parse_smaps(&bench.text, &sums, &bench.scratch);
	kb = sums.kb[FI_LOCKED];
	churn.locked_kb[0] = fmin(churn.locked_kb[0], kb);
	churn.locked_kb[1] = fmax(churn.locked_kb[1], kb);
	cf->stable_bad += kb != churn.ctl->locked * bench.page_kb;
}

/* Let the churner change slots freely (@run), or stop it and wait. */
static void churner_run(bool run)
{
	struct churn_cmd cmd = { .op = CC_RUN };
	uint64_t t0 = intro_now_ns();
	unsigned long ops0 = churn.ctl->ops;
	char c;

	__atomic_store_n(&churn.ctl->stop, !run, __ATOMIC_RELEASE);
	if (!run && read(churn.ack_fd, &c, 1) != 1)
		ksft_exit_fail_perror("stop the churner");
	if (run && write(churn.cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		ksft_exit_fail_perror("start the churner");
	while (run && intro_now_ns() - t0 < NSEC_PER_SEC &&
	       __atomic_load_n(&churn.ctl->ops, __ATOMIC_RELAXED) == ops0)
		sched_yield();
}

/* Changing and stepped reads of each file for CHURN_FRACTION of the budget. */
static void measure_churn(void)
{
	uint64_t t0, limit = (uint64_t)(CHURN_FRACTION * bench.budget.limit_ns);
	int f, i, cpus[2];

	churn.ctl = mmap(NULL, sizeof(*churn.ctl), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (churn.ctl == MAP_FAILED)
		ksft_exit_fail_perror("map the churner's control page");
	churn.pid = fork_piped(&churn.cmd_fd, &churn.ack_fd, "fork the churner");
	if (!churn.pid)
		churner_main(churn.ctl, churn.cmd_fd, churn.ack_fd);
	if (read(churn.ack_fd, &churn.area, sizeof(churn.area)) != sizeof(churn.area) ||
	    churn.area == MAP_FAILED)
		ksft_exit_skip("too few mappings allowed for the changing target\n");
	/* on a CPU of its own it changes slots during a read(), not between */
	if (intro_usable_cpus(cpus, 2) == 2)
		intro_pin(churn.pid, cpus[1]);
	churn.locked_kb[0] = NAN;
	t0 = intro_now_ns();
	for (i = 0; i < CHURN_MAX_READS; i++) {
		if (intro_budget_left_ns(&bench.budget) < bench.reserve_ns ||
		    (i >= CHURN_MIN_READS && intro_now_ns() - t0 >= limit))
			break;
		churner_run(true);
		for (f = 0; f < NR_FILES; f++)
			churn_read((f + i) % NR_FILES, CK_CHANGING);
		for (f = 1; f < CHURN_ROLLUP_READS; f++)
			churn_read(F_ROLLUP, CK_CHANGING);
		churner_run(false);
		for (f = 0; f < NR_FILES; f++)
			churn_read((f + i) % NR_FILES, CK_STEPPED);
	}
	churn.seconds = (double)(intro_now_ns() - t0) / NSEC_PER_SEC;
	intro_kill_wait(churn.pid);
}

/* Set by a check that skips: why it could not decide. */
static const char *skip_reason;

struct check {
	const char *name;
	int (*judge)(const struct check *ck);
	int cost, ref;		/* judge_cost(): the two costs; else the file */
	double lo, hi;
};

/* Items a walk of @c covers: the target's VMAs, or the epoll fdinfo's lines. */
static long items(int c)
{
	return c == C_EPOLL ? bench.epoll_lines : bench.tgt.vmas;
}

/*
 * The median per-round ratio of the two net costs per item within [lo, hi],
 * over the rounds in which no other task preempted either walk.
 */
static int judge_cost(const struct check *ck)
{
	double v[2 * ROUNDS], net[2][2 * ROUNDS], cpu[2 * ROUNDS], null_ns[2 * ROUNDS];
	double median, ref_share, net_ns[2];
	const int c[2] = { ck->cost, ck->ref };
	char line[LINE_LEN] = "";
	int i, k, n = 0, result;
	size_t len;

	if (bench.tgt.vmas < COST_MIN_VMAS) {
		skip_reason = "too few mappings for a cost measurement (vm.max_map_count)";
		intro_figures(ck->name, "vmas=%ld min_vmas=%d", bench.tgt.vmas, COST_MIN_VMAS);
		return KSFT_SKIP;
	}
	if (ck->ref == C_EPOLL && bench.no_epoll) {
		skip_reason = bench.no_epoll;
		intro_figures(ck->name, "epoll_lines=%ld want_epoll_lines=%d",
			      bench.epoll_lines, EPOLL_LINES);
		return KSFT_SKIP;
	}
	for (i = 0; i < bench.rounds; i++) {
		if (bench.preempted[c[0]][i] || bench.preempted[c[1]][i])
			continue;
		for (k = 0; k < 2; k++)
			net[k][n] = (bench.cpu_ns[c[k]][i] - bench.null_ns[c[k]][i]) / items(c[k]);
		cpu[n] = bench.cpu_ns[ck->ref][i];
		null_ns[n] = bench.null_ns[ck->ref][i] / bench.calls[ck->ref];
		v[n] = net[0][n] / net[1][n];
		len = strlen(line);
		snprintf(line + len, sizeof(line) - len, "%s%.2f", n ? "," : "", v[n]);
		n++;
	}
	if (n < ROUNDS_MIN) {
		skip_reason = bench.rounds < ROUNDS_MIN ?
			      "time budget too small for enough rounds" :
			      "CPU contended: too few rounds no other task preempted";
		intro_figures(ck->name, "rounds=%d unpreempted_rounds=%d min_rounds=%d",
			      bench.rounds, n, ROUNDS_MIN);
		return KSFT_SKIP;
	}
	for (k = 0; k < 2; k++)
		net_ns[k] = intro_median(net[k], n, false);
	ref_share = net_ns[1] * items(ck->ref) / intro_median(cpu, n, false);
	intro_sort(v, n);
	median = intro_median(v, n, true);
	if (!(ref_share >= REF_NET_MIN))
		skip_reason = "reference walk is mostly syscall entry and exit";
	for (k = 0; k < 2; k++)
		ksft_print_msg("%s: %s_net_us_per_%s=%.3f %s=%ld %s_calls=%ld\n", ck->name,
			       cost_keys[c[k]], c[k] == C_EPOLL ? "line" : "vma",
			       net_ns[k] / NSEC_PER_USEC, c[k] == C_EPOLL ? "lines" : "vmas",
			       items(c[k]), cost_keys[c[k]], bench.calls[c[k]]);
	intro_figures(ck->name,
		      "ratio=%.3f min_ratio=%.2f max_ratio=%.2f bound_lo_ratio=%.2f bound_hi_ratio=%.2f rounds=%d of=%d null_call_us=%.3f ref_net_share=%.2f",
		      median, v[0], v[n - 1], ck->lo, ck->hi, n, bench.rounds,
		      intro_median(null_ns, n, false) / NSEC_PER_USEC, ref_share);
	result = skip_reason ? KSFT_SKIP :
		 median >= ck->lo && median <= ck->hi ? KSFT_PASS : KSFT_FAIL;
	if (result == KSFT_FAIL || bench.opts.verbose)
		ksft_print_msg("%s: per_round_ratio=%s\n", ck->name, line);
	return result;
}

static int check_rollup_sum(const struct check *ck)
{
	const struct kb_sums *r = &bench.rollup, *s = &bench.sum;
	int bad = 0;

	if (bench.cons_changed) {
		skip_reason = "target changed during every read";
		ksft_print_msg("%s: last_moved_field=%s\n", ck->name, bench.cons_changed);
	} else {
		bad = rollup_mismatches(ck->name, r, &bench.rollup2, s);
	}
	ksft_print_msg("%s: rss_rollup_kb=%lld rss_sum_kb=%lld entries=%ld tries=%d\n",
		       ck->name, r->kb[FI_RSS], s->kb[FI_RSS], s->entries, bench.cons_tries);
	ksft_print_msg("%s: locked_rollup_kb=%lld locked_sum_kb=%lld\n",
		       ck->name, r->kb[FI_LOCKED], s->kb[FI_LOCKED]);
	intro_figures(ck->name,
		      "mismatched_fields=%d rss_diff_kb=%lld pss_diff_kb=%lld pss_bound_kb=%ld",
		      bad, r->kb[FI_RSS] - s->kb[FI_RSS], r->kb[FI_PSS] - s->kb[FI_PSS],
		      pss_bound_kb(s));
	return skip_reason ? KSFT_SKIP : bad ? KSFT_FAIL : KSFT_PASS;
}

static int check_vma_count(const struct check *ck)
{
	const struct target *t = &bench.tgt;
	long want = t->ack.baseline + t->ack.created + 1;

	ksft_print_msg("%s: smaps_entries=%ld baseline_vmas=%ld disordered=%ld\n",
		       ck->name, bench.sum.entries, t->ack.baseline, bench.disordered);
	intro_figures(ck->name, "lines=%ld expected=%ld", t->vmas, want);
	return t->vmas != want || bench.sum.entries != t->vmas || bench.disordered ?
	       KSFT_FAIL : KSFT_PASS;
}

/* Too few reads or no change skip; a fault seen fails even then. */
static int churn_verdict(const char *check, const struct churn_file *cf, long faults)
{
	if (cf->reads[CK_CHANGING] < CHURN_MIN_READS || cf->reads[CK_STEPPED] < CHURN_MIN_READS)
		skip_reason = "time budget too small for reads under change";
	else if (!cf->reads_changed && !churn.ctl->resume_unmaps)
		skip_reason = "target made no change during the reads";
	ksft_print_msg("%s: reads=%d reads_changed=%d stepped_reads=%d\n",
		       check, cf->reads[CK_CHANGING], cf->reads_changed, cf->reads[CK_STEPPED]);
	return faults ? KSFT_FAIL : skip_reason ? KSFT_SKIP : KSFT_PASS;
}

static int judge_complete(const struct check *ck)
{
	struct churn_file *cf = &churn.file[ck->cost];
	int result = churn_verdict(ck->name, cf, cf->missing + cf->torn + cf->malformed);

	ksft_print_msg("%s: churn_ops=%lu resume_unmaps=%lu churn_s=%.2f read_bytes=%d\n",
		       ck->name, churn.ctl->ops, churn.ctl->resume_unmaps, churn.seconds,
		       CHURN_READ_BYTES);
	intro_figures(ck->name, "missing_vmas=%ld torn_lines=%ld malformed=%ld stable_vmas=%d",
		      cf->missing, cf->torn, cf->malformed, CHURN_PAIRS);
	if (cf->missing)
		ksft_print_msg("%s: first_missing_start=%#lx\n", ck->name, cf->first_missing);
	if (cf->first_bad[0])
		ksft_print_msg("%s: first_bad_line=%s\n", ck->name, cf->first_bad);
	return result;
}

/*
 * The rollup's Locked is exactly the churner's locked stable pages, unless
 * it skips or repeats a VMA after dropping mmap_lock (before 6d065f507d82).
 */
static int check_changing_rollup(const struct check *ck)
{
	struct churn_file *cf = &churn.file[F_ROLLUP];
	long want = churn.ctl->locked * bench.page_kb;
	int result;

	if (!churn.ctl->locked)
		skip_reason = "no page could be locked (RLIMIT_MEMLOCK)";
	result = churn_verdict(ck->name, cf, cf->stable_bad);
	intro_figures(ck->name,
		      "locked_wrong_reads=%ld min_locked_kb=%.0f max_locked_kb=%.0f locked_kb=%ld%s",
		      cf->stable_bad, churn.locked_kb[0], churn.locked_kb[1], want,
		      churn.locked_kb[0] > 0 && churn.locked_kb[0] < want ?
		      " fix_commit=6d065f507d82" : "");
	return result;
}

/*
 * The smaps fields of the target's own mappings, summed, and of each locked
 * stable page in the changing reads: exactly what expected_pages() says.
 */
static int check_mapped_pages(const struct check *ck)
{
	const struct target_ack *a = &bench.tgt.ack;
	const struct kb_sums *o = &bench.own;
	long want, bad = 0, swapped = 0;
	int i;

	for (i = 0; !bench.cons_changed && i < NR_FIELDS; i++) {
		want = expected_pages(i, LOCK_VMAS, a->locked, a->created - LOCK_VMAS,
				      a->anon, a->created + 1) * bench.page_kb;
		if (want < 0 || !bench.sum.seen[i] || o->kb[i] == want)
			continue;
		/* a page swapped out moves from Rss..Anonymous to Swap, SwapPss */
		if (o->kb[FI_SWAP] && ((i >= FI_RSS && i <= FI_ANONYMOUS) ||
				       i == FI_SWAP || i == FI_SWAP_PSS)) {
			swapped++;
			continue;
		}
		bad++;
		ksft_print_msg("%s: field=%s expected_kb=%ld read_kb=%lld\n",
			       ck->name, fields[i].name, want, o->kb[i]);
	}
	if (churn.fields_bad)
		ksft_print_msg("%s: %s\n", ck->name, churn.first_bad_field);
	intro_figures(ck->name,
		      "wrong_fields=%ld entries=%ld expected_entries=%ld changing_wrong_fields=%ld swap_kb=%lld",
		      bad, o->entries, a->created + 1, churn.fields_bad, o->kb[FI_SWAP]);
	bad += (!bench.cons_changed && o->entries != a->created + 1) + churn.fields_bad;
	if (bench.cons_changed)
		skip_reason = "target changed during every read";
	else if (swapped)
		skip_reason = "the target's pages were swapped out";
	return bad ? KSFT_FAIL : skip_reason ? KSFT_SKIP : KSFT_PASS;
}

static const struct check checks[] = {
	{ "maps_cost", judge_cost, C_MAPS, C_EPOLL, MAPS_MIN_RATIO, MAPS_MAX_RATIO },
	{ "smaps_vs_maps_cost", judge_cost, C_SMAPS, C_MAPS, SMAPS_MIN_RATIO, SMAPS_MAX_RATIO },
	{ "smaps_rollup_cost", judge_cost, C_ROLLUP, C_PAGEMAP,
	  ROLLUP_MIN_RATIO, ROLLUP_MAX_RATIO },
	{ .name = "rollup_equals_smaps_sum", .judge = check_rollup_sum },
	{ .name = "vma_count", .judge = check_vma_count },
	{ .name = "mapped_pages_exact", .judge = check_mapped_pages },
	{ .name = "changing_maps_complete", .judge = judge_complete, .cost = F_MAPS },
	{ .name = "changing_smaps_complete", .judge = judge_complete, .cost = F_SMAPS },
	{ .name = "changing_rollup_rss", .judge = check_changing_rollup },
};

static const struct intro_prog prog = {
	.usage =
	"smaps_perf: the cost of /proc/PID/maps, smaps and smaps_rollup per mapping\n"
	"(VMA), and smaps_rollup against the smaps sums.\n"
	"\n"
	"A target maps a memfd 4096 times; each cost is the reader's CPU per VMA\n"
	"against a reference of the same kind of work by another path, timed next\n"
	"to each other in rounds (median of the per-round ratios), each less its\n"
	"syscalls at the cost of a null read() (null_call_us): maps against the\n"
	"lines of an epoll fdinfo (text formatting), smaps_rollup against pagemap\n"
	"over the same VMAs (a page walk). A second target changes while read.\n"
	"\n"
	"Checks:\n"
	"  maps_cost                maps per VMA / epoll fdinfo per line in 0.05..1.45\n"
	"  smaps_vs_maps_cost       smaps / maps in 1.5..8.5\n"
	"  smaps_rollup_cost        smaps_rollup / pagemap in 0.1..1.45\n"
	"  rollup_equals_smaps_sum  smaps_rollup fields equal the smaps sums (PSS\n"
	"                           within a kB per entry that splits a page)\n"
	"  vma_count                maps lists every mapping once, in order; smaps\n"
	"                           has as many entries\n"
	"  mapped_pages_exact       smaps fields of the target's memfd mappings (and\n"
	"                           of locked pages in changing reads) as mapped\n"
	"  changing_maps_complete   maps of a target that maps, unmaps, splits and\n"
	"                           faults while read in 1 kB read()s: every mapping\n"
	"                           it never touches is listed, no line malformed\n"
	"  changing_smaps_complete  the same for smaps\n"
	"  changing_rollup_rss      its smaps_rollup counts the untouched mappings once\n"
	"\n"
	"Needs: CONFIG_PROC_PAGE_MONITOR, CONFIG_TMPFS (memfd_create), CONFIG_EPOLL\n"
	"and an RLIMIT_NOFILE of 992 for maps_cost; no privilege. Uses up to 4096\n"
	"mappings within vm.max_map_count (768 at least, 3000 for the cost checks;\n"
	"a few MiB). At most 20 s x scale.\n",
	.min_scale = 0.25,
	.max_scale = 1.5,	/* a 30 s budget ends inside a 45 s timeout */
};

int main(int argc, char **argv)
{
	struct target *t = &bench.tgt;
	char path[PATH_LEN];
	long room;
	int result;
	size_t i;

	intro_parse_opts(argc, argv, &prog, &bench.opts);
	intro_budget_start(&bench.budget, BUDGET_S * bench.opts.scale);
	bench.reserve_ns = (uint64_t)(RESERVE_FRACTION * bench.budget.limit_ns);
	ksft_print_header();
	intro_print_env(&bench.opts);
	if (access("/proc/self/smaps_rollup", R_OK))
		ksft_exit_skip("no /proc/PID/smaps_rollup (CONFIG_PROC_PAGE_MONITOR)\n");
	if (intro_read_file("/proc/sys/vm/max_map_count", path, sizeof(path)) <= 0)
		ksft_exit_skip("vm.max_map_count not readable\n");
	room = strtol(path, NULL, 10) - MAP_COUNT_MARGIN;
	bench.page_size = sysconf(_SC_PAGESIZE);
	bench.page_kb = bench.page_size / 1024;
	bench.rounds_max = (int)fmax(lround(ROUNDS * bench.opts.scale), ROUNDS_MIN);
	bench.buf = malloc(READ_BUF_BYTES + SLOTS * (bench.page_size + 256));
	if (!bench.buf)
		ksft_exit_skip("no memory for the read buffer (address space limit)\n");
	t->pid = fork_piped(&t->cmd_fd, &t->ack_fd, "start the target");
	if (!t->pid)
		target_main(room < TARGET_VMAS ? room : TARGET_VMAS, t->cmd_fd, t->ack_fd);
	if (read(t->ack_fd, &t->ack, sizeof(t->ack)) != sizeof(t->ack))
		ksft_exit_fail_perror("start the target");
	if (t->ack.err)
		ksft_print_msg("target: failed=%s errno=%d\n", t->ack.failed, t->ack.err);
	read_text(t->pid, F_MAPS, &bench.text, 0, NULL);
	t->vmas = parse_maps(&bench.text, &bench.disordered);
	pagemap_runs(&bench.text);
	ksft_print_msg("target: vmas=%ld baseline_vmas=%ld shared_maps=%ld\n",
		       t->vmas, t->ack.baseline, t->ack.created);
	ksft_print_msg("target: locked=%ld anon_pages=%ld\n", t->ack.locked, t->ack.anon);
	/* no memfd_create(), or no room: a precondition; any other refusal fails */
	if (t->ack.created < MIN_VMAS) {
		if (t->ack.err == ENOSYS)
			ksft_exit_skip("no %s() (CONFIG_TMPFS)\n", t->ack.failed);
		errno = t->ack.err;
		if (errno && errno != ENOMEM && errno != EMFILE && errno != ENFILE &&
		    errno != ENOSPC)
			ksft_exit_fail_perror(t->ack.failed);
		ksft_exit_skip("too few mappings allowed (%s)\n",
			       errno ? strerror(errno) : "vm.max_map_count");
	}
	check_consistency();
	measure_churn();
	if (t->vmas >= COST_MIN_VMAS) {
		epoll_setup();
		measure_costs();
	}

	ksft_set_plan(ARRAY_SIZE(checks));
	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		skip_reason = NULL;
		result = checks[i].judge(&checks[i]);
		intro_report(checks[i].name, result, skip_reason);
	}
	intro_kill_wait(t->pid);
	ksft_print_msg("run: spent_s=%.2f budget_s=%.1f\n", intro_budget_spent_s(&bench.budget),
		       BUDGET_S * bench.opts.scale);
	ksft_finished();
}
