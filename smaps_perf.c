// SPDX-License-Identifier: GPL-2.0
/*
 * smaps_perf - what /proc/PID/smaps costs per mapping, measured against
 * /proc/PID/maps and /proc/PID/smaps_rollup of the same target, and whether
 * smaps_rollup adds up to the sum of the smaps entries.
 *
 * Regression guarded: linux-mm, August 2016, "[PACTH v2 0/3] Implement
 * /proc/<pid>/totmaps" (Robert Foss; Jann Horn's and Michal Hocko's
 * measurements). A monitor summing Rss/Pss over smaps of a process holding
 * vm.max_map_count one-page MAP_SHARED|MAP_POPULATE mappings spent its time
 * in the kernel, about half of it in format_decode()/vsnprintf(). What was
 * merged: smaps_rollup (493b0e9d945f, v4.14) and the smaps number printer
 * seq_put_decimal_ull_width() (d1be35cb6f96, v4.17). Related: smaps_rollup
 * miscounting Locked (2019) and readers stalling on mmap_lock (ff9f47f6f00c).
 *
 * Invariants, on a target blocked in read() that holds N one-page shared
 * anonymous mappings (each its own shmem object, so none can merge):
 *  - reading smaps costs a bounded multiple of reading maps, and smaps_rollup
 *    a fraction of smaps, per VMA (reader CPU time, same run, interleaved);
 *  - the per-VMA cost does not grow with N (N against about N/4);
 *  - every page-count field of smaps_rollup equals the sum over the smaps
 *    entries; the PSS fields agree within the kB truncation of each entry;
 *  - maps lists baseline + created VMAs, in order, once each, and smaps
 *    lists the same number of entries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "introspect_util.h"

/* A diagnostic "# topic: key=value ..." that belongs to no single check. */
static void note(const char *topic, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", topic);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/*
 * ---- Bounds --------------------------------------------------------------
 * Measured on this project's VM: Linux 6.18 guest (KVM), 2 vCPUs, HZ=250,
 * tick accounting, shared (kernel builds and the other programs running:
 * load 1..9). A "run median" is the median over one run's 9 interleaved
 * repetitions of the per-repetition ratio of reader CPU time per VMA
 * (CLOCK_THREAD_CPUTIME_ID); large targets of 10k..65k VMAs (time-sized,
 * median 48k) and a quarter of that. 66 runs under the measurement lock,
 * 32 without it. Also 13 runs in qemu TCG (Debian 6.1 kernel, -smp 2,
 * 512 MiB..2 GiB, 4.1k..12.8k VMAs): 3..15x slower, formatting more so.
 *
 * smaps/maps. Run medians: locked 3.66..4.84 (median 4.21), unlocked
 * 3.84..5.79, TCG 4.69..6.59; single repetitions 2.9..7.4 (TCG 2.8..11.5).
 * The lab's healthy 6.12 boots in TCG (88): 5.05..7.98; 74 soak runs here
 * (idle, loaded, throttled): at most 4.79.
 * A show_smap() doing 20 us more per VMA (udelay(20), the lab's mutant)
 * costs 1.2 x 20 us more per VMA (the records shown twice, see read_cost()):
 * (6.8 + 24) / 1.6 ~ 19 here. In TCG its 24 us are real time, not
 * emulated, against 22..100 us of emulated smaps: 9.18..13.74 in 9 lab
 * boots, ~7..9 estimated when the host is loaded (a miss, not a guess).
 * Bound 9: 1.13x the largest healthy TCG figure, 1.9x the largest native
 * one, 0.98x the smallest mutant one (a boot on a slow host: under TCG
 * this check cannot promise more). It was 10, which the mutant cleared by
 * 0.4% and 1.7% in two of its first four boots. The revert of the number
 * printer speed-up (d1be35cb6f96) reads 9.4..10.2 in TCG (8 boots), above
 * the bound too; natively it was not measured.
 */
#define SMAPS_MAPS_MAX_RATIO	9.0

/*
 * smaps/smaps_rollup: rollup must stay several times cheaper than smaps.
 * Run medians: locked 4.54..8.33 (median 6.99), unlocked 5.50..7.79, TCG
 * on Debian 6.1 8.16..11.92, TCG on the lab's 6.12 10.96..15.30 and 27.5
 * and 33.3 on two healthy boots. Lower bound 2: a rollup costing half of
 * smaps has lost its reason to exist (it walks the same page tables but
 * prints once); 2.3x below the smallest run median. There is no upper
 * bound: an earlier 16 failed those two healthy TCG boots, above the
 * 20 us-per-VMA mutant's 27.9 there; extra smaps-only cost is
 * smaps_vs_maps_cost's to catch (13.5 in TCG, ~19 here).
 */
#define SMAPS_ROLLUP_MIN_RATIO	2.0

/*
 * Per-VMA CPU at N over per-VMA CPU at about N/4, judged on maps and smaps
 * (the files read in many read() calls, each re-entering m_start()). Run
 * medians: locked 0.92..1.10, unlocked 0.93..1.08, TCG 0.77..1.21
 * (rollup, printed only: 0.76..1.22, TCG 0.68..1.69: a 1k-VMA rollup read
 * is ~5 ms in TCG and host preemption dominates it). Bound 2: 1.65x the
 * largest; a reader re-walking the VMAs from the start on each read()
 * (quadratic) tends to 4 at a 4x size ratio.
 */
#define SCALING_MAX_RATIO	2.0

/*
 * Pss_Anon + Pss_File + Pss_Shmem against Pss in smaps_rollup: each of the
 * four is its own fixed-point sum shifted down to kB, and every page adds to
 * Pss and to exactly one part (smaps_page_accumulate()), so the three
 * truncated parts are 0..2 kB below the truncated total. Exact, no margin.
 */
#define PSS_PARTS_SLACK_KB	2

/*
 * How far a PSS field of smaps_rollup may move between the two reads that
 * bracket the smaps read and still count as one state: the target's file
 * pages (libc, ld.so) are mapped by other processes too, so each exec or
 * exit on the machine moves their Pss (4096/mapcount bytes a page).
 * Measured over 60 triples of a 16k-VMA target while a shell exec()ed
 * /bin/true in a loop: 57 moved 0..2 kB, the others 7 and 8 kB. A triple
 * that moved more is retried; a page-count field (Rss, ...) must not move.
 */
#define PSS_DRIFT_MAX_KB	4

/* ---- Sizing and time ----------------------------------------------------- */

#define BUDGET_S		20.0	/* whole run, times --scale */
#define PLAN_FRACTION		0.4	/* plan the work to fill this of it */
#define RESERVE_FRACTION	0.15	/* kept for the checks and teardown */
#define VMAS_PER_SCALE		65536	/* largest target at --scale 1 */
#define LARGE_MIN_VMAS		4096	/* below: cost checks skip */
#define SIZE_RATIO		4	/* large target / small target */
#define CAL_VMAS		1024	/* first mappings of the small target */
#define REPS_WANTED		9	/* times --scale, at least REPS_MIN */
#define REPS_MIN		5
#define MAP_COUNT_MARGIN_DIV	100	/* keep 1% + 64 of max_map_count */
#define MAP_COUNT_MARGIN_ADD	64
/* MemAvailable drop per mapping: measured 5.9..6.3 KiB; 2x margin */
#define MEM_PER_VMA_BYTES	12288
#define MEM_AVAIL_DIV		4	/* use at most 1/4 of MemAvailable */
#define LOCK_VMAS		16	/* mlock()ed mappings, within the rlimit */
#define READ_BUF_BYTES		(1024 * 1024)
#define CONSISTENCY_TRIES	12	/* rollup/smaps/rollup triples, at most */

enum file_kind { F_MAPS, F_SMAPS, F_ROLLUP, NR_FILES };

static const char * const file_names[NR_FILES] = {
	"maps", "smaps", "smaps_rollup",
};

/* ---- The target ------------------------------------------------------------ */

struct target {
	pid_t pid;
	int cmd_fd;		/* parent writes a struct target_cmd */
	int ack_fd;		/* child answers a struct target_ack */
	long baseline;		/* VMAs in maps before it mapped anything */
	long created;		/* one-page mappings it holds */
	long locked;		/* of which mlock()ed */
	long vmas;		/* lines in maps after the last grow */
};

struct target_cmd {
	long total;		/* hold this many mappings; 0: exit */
};

struct target_ack {
	long created;
	long locked;
	int err;
};

/*
 * How many mappings to mlock(): LOCK_VMAS pages, fewer if RLIMIT_MEMLOCK
 * is smaller (root has CAP_IPC_LOCK, but stay within the limit anyway).
 */
static long lockable_pages(long page)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return 0;
	if (rl.rlim_cur == RLIM_INFINITY)
		return LOCK_VMAS;
	return rl.rlim_cur / page < LOCK_VMAS ? rl.rlim_cur / page : LOCK_VMAS;
}

/*
 * Write back the byte at @p: a real store (an atomic one, which the
 * compiler keeps), so a copy-on-write page is copied.
 */
static void store_same(char *p)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
}

/*
 * Give the child its own copy of every private writable page it shares
 * with the parent since fork(), so that the parent's later writes (COW
 * breaks) cannot change the child's Shared_/Private_ and PSS figures
 * while they are read. Raw read() into static storage: no malloc.
 */
static void unshare_private_pages(long page)
{
	static char maps[1 << 16];
	unsigned long lo, hi, a;
	char *p, *q, *nl;
	ssize_t n, len = 0;
	int fd;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0)
		len += n;
	close(fd);
	maps[len] = '\0';
	for (p = maps; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
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

static int target_start(struct target *t)
{
	struct target_ack first;
	int cmd[2], ack[2];

	memset(t, 0, sizeof(*t));
	t->pid = -1;
	if (pipe2(cmd, O_CLOEXEC))
		return -1;
	if (pipe2(ack, O_CLOEXEC)) {
		close(cmd[0]);
		close(cmd[1]);
		return -1;
	}
	t->pid = intro_fork();
	if (!t->pid) {
		close(cmd[1]);
		close(ack[0]);
		target_main(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd_fd = cmd[1];
	t->ack_fd = ack[0];
	if (t->pid < 0) {
		close(t->cmd_fd);
		close(t->ack_fd);
		return -1;
	}
	/* the first answer: its private pages are its own now */
	if (read(t->ack_fd, &first, sizeof(first)) != sizeof(first)) {
		target_stop(t);
		errno = EPIPE;
		return -1;
	}
	return 0;
}

static void target_stop(struct target *t)
{
	if (t->pid <= 0)
		return;
	close(t->cmd_fd);
	close(t->ack_fd);
	intro_kill_wait(t->pid);
	t->pid = -1;
}

/* Make @t hold @total mappings; 0, or -1 if it could not (errno set). */
static int target_grow(struct target *t, long total)
{
	struct target_cmd cmd = { .total = total };
	struct target_ack ack;

	if (write(t->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd))
		return -1;
	if (read(t->ack_fd, &ack, sizeof(ack)) != sizeof(ack)) {
		errno = EPIPE;
		return -1;
	}
	t->created = ack.created;
	t->locked = ack.locked;
	if (ack.created < total) {
		errno = ack.err;
		return -1;
	}
	return 0;
}

/* ---- Reading /proc ---------------------------------------------------------- */

struct read_cost {
	unsigned long long cpu_ns;	/* CLOCK_THREAD_CPUTIME_ID of the reader */
	unsigned long long wall_ns;
	size_t bytes;
};

/*
 * Read @path to the end with @len-byte read()s into @buf, open and close
 * included. seq_file fills at most its own buffer (one page, more only for
 * a record larger than that) per read(), whatever @len is, so a 1 MiB
 * buffer makes no difference to the kernel's work. The record that does not
 * fit is shown again by the next read() (seq_read_iter()): smaps records
 * are ~790 bytes, five fit in a page, so show_smap() runs ~1.2 times per
 * VMA. Return 0, or -1 with errno set.
 */
static int read_cost(const char *path, char *buf, size_t len,
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

/* Read all of @path into @t (kept and grown between calls); 0 or -1. */
static int slurp(const char *path, struct text *t)
{
	ssize_t n;
	char *p;
	int fd;

	t->len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do {
		if (t->cap - t->len < READ_BUF_BYTES) {
			p = realloc(t->p, t->cap * 2 + 2 * READ_BUF_BYTES);
			if (!p) {
				close(fd);
				errno = ENOMEM;
				return -1;
			}
			t->p = p;
			t->cap = t->cap * 2 + 2 * READ_BUF_BYTES;
		}
		n = read(fd, t->p + t->len, t->cap - t->len - 1);
		if (n > 0)
			t->len += (size_t)n;
	} while (n > 0);
	close(fd);
	if (n < 0)
		return -1;
	t->p[t->len] = '\0';
	return 0;
}

static void proc_path(char *buf, size_t len, pid_t pid, enum file_kind f)
{
	snprintf(buf, len, "/proc/%d/%s", (int)pid, file_names[f]);
}

/* ---- Parsing ---------------------------------------------------------------- */

/*
 * The "Name: value kB" fields of smaps and smaps_rollup (6.12:
 * fs/proc/task_mmu.c __show_smap(), show_smap()) and how rollup relates
 * to the sum over the smaps entries:
 *  K_EXACT: byte counts of whole pages (mem_size_stats: resident, ...,
 *           swap), printed >> 10: each entry is exact, so the sums agree.
 *  K_PSS:   fixed-point sums (pss, pss_dirty, pss_locked, << PSS_SHIFT)
 *           printed as (x >> PSS_SHIFT) >> 10. The rollup adds the same
 *           fixed-point per-page terms as the entries and truncates once;
 *           each entry truncates its own. So 0 <= rollup - sum < number of
 *           entries whose value has a fraction of a kB. A term is short of
 *           a whole page only for a page mapped >= 2 times
 *           (smaps_account(): PAGE_SIZE / mapcount), and such an entry
 *           shows Pss < Rss; an entry with Pss == Rss is exact. Bound:
 *           #entries with Pss < Rss (Pss_Dirty and Locked take subsets of
 *           the same pages).
 *  K_SWAP_PSS: the same for SwapPss (swap_pss, swp_swapcount() >= 2
 *           shares): #entries with SwapPss < Swap.
 *  K_PART:  Pss_Anon/File/Shmem, rollup only; checked against its Pss
 *           (PSS_PARTS_SLACK_KB).
 *  K_VMA:   per-VMA only (Size, page sizes); not in the rollup.
 * The gate VMA ([vsyscall]) is listed by smaps but not walked by the
 * rollup; its fields are all 0 (walk_page_vma() has no mm to walk).
 */
enum field_kind { K_EXACT, K_PSS, K_SWAP_PSS, K_PART, K_VMA };

struct field {
	const char *name;
	enum field_kind kind;
};

static const struct field fields[] = {
	{ "Size", K_VMA },		{ "KernelPageSize", K_VMA },
	{ "MMUPageSize", K_VMA },	{ "Rss", K_EXACT },
	{ "Pss", K_PSS },		{ "Pss_Dirty", K_PSS },
	{ "Pss_Anon", K_PART },		{ "Pss_File", K_PART },
	{ "Pss_Shmem", K_PART },	{ "Shared_Clean", K_EXACT },
	{ "Shared_Dirty", K_EXACT },	{ "Private_Clean", K_EXACT },
	{ "Private_Dirty", K_EXACT },	{ "Referenced", K_EXACT },
	{ "Anonymous", K_EXACT },	{ "KSM", K_EXACT },
	{ "LazyFree", K_EXACT },	{ "AnonHugePages", K_EXACT },
	{ "ShmemPmdMapped", K_EXACT },	{ "FilePmdMapped", K_EXACT },
	{ "Shared_Hugetlb", K_EXACT },	{ "Private_Hugetlb", K_EXACT },
	{ "Swap", K_EXACT },		{ "SwapPss", K_SWAP_PSS },
	{ "Locked", K_PSS },
};

#define NR_FIELDS	ARRAY_SIZE(fields)

/* indices into fields[] */
enum {
	FI_RSS = 3,
	FI_PSS = 4,
	FI_PSS_ANON = 6,
	FI_SWAP = 22,
	FI_SWAP_PSS = 23,
	FI_LOCKED = 24,
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
	size_t i;

	if (hint >= 0 && hint < (int)NR_FIELDS &&
	    strlen(fields[hint].name) == len &&
	    !memcmp(fields[hint].name, name, len))
		return hint;
	for (i = 0; i < NR_FIELDS; i++)
		if (strlen(fields[i].name) == len &&
		    !memcmp(fields[i].name, name, len))
			return (int)i;
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

/* ---- The run ---------------------------------------------------------------- */

enum { T_SMALL, T_LARGE, NR_TARGETS };

struct run {
	struct intro_opts opts;
	struct intro_budget budget;
	struct target tgt[NR_TARGETS];
	long max_map_count;
	long mem_avail_kb;
	const char *size_limit;	/* what limited it */
	char *buf;		/* READ_BUF_BYTES, for every cost read */
	struct text text;
	int reps;
	int reps_max;
	/* [target][file][rep] */
	double *cpu_ns[NR_TARGETS][NR_FILES];
	double *wall_ns[NR_TARGETS][NR_FILES];
	size_t bytes[NR_TARGETS][NR_FILES];
	/* consistency */
	struct kb_sums rollup, sum;
	struct maps_shape shape[NR_TARGETS];
	long smaps_entries[NR_TARGETS];
	int cons_tries;
	int cons_stable;	/* quiet triples (changed_field() NULL) */
	int cons_bad;		/* stable triples that disagreed */
	const char *cons_changed;	/* field that moved in the last triple */
};

static struct run run;

static void bail(const char *what)
{
	int e = errno, i;

	for (i = 0; i < NR_TARGETS; i++)
		target_stop(&run.tgt[i]);
	ksft_exit_fail_msg("%s: %s\n", what, strerror(e));
}

static long read_long_file(const char *path)
{
	char line[64];
	long v = -1;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		v = strtol(line, NULL, 10);
	fclose(f);
	return v;
}

static long mem_available_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f;

	f = fopen("/proc/meminfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static long count_vmas(pid_t pid, struct maps_shape *shape)
{
	char path[64];

	proc_path(path, sizeof(path), pid, F_MAPS);
	if (slurp(path, &run.text))
		bail("read maps");
	parse_maps(&run.text, shape);
	return shape->lines;
}

/* One timed read of each file of @t, in an order rotated by @rot. */
static void read_all(struct target *t, int rot, struct read_cost *c)
{
	char path[64];
	int i, f;

	for (i = 0; i < NR_FILES; i++) {
		f = (i + rot) % NR_FILES;
		proc_path(path, sizeof(path), t->pid, f);
		if (read_cost(path, run.buf, READ_BUF_BYTES, &c[f]))
			bail("read target file");
	}
}

/*
 * The wall time to plan for a step that took @wall and used @cpu: its wall
 * time, but at most twice its CPU time, so that one stall of the machine
 * while calibrating does not shrink the target to nothing (the repetitions
 * are capped by the budget anyway).
 */
static double plan_ns(unsigned long long wall, unsigned long long cpu)
{
	return (double)(wall < 2 * cpu ? wall : 2 * cpu);
}

/*
 * Size the large target: the smallest of VMAS_PER_SCALE x scale, what
 * vm.max_map_count leaves (never changed by us), a quarter of
 * MemAvailable, and what the planned work costs at the per-VMA speeds
 * measured on the small target's first CAL_VMAS mappings. @create_ns,
 * @read_ns (maps + smaps + rollup), @check_ns (smaps + 2 rollups + parse):
 * planned ns per VMA.
 */
static long plan_size(double create_ns, double read_ns, double check_ns)
{
	double per_vma, left, n = VMAS_PER_SCALE * run.opts.scale;
	long limit;

	run.size_limit = "scale";
	limit = run.max_map_count - run.tgt[T_LARGE].baseline -
		run.max_map_count / MAP_COUNT_MARGIN_DIV - MAP_COUNT_MARGIN_ADD;
	if (limit < n) {
		n = limit;
		run.size_limit = "max_map_count";
	}
	limit = run.mem_avail_kb / MEM_AVAIL_DIV * 1024 /
		(MEM_PER_VMA_BYTES * (SIZE_RATIO + 1) / SIZE_RATIO);
	if (run.mem_avail_kb > 0 && limit < n) {
		n = limit;
		run.size_limit = "memory";
	}
	/*
	 * Per large-target VMA: creating both targets and reps_max reads of
	 * the three files of both (1 + 1/SIZE_RATIO VMAs each), and up to
	 * CONSISTENCY_TRIES triples on the small target.
	 */
	per_vma = (create_ns + run.reps_max * read_ns) *
		  (SIZE_RATIO + 1) / SIZE_RATIO +
		  check_ns * CONSISTENCY_TRIES / SIZE_RATIO;
	left = PLAN_FRACTION * run.budget.limit_ns -
	       (double)(intro_now_ns() - run.budget.start_ns);
	if (left / per_vma < n) {
		n = left / per_vma;
		run.size_limit = "time";
	}
	return n < 0 ? 0 : (long)n;
}

/*
 * Grow @t to @total mappings. mmap() failing with ENOMEM (a lower
 * vm.max_map_count than read, a memory cgroup) leaves a smaller target,
 * which is said and measured as it is; a target that died is fatal.
 */
static void grow_or_note(struct target *t, long total)
{
	if (!target_grow(t, total))
		return;
	if (errno != ENOMEM)
		bail("grow the target");
	note("target", "mmap_enomem_at=%ld wanted=%ld", t->created, total);
}

/*
 * Start both targets, time the small one's first CAL_VMAS mappings and
 * reads, size the targets, and grow them.
 */
static void build_targets(void)
{
	unsigned long long t0, c0, create_wall, create_cpu, parse_wall;
	struct read_cost cal[NR_FILES], again[NR_FILES];
	double create_ns, read_ns = 0, check_ns, vmas;
	struct target *s = &run.tgt[T_SMALL];
	unsigned long long parse_cpu;
	struct maps_shape shape;
	struct kb_sums sums;
	clockid_t child_cpu;
	char path[64];
	long n, small;
	int i;

	for (i = 0; i < NR_TARGETS; i++) {
		if (target_start(&run.tgt[i]))
			bail("fork target");
		run.tgt[i].baseline = count_vmas(run.tgt[i].pid, &shape);
	}
	if (clock_getcpuclockid(s->pid, &child_cpu))
		bail("clock_getcpuclockid");
	t0 = intro_now_ns();
	c0 = intro_clock_ns(child_cpu);
	if (target_grow(s, CAL_VMAS))
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
	}
	t0 = intro_now_ns();
	c0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	proc_path(path, sizeof(path), s->pid, F_SMAPS);
	if (slurp(path, &run.text))
		bail("read smaps");
	parse_smaps(&run.text, &sums);
	parse_cpu = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	parse_wall = intro_now_ns() - t0;

	vmas = CAL_VMAS + s->baseline;
	create_ns = plan_ns(create_wall, create_cpu) / CAL_VMAS;
	check_ns = (plan_ns(parse_wall, parse_cpu) +
		    2 * plan_ns(cal[F_ROLLUP].wall_ns, cal[F_ROLLUP].cpu_ns)) /
		   vmas;
	read_ns /= vmas;
	n = plan_size(create_ns, read_ns, check_ns);
	if (n < LARGE_MIN_VMAS && !strcmp(run.size_limit, "time"))
		n = LARGE_MIN_VMAS;	/* cheap to build; reps are time-capped */
	small = n / SIZE_RATIO > CAL_VMAS ? n / SIZE_RATIO : CAL_VMAS;
	if (small > n)
		small = n;
	note("target",
	     "max_map_count=%ld mem_available_kb=%ld baseline_vmas=%ld planned_vmas=%ld limited_by=%s plan_create_us_per_vma=%.2f plan_read_us_per_vma=%.2f plan_check_us_per_vma=%.2f",
	     run.max_map_count, run.mem_avail_kb, run.tgt[T_LARGE].baseline, n,
	     run.size_limit, create_ns / NSEC_PER_USEC,
	     read_ns / NSEC_PER_USEC, check_ns / NSEC_PER_USEC);
	if (strcmp(run.size_limit, "scale") && strcmp(run.size_limit, "time"))
		note("target", "scaled_down_from=%.0f by=%s",
		     VMAS_PER_SCALE * run.opts.scale, run.size_limit);
	t0 = intro_now_ns();
	grow_or_note(s, small);
	grow_or_note(&run.tgt[T_LARGE], n);
	for (i = 0; i < NR_TARGETS; i++)
		run.tgt[i].vmas = count_vmas(run.tgt[i].pid, &run.shape[i]);
	note("target",
	     "small_vmas=%ld large_vmas=%ld locked=%ld create_s=%.2f mem_used_kb=%ld",
	     s->vmas, run.tgt[T_LARGE].vmas, run.tgt[T_LARGE].locked,
	     (double)(intro_now_ns() - t0) / NSEC_PER_SEC,
	     run.mem_avail_kb - mem_available_kb());
}

/*
 * Were the two rollups @a and @b, read before and after the smaps read,
 * of the same state? Page-count fields must be equal; the PSS fields may
 * drift by up to PSS_DRIFT_MAX_KB (other processes mapping libc). Return
 * NULL, or the name of the first field that changed more.
 */
static const char *changed_field(const struct kb_sums *a,
				 const struct kb_sums *b)
{
	long long d;
	size_t i;

	for (i = 0; i < NR_FIELDS; i++) {
		d = llabs((long long)a->kb[i] - (long long)b->kb[i]);
		if (a->seen[i] != b->seen[i] ||
		    d > (fields[i].kind == K_EXACT ? 0 : PSS_DRIFT_MAX_KB))
			return fields[i].name;
	}
	return NULL;
}

/*
 * Do the rollups @a, @b agree with the smaps sums @s in between? Page-count
 * fields: exactly. PSS fields: 0 <= rollup - sum <= bound without drift;
 * with the rollups d kB apart, sum in [min - bound - d, max + d]. Pss
 * against its parts: within PSS_PARTS_SLACK_KB, in each rollup. Prints
 * what disagrees; returns how many fields did.
 */
static int rollup_mismatches(const struct kb_sums *a, const struct kb_sums *b,
			     const struct kb_sums *s)
{
	long long lo, hi, d, bound, sum, parts;
	const struct kb_sums *r;
	int bad = 0, k;
	size_t i;

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
		note("rollup_mismatch",
		     "field=%s rollup_kb=%lld smaps_sum_kb=%lld allowed_excess_kb=%lld drift_kb=%lld",
		     fields[i].name, lo, sum, bound, d);
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
		note("rollup_mismatch",
		     "field=Pss rollup_kb=%llu pss_parts_sum_kb=%lld allowed_excess_kb=%d",
		     r->kb[FI_PSS], parts, PSS_PARTS_SLACK_KB);
	}
	return bad + (a->entries != 1);
}

/*
 * rollup, smaps, rollup on the small target (a short window is likelier to
 * be quiet). A triple counts when changed_field() finds the rollups to be
 * of one state; the check fails when two counted triples disagree, so one
 * transient difference cannot fail it and a miscounting kernel (which
 * disagrees every time) cannot pass it.
 */
static void check_consistency(void)
{
	struct target *t = &run.tgt[T_SMALL];
	char rpath[64], spath[64];
	unsigned long long reserve;
	struct kb_sums r2;

	proc_path(rpath, sizeof(rpath), t->pid, F_ROLLUP);
	proc_path(spath, sizeof(spath), t->pid, F_SMAPS);
	reserve = (unsigned long long)(RESERVE_FRACTION * run.budget.limit_ns);
	while (run.cons_tries < CONSISTENCY_TRIES && run.cons_stable < 2 &&
	       !(run.cons_stable == 1 && !run.cons_bad) &&
	       intro_budget_left_ns(&run.budget) > 2 * reserve) {
		run.cons_tries++;
		if (slurp(rpath, &run.text))
			bail("read smaps_rollup");
		parse_smaps(&run.text, &run.rollup);
		if (slurp(spath, &run.text))
			bail("read smaps");
		parse_smaps(&run.text, &run.sum);
		run.smaps_entries[T_SMALL] = run.sum.entries;
		if (slurp(rpath, &run.text))
			bail("read smaps_rollup");
		parse_smaps(&run.text, &r2);
		run.cons_changed = changed_field(&run.rollup, &r2);
		if (run.cons_changed)
			continue;
		run.cons_stable++;
		if (rollup_mismatches(&run.rollup, &r2, &run.sum))
			run.cons_bad++;
	}
}

static void measure_costs(void)
{
	struct read_cost c[NR_FILES];
	unsigned long long rep_start, rep_ns = 0, left, reserve;
	int i, f, k;

	reserve = (unsigned long long)(RESERVE_FRACTION * run.budget.limit_ns);
	for (k = 0; k < NR_TARGETS; k++)
		for (f = 0; f < NR_FILES; f++) {
			run.cpu_ns[k][f] = calloc(run.reps_max, sizeof(double));
			run.wall_ns[k][f] = calloc(run.reps_max, sizeof(double));
			if (!run.cpu_ns[k][f] || !run.wall_ns[k][f])
				bail("allocate samples");
		}
	for (i = 0; i < run.reps_max; i++) {
		left = intro_budget_left_ns(&run.budget);
		if (left < reserve || left - reserve < rep_ns * 3 / 2)
			break;
		rep_start = intro_now_ns();
		for (k = 0; k < NR_TARGETS; k++) {
			struct target *t = &run.tgt[(k + i) % NR_TARGETS];

			read_all(t, i, c);
			for (f = 0; f < NR_FILES; f++) {
				int ti = (k + i) % NR_TARGETS;

				run.cpu_ns[ti][f][i] = (double)c[f].cpu_ns;
				run.wall_ns[ti][f][i] = (double)c[f].wall_ns;
				run.bytes[ti][f] = c[f].bytes;
			}
		}
		rep_ns = intro_now_ns() - rep_start;
		run.reps++;
	}
}

/* Per-rep ratios a/b of CPU per VMA; median, min and max. */
struct ratio {
	double median, min, max;
};

static double rep_ratio(int i, int ta, int fa, int tb, int fb)
{
	return (run.cpu_ns[ta][fa][i] / run.tgt[ta].vmas) /
	       (run.cpu_ns[tb][fb][i] / run.tgt[tb].vmas);
}

static struct ratio cost_ratio(int ta, int fa, int tb, int fb)
{
	double *v = calloc(run.reps ? run.reps : 1, sizeof(double));
	struct ratio r = { NAN, NAN, NAN };
	int i;

	if (!v)
		bail("allocate ratios");
	for (i = 0; i < run.reps; i++)
		v[i] = rep_ratio(i, ta, fa, tb, fb);
	if (run.reps) {
		intro_sort(v, run.reps);
		r.median = intro_median(v, run.reps, true);
		r.min = v[0];
		r.max = v[run.reps - 1];
	}
	free(v);
	return r;
}

/* The evidence of a cost check: every repetition's ratio, in run order. */
static void print_ratios(const char *what, int ta, int fa, int tb, int fb)
{
	int i;

	printf("# evidence: %s_per_rep=", what);
	for (i = 0; i < run.reps; i++)
		printf("%s%.2f", i ? "," : "", rep_ratio(i, ta, fa, tb, fb));
	putchar('\n');
}

static double us_per_vma(int t, int f)
{
	return intro_median(run.cpu_ns[t][f], run.reps, false) /
	       run.tgt[t].vmas / NSEC_PER_USEC;
}

/* -v: every repetition's CPU us per VMA, in run order. */
static void print_samples(int t, int f)
{
	int i;

	printf("# samples: %s %s cpu_us_per_vma=", t == T_LARGE ? "large" : "small",
	       file_names[f]);
	for (i = 0; i < run.reps; i++)
		printf("%s%.2f", i ? "," : "",
		       run.cpu_ns[t][f][i] / run.tgt[t].vmas / NSEC_PER_USEC);
	putchar('\n');
}

static void print_costs(void)
{
	double cpu, wall;
	int t, f;

	for (t = 0; t < NR_TARGETS; t++)
		for (f = 0; f < NR_FILES; f++) {
			if (!run.reps)
				continue;
			cpu = intro_median(run.cpu_ns[t][f], run.reps, false);
			wall = intro_median(run.wall_ns[t][f], run.reps, false);
			note("cost",
			     "%s vmas=%ld file=%s bytes=%zu cpu_us_per_vma=%.3f wall_us_per_vma=%.3f cpu_mb_per_s=%.1f reps=%d",
			     t == T_LARGE ? "large" : "small", run.tgt[t].vmas,
			     file_names[f], run.bytes[t][f],
			     cpu / run.tgt[t].vmas / NSEC_PER_USEC,
			     wall / run.tgt[t].vmas / NSEC_PER_USEC,
			     run.bytes[t][f] / (cpu / NSEC_PER_SEC) / 1e6,
			     run.reps);
			if (run.opts.verbose)
				print_samples(t, f);
		}
}

/* ---- Checks ----------------------------------------------------------------- */

static const char *cost_skip_reason(void)
{
	if (run.tgt[T_LARGE].created < LARGE_MIN_VMAS)
		return "too few mappings allowed for a cost measurement";
	if (run.reps < REPS_MIN)
		return "time budget too small for enough repetitions";
	return NULL;
}

static enum intro_verdict check_smaps_vs_maps(const char *name,
					      const char **reason)
{
	struct ratio r = cost_ratio(T_LARGE, F_SMAPS, T_LARGE, F_MAPS);
	enum intro_verdict v;

	*reason = cost_skip_reason();
	v = *reason ? INTRO_SKIP :
	    r.median <= SMAPS_MAPS_MAX_RATIO ? INTRO_PASS : INTRO_FAIL;
	if (v == INTRO_FAIL || run.opts.verbose)
		print_ratios("smaps_maps", T_LARGE, F_SMAPS, T_LARGE, F_MAPS);
	intro_metric(name,
		     "smaps_us_per_vma=%.3f maps_us_per_vma=%.3f ratio=%.2f ratio_min=%.2f ratio_max=%.2f reps=%d vmas=%ld bound_ratio=%.1f",
		     us_per_vma(T_LARGE, F_SMAPS), us_per_vma(T_LARGE, F_MAPS),
		     r.median, r.min, r.max, run.reps, run.tgt[T_LARGE].vmas,
		     SMAPS_MAPS_MAX_RATIO);
	return v;
}

static enum intro_verdict check_smaps_vs_rollup(const char *name,
						const char **reason)
{
	struct ratio r = cost_ratio(T_LARGE, F_SMAPS, T_LARGE, F_ROLLUP);
	enum intro_verdict v;

	*reason = cost_skip_reason();
	v = *reason ? INTRO_SKIP :
	    r.median >= SMAPS_ROLLUP_MIN_RATIO ? INTRO_PASS : INTRO_FAIL;
	if (v == INTRO_FAIL || run.opts.verbose)
		print_ratios("smaps_rollup", T_LARGE, F_SMAPS, T_LARGE,
			     F_ROLLUP);
	intro_metric(name,
		     "smaps_us_per_vma=%.3f rollup_us_per_vma=%.3f ratio=%.2f ratio_min=%.2f ratio_max=%.2f reps=%d vmas=%ld bound_min_ratio=%.1f",
		     us_per_vma(T_LARGE, F_SMAPS),
		     us_per_vma(T_LARGE, F_ROLLUP), r.median, r.min, r.max,
		     run.reps, run.tgt[T_LARGE].vmas, SMAPS_ROLLUP_MIN_RATIO);
	return v;
}

static enum intro_verdict check_scaling(const char *name, const char **reason)
{
	struct ratio r[NR_FILES];
	enum intro_verdict v;
	double worst;
	int f;

	for (f = 0; f < NR_FILES; f++)
		r[f] = cost_ratio(T_LARGE, f, T_SMALL, f);
	/* judged: the two files read in many read() calls (m_start() each) */
	worst = r[F_MAPS].median > r[F_SMAPS].median ? r[F_MAPS].median :
						       r[F_SMAPS].median;
	*reason = cost_skip_reason();
	if (!*reason && run.tgt[T_LARGE].vmas <
	    (SIZE_RATIO - 1) * run.tgt[T_SMALL].vmas)
		*reason = "targets too close in size";
	v = *reason ? INTRO_SKIP :
	    worst <= SCALING_MAX_RATIO ? INTRO_PASS : INTRO_FAIL;
	for (f = 0; f < NR_FILES; f++)
		if (v == INTRO_FAIL || run.opts.verbose)
			print_ratios(file_names[f], T_LARGE, f, T_SMALL, f);
	intro_metric(name,
		     "small_vmas=%ld large_vmas=%ld maps_ratio=%.2f smaps_ratio=%.2f rollup_ratio=%.2f worst_ratio=%.2f reps=%d bound_ratio=%.1f",
		     run.tgt[T_SMALL].vmas, run.tgt[T_LARGE].vmas,
		     r[F_MAPS].median, r[F_SMAPS].median, r[F_ROLLUP].median,
		     worst, run.reps, SCALING_MAX_RATIO);
	return v;
}

static enum intro_verdict check_rollup_sum(const char *name,
					   const char **reason)
{
	const struct kb_sums *r = &run.rollup, *s = &run.sum;
	enum intro_verdict v = INTRO_SKIP;

	*reason = NULL;
	if (!run.cons_stable)
		*reason = "target changed during every read";
	else if (run.cons_bad >= 2)
		v = INTRO_FAIL;
	else if (run.cons_stable > run.cons_bad)
		v = INTRO_PASS;
	else
		*reason = "difference seen once, target not quiescent to confirm";
	if (run.cons_changed && v != INTRO_PASS)
		note("rollup_changed", "last_moved_field=%s", run.cons_changed);
	intro_metric(name,
		     "rss_rollup_kb=%llu rss_sum_kb=%llu pss_rollup_kb=%llu pss_sum_kb=%llu pss_bound_kb=%ld locked_rollup_kb=%llu locked_sum_kb=%llu entries=%ld quiet_triples=%d disagreeing_triples=%d tries=%d",
		     r->kb[FI_RSS], s->kb[FI_RSS], r->kb[FI_PSS], s->kb[FI_PSS],
		     s->frac_pss, r->kb[FI_LOCKED], s->kb[FI_LOCKED],
		     s->entries, run.cons_stable, run.cons_bad, run.cons_tries);
	return v;
}

static enum intro_verdict check_vma_count(const char *name,
					  const char **reason)
{
	const struct target *s = &run.tgt[T_SMALL], *l = &run.tgt[T_LARGE];
	long bad;

	bad = (l->vmas != l->baseline + l->created) +
	      (s->vmas != s->baseline + s->created) +
	      (run.smaps_entries[T_SMALL] != s->vmas) +
	      (run.shape[T_SMALL].disordered + run.shape[T_LARGE].disordered != 0);
	intro_metric(name,
		     "large_maps_lines=%ld large_expected=%ld small_maps_lines=%ld small_smaps_entries=%ld small_expected=%ld baseline=%ld disordered=%ld",
		     l->vmas, l->baseline + l->created, s->vmas,
		     run.smaps_entries[T_SMALL], s->baseline + s->created,
		     l->baseline,
		     run.shape[T_SMALL].disordered + run.shape[T_LARGE].disordered);
	*reason = NULL;
	return bad ? INTRO_FAIL : INTRO_PASS;
}

static const struct check {
	const char *name;
	enum intro_verdict (*judge)(const char *name, const char **reason);
} checks[] = {
	{ "smaps_vs_maps_cost", check_smaps_vs_maps },
	{ "smaps_vs_rollup_cost", check_smaps_vs_rollup },
	{ "per_vma_cost_scaling", check_scaling },
	{ "rollup_equals_smaps_sum", check_rollup_sum },
	{ "vma_count", check_vma_count },
};

int main(int argc, char **argv)
{
	int k, f;
	double t_build, t_cons;
	enum intro_verdict v;
	const char *reason;
	size_t i;

	ksft_print_header();
	intro_parse_opts(argc, argv, &run.opts);
	intro_print_env();
	if (access("/proc/self/smaps_rollup", R_OK))
		ksft_exit_skip("no /proc/PID/smaps_rollup (CONFIG_PROC_PAGE_MONITOR)\n");
	run.max_map_count = read_long_file("/proc/sys/vm/max_map_count");
	if (run.max_map_count <= 0)
		ksft_exit_skip("vm.max_map_count not readable\n");
	run.mem_avail_kb = mem_available_kb();
	ksft_set_plan(ARRAY_SIZE(checks));

	intro_budget_start(&run.budget, BUDGET_S * run.opts.scale);
	run.reps_max = (int)lround(REPS_WANTED * run.opts.scale);
	if (run.reps_max < REPS_MIN)
		run.reps_max = REPS_MIN;
	run.buf = malloc(READ_BUF_BYTES);
	if (!run.buf)
		bail("allocate read buffer");
	build_targets();
	t_build = intro_budget_spent_s(&run.budget);
	check_consistency();
	t_cons = intro_budget_spent_s(&run.budget);
	measure_costs();
	print_costs();
	note("phases",
	     "build_s=%.2f consistency_s=%.2f tries=%d cost_s=%.2f reps=%d",
	     t_build, t_cons - t_build, run.cons_tries,
	     intro_budget_spent_s(&run.budget) - t_cons, run.reps);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		reason = NULL;
		v = checks[i].judge(checks[i].name, &reason);
		intro_result(checks[i].name, v, reason);
	}
	for (k = 0; k < NR_TARGETS; k++)
		target_stop(&run.tgt[k]);
	ksft_print_msg("run: spent_s=%.2f budget_s=%.1f\n",
		       intro_budget_spent_s(&run.budget),
		       BUDGET_S * run.opts.scale);
	for (k = 0; k < NR_TARGETS; k++)
		for (f = 0; f < NR_FILES; f++) {
			free(run.cpu_ns[k][f]);
			free(run.wall_ns[k][f]);
		}
	free(run.buf);
	free(run.text.p);
	intro_exit();
}
