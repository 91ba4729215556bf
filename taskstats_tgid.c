// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_tgid - the taskstats exit records of a thread-creating workload.
 * Guards ad4ecbcba728 (2.6.18, "delay accounting taskstats interface send
 * tgid once"): a TGID record on every thread exit made 1000 threads run
 * 2.5x longer under a listener, which saw ENOBUFS. Also version 0 TGID
 * records (16c4f0211aaa), TGID records without the exited threads' times
 * ("taskstats: retain dead thread stats in TGID queries"), the version 15
 * layout (0bf2d838de1f) and a cpumask without its NUL parsed one character
 * short (1f58a5335cdd). Invariants (kernel/taskstats.c): one PID record
 * per exiting thread; one TGID record per group, with the AGROUP one,
 * summing its threads; an exit costs a record; a cpulist gets its CPUs'.
 */
#define _GNU_SOURCE
#define __SANE_USERSPACE_TYPES__	/* __u64 is unsigned long long */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/acct.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/taskstats.h>

#include "introspect_util.h"

/*
 * Thread exit with / without the listener, less the syscalls on its path:
 * healthy 1.06-1.07 natively, 1.37-1.71 under qemu TCG; an exit twice as
 * slow reads 2.1 or more natively, 23 % above the highest healthy figure.
 */
#define EXIT_RATIO_MAX		2.10
/* An exit's share beyond its syscalls: 0.78 natively, 0.96 under TCG; below, noise */
#define REF_NET_MIN		0.05
#define NULL_BATCHES		5
#define NULL_BATCH_CALLS	16
#define COST_MIN_PAIRS		10	/* noise gate: fewer pairs decide nothing */

/* Two exits a CPU tell a lost or doubled record (1, 3) from a CPU left out. */
#define CPUMASK_EXITS_PER_CPU	2

#define WL_THREADS		32	/* threads alive at once, as in 2006 */
#define WL_CHILDREN		6	/* every other one single-threaded */
#define WL_STACK_BYTES		(64 << 10)
#define WL_COMM			"tstgid_wl"
#define ST_COMM			"tstgid_st"
/* The groups' CPU time (hashing and null syscalls), their threads' share alike */
#define RECORDS_S		3.0
#define COST_S			8.0	/* listener cost pairs at most, at --scale 1 */
#define COST_BLOCK		8	/* exits timed in one block */
#define COST_MAX_PAIRS		2048
/* About 2.5 KiB a queued record, doubled by the kernel: three groups. */
#define RCVBUF_BYTES		(4 << 20)
/* Room a group waits for: exited threads stay charged until RCU frees them */
#define ROOM_MIN_BYTES		(8LL << 20)
#define ROOM_WAIT_S		2.0
#define FORM_MAX_CPUS		3	/* probed: two named, one not */

#define NO_ROOM		"memory cgroup: under 8 MiB of room for 2 s"

#define NLA_DATA(na)		((const char *)(na) + NLA_HDRLEN)

static int nl_fd = -1;
static int ts_family;
static char cpulist[256];	/* every possible CPU */
static char nl_buf[64 << 10];	/* many records; MSG_TRUNC tells a longer one */

static bool nla_ok(const struct nlattr *na, int rem)
{
	return rem >= (int)sizeof(*na) && na->nla_len >= sizeof(*na) && na->nla_len <= rem;
}

static const struct nlattr *nla_next(const struct nlattr *na, int *rem)
{
	*rem -= NLA_ALIGN(na->nla_len);
	return (const void *)((const char *)na + NLA_ALIGN(na->nla_len));
}

static const struct nlattr *genl_attrs(const struct nlmsghdr *nlh, int *rem)
{
	*rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	return (const void *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
}

/*
 * A request with one attribute: the family id for CTRL_CMD_GETFAMILY, else
 * 0 or -errno. Records in between are dropped: no workload runs then.
 */
static int nl_request(int fd, __u16 type, __u8 cmd, __u16 attr, const void *data, size_t len)
{
	static __u32 seq;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	const struct nlmsgerr *e;
	struct {
		struct nlmsghdr nlh;
		struct genlmsghdr genl;
		struct nlattr na;
		char data[256];
	} req = {
		.nlh = { .nlmsg_type = type, .nlmsg_seq = ++seq,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.genl = { .cmd = cmd, .version = 1 },
		.na = { .nla_type = attr, .nla_len = NLA_HDRLEN + len },
	};
	const struct nlmsghdr *nlh;
	const struct nlattr *na;
	int n, rem;

	if (len > sizeof(req.data))
		return -E2BIG;
	memcpy(req.data, data, len);
	req.nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(req.na.nla_len);
	if (sendto(fd, &req, req.nlh.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	for (;;) {	/* SO_RCVTIMEO ends the wait */
		n = recv(fd, nl_buf, sizeof(nl_buf), 0);
		if (n < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (n < 0)
			return -errno;
		for (nlh = (void *)nl_buf; NLMSG_OK(nlh, n); nlh = NLMSG_NEXT(nlh, n)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				e = NLMSG_DATA(nlh);
				if (e->error || type != GENL_ID_CTRL)
					return e->error;
				continue;
			}
			/* CTRL_ATTR_FAMILY_NAME comes first, then the id */
			na = nla_next(genl_attrs(nlh, &rem), &rem);
			if (type == GENL_ID_CTRL && na->nla_type == CTRL_ATTR_FAMILY_ID)
				return *(const __u16 *)NLA_DATA(na);
		}
	}
}

/* A bound generic netlink socket whose replies time out: fd or -errno. */
static int nl_socket(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int fd, rcvbuf = RCVBUF_BYTES;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * (De)register @fd for the cpulist @mask, @len bytes with or without its
 * NUL. A closed socket is dropped at the next exit (send_cpu_listeners()).
 */
static int listener(int fd, bool reg, const char *mask, size_t len)
{
	return nl_request(fd, ts_family, TASKSTATS_CMD_GET,
			  reg ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK :
				TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, mask, len);
}

static int listener_all(int fd, bool reg)
{
	return listener(fd, reg, cpulist, strlen(cpulist) + 1);
}

static __u64 socket_drops(int fd)
{
	__u32 mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);

	return getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	       len <= SK_MEMINFO_DROPS * sizeof(mem[0]) ? 0 : mem[SK_MEMINFO_DROPS];
}

/*
 * Version 15 put a max and a min after each delay total (0bf2d838de1f moved
 * them to the end): records are copied into this header's layout.
 */
#define V15			15
#define TS_OFF(f)		offsetof(struct taskstats, f)
static const size_t v15_inserts[] = {
	TS_OFF(cpu_delay_total) + 8, TS_OFF(blkio_delay_total) + 8,
	TS_OFF(swapin_delay_total) + 8, TS_OFF(freepages_delay_total) + 8,
	TS_OFF(thrashing_delay_total) + 8, TS_OFF(compact_delay_total) + 8,
	TS_OFF(wpcopy_delay_total) + 8,
#if TASKSTATS_VERSION >= 14
	TS_OFF(irq_delay_total) + 8,
#endif
};

struct rec {
	struct taskstats ts;
	size_t have;		/* bytes of .ts the kernel sent */
	__u32 id;		/* TASKSTATS_TYPE_PID / _TGID value */
	__u32 msg;		/* index of the netlink message */
	bool tgid;
};

#define rec_has(r, f)	((r)->have >= TS_OFF(f) + sizeof(__u64))

static void normalise(struct rec *r, const char *raw, size_t len)
{
	size_t prev = 0, shift = 0, i, n, end, src;
	__u16 version;

	if (len < sizeof(version))
		return;
	memcpy(&version, raw, sizeof(version));
	n = version == V15 ? ARRAY_SIZE(v15_inserts) : 0;
	for (i = 0; i <= n; i++, shift += 2 * sizeof(__u64), prev = end) {
		end = i < n ? v15_inserts[i] : sizeof(r->ts);
		src = prev + shift;
		if (src >= len)
			break;
		if (end - prev > len - src)
			end = prev + (len - src);
		memcpy((char *)&r->ts + prev, raw + src, end - prev);
		r->have = end;
	}
}

struct harvest {
	struct rec *recs;
	size_t n, cap;
	__u32 msgs;
	__u64 foreign, truncated, enobufs;
	size_t stats_len;	/* attribute length of the first PID record */
	__s64 wall_start, wall_end;	/* time() around the last child */
};

static void parse_aggr(struct harvest *h, const struct nlattr *aggr)
{
	const struct nlattr *na = (const void *)NLA_DATA(aggr);
	int rem = aggr->nla_len - NLA_HDRLEN;
	struct rec r = { .msg = h->msgs };
	bool have_stats = false;
	size_t dlen;

	r.tgid = aggr->nla_type == TASKSTATS_TYPE_AGGR_TGID;
	for (; nla_ok(na, rem); na = nla_next(na, &rem)) {
		dlen = na->nla_len - NLA_HDRLEN;
		if ((na->nla_type == TASKSTATS_TYPE_PID ||
		     na->nla_type == TASKSTATS_TYPE_TGID) && dlen >= sizeof(r.id)) {
			memcpy(&r.id, NLA_DATA(na), sizeof(r.id));
		} else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			normalise(&r, NLA_DATA(na), dlen);
			have_stats = true;
			if (!r.tgid && !h->stats_len)
				h->stats_len = dlen;
		}
	}
	/* cut short: no matching it to a thread of ours */
	if (!have_stats || rem > 0 || !rec_has(&r, ac_tgid)) {
		h->truncated++;
		return;
	}
	if (!r.tgid && (pid_t)r.ts.ac_ppid != getpid()) {
		h->foreign++;
		return;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 4096;
		h->recs = realloc(h->recs, h->cap * sizeof(*h->recs));
		if (!h->recs)
			ksft_exit_fail_msg("out of memory for records\n");
	}
	h->recs[h->n++] = r;
}

/* Every record queued on @fd, without blocking; false on an error. */
static bool drain(int fd, struct harvest *h)
{
	const struct nlmsghdr *nlh;
	const struct nlattr *na;
	int len, rem;

	for (;;) {
		len = recv(fd, nl_buf, sizeof(nl_buf), MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0 && errno == ENOBUFS)
			h->enobufs++;
		if (len < 0 && (errno == EINTR || errno == ENOBUFS))
			continue;
		if (len < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		if (len > (int)sizeof(nl_buf)) {
			h->truncated++;
			len = sizeof(nl_buf);
		}
		for (nlh = (void *)nl_buf; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_type != ts_family ||
			    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
			    ((struct genlmsghdr *)NLMSG_DATA(nlh))->cmd != TASKSTATS_CMD_NEW)
				continue;
			h->msgs++;
			for (na = genl_attrs(nlh, &rem); nla_ok(na, rem); na = nla_next(na, &rem))
				if (na->nla_type == TASKSTATS_TYPE_AGGR_PID ||
				    na->nla_type == TASKSTATS_TYPE_AGGR_TGID)
					parse_aggr(h, na);
			h->truncated += rem > 0;
		}
	}
}

/*
 * The least limit - usage from this process's memory cgroup up: v1 at
 * /sys/fs/cgroup/memory ("ID:memory:PATH" in /proc/self/cgroup), else
 * cgroup2 at cgroup_init()'s mount point /sys/fs/cgroup ("0::PATH"). Levels
 * not there (a container's mount) or without a limit are left out.
 */
static long long memcg_room(void)
{
	bool v1 = !access("/sys/fs/cgroup/memory/memory.limit_in_bytes", F_OK);
	char dir[PATH_MAX] = "", file[PATH_MAX + 32], lim[32], use[32], *p;
	const char *mnt = v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup";
	size_t top = strlen(mnt);
	FILE *f = fopen("/proc/self/cgroup", "re");
	long long room = LLONG_MAX;

	while (f && !*dir && fgets(file, sizeof(file), f)) {
		file[strcspn(file, "\n")] = '\0';
		p = strstr(file, v1 ? ":memory:/" : "0::/");
		if (p && (v1 || p == file))
			snprintf(dir, sizeof(dir), "%s%s", mnt, strchr(p + 1, '/'));
	}
	if (f)
		fclose(f);
	while (*dir) {
		snprintf(file, sizeof(file), "%s/%s", dir,
			 v1 ? "memory.limit_in_bytes" : "memory.max");
		if (intro_read_file(file, lim, sizeof(lim)) > 0 &&
		    strcmp(lim, "max") && atoll(lim) < (1LL << 62)) {
			snprintf(file, sizeof(file), "%s/%s", dir,
				 v1 ? "memory.usage_in_bytes" : "memory.current");
			if (intro_read_file(file, use, sizeof(use)) > 0 &&
			    atoll(lim) - atoll(use) < room)
				room = atoll(lim) - atoll(use);
		}
		p = strrchr(dir, '/');
		if (!p || (size_t)(p - dir) < top)
			break;
		*p = '\0';
	}
	return room;
}

static bool wait_for_room(void)
{
	__u64 t0 = intro_now_ns();
	long long room;

	while ((room = memcg_room()) < ROOM_MIN_BYTES &&
	       intro_now_ns() - t0 < ROOM_WAIT_S * NSEC_PER_SEC)
		usleep(1000);
	return room >= ROOM_MIN_BYTES;
}

static struct {
	__u64 threads;		/* threads created */
	const char *no_thread;	/* why none was created, if so */
	int failed;
	__u64 release_ns, span_ns;	/* every exit from the release to the reaping */
	pid_t tid[WL_THREADS + 1];	/* threads, then the leader */
} *shared;
static unsigned long sink;
static pthread_attr_t small_stack;	/* WL_STACK_BYTES: every thread made */
static __u64 jiffy_ns, work_ns, work_end_ns;
static bool preempt_rt;
/* Without CONFIG_SCHED_INFO (no /proc/PID/schedstat) cpu_count stays 0. */
static bool sched_info;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int arrived;
	bool released;
} wl_gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

/*
 * A thread of the 2006 mkthreads, with work: its share of the group's CPU
 * time (or until the group's time is up), then it waits for the release.
 */
static void *worker(void *arg)
{
	unsigned long i, slot = (unsigned long)arg, acc = slot;
	__u64 cpu0 = intro_clock_ns(CLOCK_THREAD_CPUTIME_ID);

	shared->tid[slot] = syscall(SYS_gettid);
	do {
		for (i = 0; i < 300; i++)
			acc = acc * 2654435761UL + i;	/* Knuth's hash: work kept */
		syscall(SYS_getppid);
	} while (intro_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0 < work_ns &&
		 intro_now_ns() < work_end_ns);
	__atomic_store_n(&sink, acc, __ATOMIC_RELAXED);
	pthread_mutex_lock(&wl_gate.lock);
	wl_gate.arrived++;
	pthread_cond_broadcast(&wl_gate.cond);
	while (!wl_gate.released)
		pthread_cond_wait(&wl_gate.cond, &wl_gate.lock);
	pthread_mutex_unlock(&wl_gate.lock);
	return NULL;
}

/*
 * WL_THREADS threads (fewer where a task limit refuses one) released
 * together once all did their work; the leader leaves first (exit(), the
 * thread alone) and the last thread's exit ends the group.
 */
static void group_main(double seconds)
{
	pthread_t tid;
	int n, err = 0;

	work_end_ns = intro_now_ns() + seconds * NSEC_PER_SEC;
	work_ns = seconds * NSEC_PER_SEC / WL_THREADS;
	if (!wait_for_room())
		shared->no_thread = NO_ROOM;
	for (n = 0; !shared->no_thread && n < WL_THREADS; n++) {
		err = pthread_create(&tid, &small_stack, worker, (void *)(unsigned long)n);
		if (err)
			break;
	}
	shared->threads = n;
	shared->failed = err && err != EAGAIN;
	if (!n && !shared->no_thread)
		shared->no_thread = INTRO_NO_TASK;
	pthread_mutex_lock(&wl_gate.lock);
	while (wl_gate.arrived < n)
		pthread_cond_wait(&wl_gate.cond, &wl_gate.lock);
	shared->release_ns = intro_now_ns();
	wl_gate.released = true;
	pthread_cond_broadcast(&wl_gate.cond);
	pthread_mutex_unlock(&wl_gate.lock);
	syscall(SYS_exit, 0);
}

static void child_exited(int sig)
{
}

/*
 * A workload child on @cpu, its records read until it is reaped and after:
 * taskstats_exit() runs before exit_notify(), so all are queued by then.
 * Return: its pid, 0 if a task limit refused it or its threads.
 */
static pid_t run_child(bool group, int cpu, double seconds, struct harvest *h)
{
	__u64 t0 = intro_now_ns();
	int status;
	pid_t pid, got;

	memset(shared, 0, sizeof(*shared));
	h->wall_start = time(NULL);
	pid = intro_fork();
	shared->no_thread = pid < 0 && errno == EAGAIN ? INTRO_NO_TASK : NULL;
	if (shared->no_thread)
		return 0;
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		close(nl_fd);
		prctl(PR_SET_NAME, group ? WL_COMM : ST_COMM);
		intro_pin(0, cpu);
		if (group)
			group_main(seconds);
		_exit(0);
	}
	do {
		usleep(1000);	/* read records between naps; SIGCHLD ends one */
		if (!drain(nl_fd, h))
			ksft_exit_fail_perror("read exit records");
		got = waitpid(pid, &status, WNOHANG);
		if (got < 0 || intro_now_ns() - t0 > 30 * NSEC_PER_SEC) {
			intro_kill_wait(pid);
			ksft_exit_fail_msg("workload child hung or lost\n");
		}
	} while (got != pid);
	if (shared->release_ns)
		shared->span_ns = intro_now_ns() - shared->release_ns;
	if (!drain(nl_fd, h))
		ksft_exit_fail_perror("read exit records");
	h->wall_end = time(NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || shared->failed)
		ksft_exit_fail_msg("workload child failed\n");
	shared->tid[shared->threads] = pid;
	return shared->no_thread ? 0 : pid;
}

struct sum_tally {
	__u64 wrong;		/* fields outside their window, all groups */
	__u64 gap_switches;	/* between threads' two samples, all groups */
	double share;		/* the greatest window / sum of a time */
	const char *share_field, *field;	/* field: the first wrong, then */
	__s64 lo, hi;		/* its window of sum - TGID */
	__u64 sum, got;		/* and its PID records' sum and TGID value */
};

static struct {
	int groups, singles;
	__u64 threads, expected_pid, got_pid, dup_pid, unmatched, drops;
	__u64 tgid_recs, tgid_missing, tgid_extra, agroup_missing, agroup_extra;
	pid_t unmatched_pid;	/* the first */
	struct harvest h;	/* the last child's records, the socket's counts */
	__u16 version;
	/* record_fields_sane */
	__u64 bad_fields, checked, tgid_version_zero;
	const char *first_bad;
	__u32 first_bad_tid;
	struct sum_tally sums;	/* tgid_sums_match_threads */
	__u64 sum_groups, span_max_ns;
	bool tgid_times_zero;
	const char *skip;	/* the records phase did not run: why */
} tally;

static void note_bad(const char *what, __u32 id)
{
	tally.bad_fields++;
	if (!tally.first_bad) {
		tally.first_bad = what;
		tally.first_bad_tid = id;
	}
}

static void check_fields(const struct harvest *h, const struct rec *r, pid_t pid, const char *comm)
{
	const struct taskstats *t = &r->ts;

	tally.checked++;
	if (t->version != tally.version || !t->version)
		note_bad("version", r->id);
	if (rec_has(r, ac_pid) && t->ac_pid != r->id)
		note_bad("ac_pid", r->id);
	if (rec_has(r, ac_tgid) && t->ac_tgid != (__u32)pid)
		note_bad("ac_tgid", r->id);
	if (rec_has(r, ac_uid) && t->ac_uid != getuid())
		note_bad("ac_uid", r->id);
	if (rec_has(r, ac_comm) && strncmp(t->ac_comm, comm, sizeof(t->ac_comm)))
		note_bad("ac_comm", r->id);
	if (rec_has(r, ac_btime) &&
	    ((__s64)t->ac_btime < h->wall_start - 1 ||	/* 1 s resolution */
	     (__s64)t->ac_btime > h->wall_end + 1))
		note_bad("ac_btime", r->id);
	if (rec_has(r, ac_btime64) && t->ac_btime64 != t->ac_btime)
		note_bad("ac_btime64", r->id);
	if (rec_has(r, ac_exitcode) && t->ac_exitcode)
		note_bad("ac_exitcode", r->id);
}

/*
 * A TGID exit record adds each thread as fill_tgid_exit() samples it: under
 * siglock, interrupts off, where its arrivals (sched_info_arrive(): cpu_count)
 * are its departures (nvcsw + nivcsw) plus its first, so the record's
 * cpu_count is their nvcsw + nivcsw plus one a thread (PREEMPT_RT's siglock
 * leaves preemption on: at most that). Its PID record samples the thread
 * again in fill_stats(), after an allocation that may sleep: the TGID
 * record lacks what a thread is charged in between, and nothing else. A
 * group runs on one CPU and both samples fall in its span (its release to
 * its reaping), with g switches between them; what a field may lack:
 */
enum gap_kind {
	SAME,		/* none: no I/O, swap-in, thrashing or CoW fault there */
	ARRIVALS,	/* cpu_count: as above */
	SWITCHES,	/* nvcsw, nivcsw: their part of g */
	CPU,		/* the span's CPU time and two ticks (one late) of a jiffy */
	WALL,		/* etime, run delay: a span a thread */
	RECLAIM,	/* freepages, compact: any, the allocation may reclaim */
};

static const struct {
	const char *name;
	size_t off;
	enum gap_kind kind;
	bool usec;		/* floored per thread: one more a thread */
} sum_fields[] = {
	{ "cpu_count", TS_OFF(cpu_count), ARRIVALS }, { "nvcsw", TS_OFF(nvcsw), SWITCHES },
	{ "nivcsw", TS_OFF(nivcsw), SWITCHES }, { "etime", TS_OFF(ac_etime), WALL, true },
	{ "utime", TS_OFF(ac_utime), CPU, true }, { "stime", TS_OFF(ac_stime), CPU, true },
	{ "cpu_run_virtual", TS_OFF(cpu_run_virtual_total), CPU },
	{ "cpu_run_real", TS_OFF(cpu_run_real_total), CPU },
	{ "cpu_scaled_run_real", TS_OFF(cpu_scaled_run_real_total), CPU },
	{ "cpu_delay_total", TS_OFF(cpu_delay_total), WALL },
	{ "blkio_count", TS_OFF(blkio_count), SAME },
	{ "blkio_delay_total", TS_OFF(blkio_delay_total), SAME },
	{ "swapin_count", TS_OFF(swapin_count), SAME },
	{ "swapin_delay_total", TS_OFF(swapin_delay_total), SAME },
	{ "thrashing_count", TS_OFF(thrashing_count), SAME },
	{ "thrashing_delay_total", TS_OFF(thrashing_delay_total), SAME },
	{ "wpcopy_count", TS_OFF(wpcopy_count), SAME },
	{ "wpcopy_delay_total", TS_OFF(wpcopy_delay_total), SAME },
	{ "freepages_count", TS_OFF(freepages_count), RECLAIM },
	{ "freepages_delay_total", TS_OFF(freepages_delay_total), RECLAIM },
	{ "compact_count", TS_OFF(compact_count), RECLAIM },
	{ "compact_delay_total", TS_OFF(compact_delay_total), RECLAIM },
};

static __u64 field(const struct taskstats *t, size_t off)
{
	return *(const __u64 *)((const char *)t + off);
}

/* The TGID record @tg of a group against its @n threads' PID records. */
static void check_sums(const struct rec *const *recs, size_t n, const struct rec *tg)
{
	__s64 d[ARRAY_SIZE(sum_fields)], arrivals, g, cpu_ns, wall_ns;
	__u64 sum[ARRAY_SIZE(sum_fields)] = { 0 };
	struct sum_tally *s = &tally.sums;
	size_t i, f;

	for (i = 0; i < n; i++)
		for (f = 0; f < ARRAY_SIZE(sum_fields); f++)
			sum[f] += field(&recs[i]->ts, sum_fields[f].off);
	for (f = 0; f < ARRAY_SIZE(sum_fields); f++)
		d[f] = sum[f] - field(&tg->ts, sum_fields[f].off);
	if (!tg->ts.ac_utime && !tg->ts.ac_stime && !tg->ts.ac_etime &&
	    !tg->ts.nvcsw && !tg->ts.nivcsw)
		tally.tgid_times_zero = true;
	arrivals = sched_info ? sum[0] - (tg->ts.nvcsw + tg->ts.nivcsw + n) : 0;
	g = d[1] + d[2];	/* [1] nvcsw, [2] nivcsw */
	cpu_ns = shared->span_ns + 2 * jiffy_ns;
	wall_ns = n * shared->span_ns;
	for (f = 0; f < ARRAY_SIZE(sum_fields); f++) {
		const __s64 div = sum_fields[f].usec ? NSEC_PER_USEC : 1;
		const __s64 floors = sum_fields[f].usec ? n : 0;
		const __s64 win[][2] = {
			[SAME] = { 0, 0 }, [SWITCHES] = { 0, g }, [RECLAIM] = { 0, INT64_MAX },
			[ARRIVALS] = { arrivals, preempt_rt ? INT64_MAX : arrivals },
			[CPU] = { 0, cpu_ns / div + floors },
			[WALL] = { 0, wall_ns / div + floors },
		};
		const __s64 lo = win[sum_fields[f].kind][0], hi = win[sum_fields[f].kind][1];

		if ((sum_fields[f].kind == CPU || sum_fields[f].kind == WALL) && sum[f] > 0 &&
		    (double)hi / sum[f] > s->share) {
			s->share = (double)hi / sum[f];
			s->share_field = sum_fields[f].name;
		}
		if (d[f] >= lo && d[f] <= hi)
			continue;
		if (!s->wrong++) {
			s->field = sum_fields[f].name;
			s->lo = lo;
			s->hi = hi;
			s->sum = sum[f];
			s->got = sum[f] - d[f];
		}
	}
	s->gap_switches += g;
	tally.sum_groups++;
	if (shared->span_ns > tally.span_max_ns)
		tally.span_max_ns = shared->span_ns;
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

/*
 * The records of child @pid: a PID record is matched to a thread it ran by
 * its pid (records of other processes' children are left out as foreign).
 */
static void judge_child(const struct harvest *h, pid_t pid, bool group)
{
	size_t nt = shared->threads + 1, mine = 0, i;
	const struct rec *tg = NULL, *agroup = NULL, **recs;
	__u64 tgids = 0, agroups = 0, dups = 0, unmatched = 0;
	pid_t *t, id;

	recs = calloc(nt, sizeof(*recs));
	if (!recs)
		ksft_exit_fail_msg("out of memory\n");
	qsort(shared->tid, nt, sizeof(*shared->tid), cmp_pid);
	for (i = 0; i < h->n; i++) {
		const struct rec *r = &h->recs[i];

		if (r->tgid) {
			if (r->id != (__u32)pid)
				continue;
			tgids++;
			tg = r;
			tally.tgid_version_zero += !r->ts.version;
			continue;
		}
		id = r->id;
		t = bsearch(&id, shared->tid, nt, sizeof(id), cmp_pid);
		if (!t) {
			if (!unmatched++ && !tally.unmatched)
				tally.unmatched_pid = id;
			continue;
		}
		if (recs[t - shared->tid]) {
			dups++;
			continue;
		}
		recs[t - shared->tid] = r;
		mine++;
		if (!tally.version)
			tally.version = r->ts.version;
		check_fields(h, r, pid, group ? WL_COMM : ST_COMM);
		if (r->ts.ac_flag & AGROUP) {
			agroups++;
			agroup = r;
		}
	}
	tally.dup_pid += dups;
	tally.unmatched += unmatched;
	tally.got_pid += mine;
	tally.expected_pid += nt;
	tally.threads += shared->threads;
	tally.groups += group;
	tally.singles += !group;
	tally.tgid_recs += group ? tgids : 0;
	tally.tgid_missing += group && !tgids;
	tally.tgid_extra += group ? tgids - !!tgids : tgids;
	/* the TGID record travels with the AGROUP one: a drop loses both */
	tally.agroup_missing += !agroups && !tg;
	tally.agroup_extra += agroups > 1 || (tg && (!agroup || agroup->msg != tg->msg));
	/* a record missing or extra would move a sum: only whole groups */
	if (group && tgids == 1 && mine == nt && !dups && !unmatched)
		check_sums(recs, nt, tg);
	free(recs);
}

static void records_phase(int cpu, double seconds)
{
	__u64 drops0 = socket_drops(nl_fd);
	struct harvest *h = &tally.h;
	pid_t pid;
	int i;

	for (i = 0; i < WL_CHILDREN; i++) {
		h->n = 0;
		pid = run_child(!(i % 2), cpu, seconds * 2 / WL_CHILDREN, h);
		if (!pid) {
			tally.skip = shared->no_thread;
			break;
		}
		judge_child(h, pid, !(i % 2));
	}
	tally.drops = socket_drops(nl_fd) - drops0;
	free(h->recs);
	h->recs = NULL;	/* tally.h keeps only the socket's counts */
	h->n = 0;
	h->cap = 0;
}

static struct {
	double ratio[COST_MAX_PAIRS], with_us[COST_MAX_PAIRS];
	double without_us[COST_MAX_PAIRS], null_us[COST_MAX_PAIRS];
	int pairs, syscalls;	/* syscalls: on an exit's path, -1 if not counted */
	const char *stopped;	/* before its time was up: why */
} cost;

static void *stamp_exit(void *arg)
{
	*(__u64 *)arg = intro_now_ns();
	return NULL;
}

static void *signal_exit(void *arg)
{
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR2);
	return NULL;
}

/*
 * The syscalls on a thread's exit path are its libc's (glibc's start_thread()
 * makes rt_sigprocmask(), madvise() and exit(); musl and bionic others), so
 * they are counted: a traced child's thread signals itself and returns, and
 * its syscall stops after that signal are its exit's (the exit's entry pairs
 * with the joiner's return from futex()). Return: the count, or -1.
 */
static int exit_path_syscalls(void)
{
	int status, sig, stops = 0, n = -1;
	pid_t pid = intro_fork(), tid;
	bool after = false;
	pthread_t t;

	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP) ||
		    pthread_create(&t, &small_stack, signal_exit, NULL) || pthread_join(t, NULL))
			_exit(1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) {
		intro_kill_wait(pid);
		return -1;
	}
	tid = pid;
	do {	/* the probe thread is traced from its creation (its SIGSTOP) */
		if (WIFSTOPPED(status)) {
			sig = WSTOPSIG(status);
			after |= tid != pid && sig == SIGUSR2;
			stops += after && sig == (SIGTRAP | 0x80);
			if (sig == SIGUSR2 || sig == SIGSTOP || (sig & ~0x80) == SIGTRAP)
				sig = 0;
			ptrace(tid == pid ? PTRACE_CONT : PTRACE_SYSCALL, tid, NULL, sig);
		} else if (tid != pid && after) {
			n = (stops + 1) / 2;
		}
	} while ((tid = waitpid(-1, &status, __WALL)) > 0 &&
		 !(tid == pid && (WIFEXITED(status) || WIFSIGNALED(status))));
	return n;
}

/*
 * Median us of COST_BLOCK thread exits, from the last instruction to the
 * joiner running (the futex wake-up in exit_mm() follows taskstats_exit()).
 * Return: 0 when a task limit refused the thread.
 */
static double exit_block_us(bool with)
{
	struct harvest h = { 0 };
	double us[COST_BLOCK];
	__u64 stamp;
	pthread_t tid;
	int i, err;

	err = listener_all(nl_fd, with);
	if (err) {
		errno = -err;
		ksft_exit_fail_perror("exit listener (de)registration");
	}
	for (i = 0; i < COST_BLOCK; i++) {
		err = pthread_create(&tid, &small_stack, stamp_exit, &stamp);
		if (err == EAGAIN)
			return 0;
		if (err || pthread_join(tid, NULL))
			ksft_exit_fail_msg("pthread_create/join: %d\n", err);
		us[i] = (intro_now_ns() - stamp) / 1e3;
	}
	if (!drain(nl_fd, &h))
		ksft_exit_fail_perror("read exit records");
	free(h.recs);
	return intro_median(us, COST_BLOCK, false);
}

/*
 * Pairs of blocks with and without the listener, ABBA: load hits both.
 * Each less its syscalls at a null one's cost; a pair whose reference is
 * not above them cannot pass.
 */
static void cost_phase(int cpu, double seconds)
{
	double a, b, null, us[NULL_BATCHES];
	__u64 t0 = intro_now_ns(), t1;
	int i, j, k;

	intro_pin(0, cpu);
	for (i = 0; i < COST_MAX_PAIRS && intro_now_ns() - t0 < seconds * NSEC_PER_SEC; i++) {
		cost.stopped = wait_for_room() ? NULL : NO_ROOM;
		if (cost.stopped)
			break;
		a = exit_block_us(i % 2);
		b = exit_block_us(!(i % 2));
		cost.stopped = !a || !b ? INTRO_NO_TASK : NULL;
		if (cost.stopped)
			break;
		/* a null syscall (getppid()): the median of batches */
		for (k = 0; k < NULL_BATCHES; k++) {
			t1 = intro_now_ns();
			for (j = 0; j < NULL_BATCH_CALLS; j++)
				syscall(SYS_getppid);
			us[k] = (intro_now_ns() - t1) / 1e3 / NULL_BATCH_CALLS;
		}
		cost.null_us[i] = intro_median(us, NULL_BATCHES, false);
		null = cost.syscalls * cost.null_us[i];
		cost.with_us[i] = (i % 2 ? a : b) - null;
		cost.without_us[i] = (i % 2 ? b : a) - null;
		cost.ratio[i] = cost.without_us[i] > 0 ?
				cost.with_us[i] / cost.without_us[i] : INFINITY;
		cost.pairs++;
	}
	listener_all(nl_fd, false);
}

/*
 * A cpulist in an NLA_STRING, with or without its NUL, naming the second
 * usable CPU (one CPU: the only one) or the first two; children exit on
 * those and a third (taskstats_exit() sends to the listeners of its CPU).
 */
static const char * const form_name[] = {
	"single_with_nul", "single_without_nul", "range_with_nul",
	"range_without_nul", "list_with_nul", "list_without_nul",
};

static int cpus[INTRO_MAX_CPUS], ncpus, nprobe;	/* probed: cpus[0..nprobe) */
static int nr_forms, single_cpu;

static struct cpumask_form {
	char mask[32];
	int err;		/* of the registration: 0 or -errno */
	int exits[FORM_MAX_CPUS];	/* children that exited on the CPU */
	int recs[FORM_MAX_CPUS];	/* and their records */
	int off_cpu;		/* children not on their CPU at exit */
	int refused;		/* children not forked: EAGAIN */
	bool wrong;		/* records or registration not as expected */
	__u64 enobufs, drops;
} forms[ARRAY_SIZE(form_name)];

static bool form_names(int i, int c)
{
	return c == single_cpu || (c == 0 && i >= 2);
}

/* The records form @i must deliver of the exits on cpus[@c]. */
static int form_expects(int i, int c)
{
	return form_names(i, c) ? forms[i].exits[c] : 0;
}

/* A child exited on @cpu: its pid, 0 if it ran elsewhere, -1: EAGAIN */
static pid_t exit_on_cpu(int cpu)
{
	pid_t pid = intro_fork();
	int status;

	if (pid < 0 && errno == EAGAIN)
		return -1;
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		intro_pin(0, cpu);
		_exit(sched_getcpu() != cpu);
	}
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_perror("waitpid");
	return WIFEXITED(status) && !WEXITSTATUS(status) ? pid : 0;
}

/* A socket of its own registered with form @i, children exit on each CPU. */
static void run_cpumask_form(int i)
{
	pid_t pid[FORM_MAX_CPUS][CPUMASK_EXITS_PER_CPU];
	struct cpumask_form *f = &forms[i];
	struct harvest h = { 0 };
	int fd, c, k;
	size_t r;

	if (i < 2)
		snprintf(f->mask, sizeof(f->mask), "%d", cpus[single_cpu]);
	else
		snprintf(f->mask, sizeof(f->mask), i < 4 ? "%d-%d" : "%d,%d", cpus[0], cpus[1]);
	fd = nl_socket();
	if (fd < 0) {
		errno = -fd;
		ksft_exit_fail_perror("netlink socket");
	}
	f->err = listener(fd, true, f->mask, strlen(f->mask) + !(i % 2));
	if (!f->err) {
		for (c = 0; c < nprobe; c++)
			for (k = 0; k < CPUMASK_EXITS_PER_CPU; k++) {
				pid[c][k] = exit_on_cpu(cpus[c]);
				f->exits[c] += pid[c][k] > 0;
				f->off_cpu += !pid[c][k];
				f->refused += pid[c][k] < 0;
			}
		if (!drain(fd, &h))
			ksft_exit_fail_perror("read exit records");
		for (r = 0; r < h.n; r++)
			for (c = 0; c < nprobe; c++)
				for (k = 0; k < CPUMASK_EXITS_PER_CPU; k++)
					f->recs[c] += !h.recs[r].tgid && pid[c][k] > 0 &&
						      h.recs[r].id == (__u32)pid[c][k];
	}
	for (c = 0; c < nprobe; c++)
		f->wrong |= f->err || f->recs[c] != form_expects(i, c);
	listener_all(fd, false);
	f->enobufs = h.enobufs;
	f->drops = socket_drops(fd);
	close(fd);
	free(h.recs);
}

#define TGID_VERSION_FIX	"16c4f0211aaa"
#define V15_FIX			"0bf2d838de1f"
#define DEAD_THREADS_FIX	"taskstats_retain_dead_thread_stats_in_TGID_queries"
#define CPUMASK_FIX		"taskstats_fix_cpumask_parsing_cutting_off_the_last_character"

static bool records_dropped(void)
{
	return tally.h.enobufs || tally.drops;
}

/*
 * A drop loses records but never makes one (a duplicate, a record of a
 * thread not run, a second TGID record): only a shortfall can be a drop's.
 */
static int records_verdict(bool extra, bool missing, bool judged, const char **reason)
{
	if (extra || (missing && !records_dropped()))
		return KSFT_FAIL;
	if (missing)
		*reason = "socket dropped records";
	else if (!judged)
		*reason = tally.skip ?: "no workload child ran";
	return *reason ? KSFT_SKIP : KSFT_PASS;
}

static int check_complete(const char *name, const char **reason)
{
	ksft_print_msg("%s: groups=%d threads=%llu foreign=%llu enobufs=%llu drops=%llu\n",
		       name, tally.groups, tally.threads, tally.h.foreign, tally.h.enobufs,
		       tally.drops);
	if (tally.unmatched)
		ksft_print_msg("%s: first_unmatched_pid=%d\n", name, tally.unmatched_pid);
	intro_figures(name,
		      "pid_records=%llu expected=%llu dup_tids=%llu unmatched=%llu truncated=%llu",
		      tally.got_pid, tally.expected_pid, tally.dup_pid, tally.unmatched,
		      tally.h.truncated);
	return records_verdict(tally.dup_pid || tally.unmatched || tally.h.truncated,
			       tally.got_pid < tally.expected_pid,
			       tally.groups + tally.singles, reason);
}

static int check_one_tgid(const char *name, const char **reason)
{
	ksft_print_msg("%s: agroup_missing=%llu agroup_extra=%llu\n",
		       name, tally.agroup_missing, tally.agroup_extra);
	intro_figures(name, "tgid_records=%llu groups=%d groups_without=%llu tgid_extra=%llu",
		      tally.tgid_recs, tally.groups, tally.tgid_missing, tally.tgid_extra);
	return records_verdict(tally.tgid_extra || tally.agroup_extra,
			       tally.tgid_missing || tally.agroup_missing, tally.groups, reason);
}

/* Version 0 TGID records and version 15 fail, naming the fix. */
static int check_sane(const char *name, const char **reason)
{
	bool judged = tally.checked;

	ksft_print_msg("%s: stats_len=%zu header_len=%zu\n", name,
		       tally.h.stats_len, sizeof(struct taskstats));
	if (tally.bad_fields)
		ksft_print_msg("%s: first_bad=%s first_bad_tid=%u\n", name,
			       tally.first_bad, tally.first_bad_tid);
	intro_figures(name, "version=%u checked=%llu bad=%llu tgid_version_zero=%llu%s%s",
		      tally.version, tally.checked, tally.bad_fields, tally.tgid_version_zero,
		      tally.tgid_version_zero ? " fix_commit=" TGID_VERSION_FIX : "",
		      tally.version == V15 ? " fix_commit=" V15_FIX : "");
	if (tally.bad_fields || tally.tgid_version_zero || tally.version == V15)
		return KSFT_FAIL;
	if (!judged)
		*reason = tally.skip ?: "no records of the workload received";
	return judged ? KSFT_PASS : KSFT_SKIP;
}

static int check_sums_verdict(const char *name, const char **reason)
{
	const struct sum_tally *s = &tally.sums;

	ksft_print_msg("%s: groups=%llu gap_switches=%llu tgid_times_zero=%d\n",
		       name, tally.sum_groups, s->gap_switches, tally.tgid_times_zero);
	ksft_print_msg("%s: span_max_us=%llu window_share_max=%.4f window_share_field=%s\n",
		       name, tally.span_max_ns / NSEC_PER_USEC, s->share,
		       s->share_field ?: "none");
	if (s->wrong)
		ksft_print_msg("%s: field=%s expected_min=%lld expected_max=%lld read=%llu\n",
			       name, s->field, s->sum - s->hi, s->sum - s->lo, s->got);
	intro_figures(name, "wrong_fields=%llu%s", s->wrong,
		      s->wrong && tally.tgid_times_zero ? " fix_subject=" DEAD_THREADS_FIX : "");
	if (s->wrong)
		return KSFT_FAIL;
	if (!tally.sum_groups)
		*reason = tally.skip ?: records_dropped() ? "socket dropped records" :
			  "no thread group with all its records";
	return *reason ? KSFT_SKIP : KSFT_PASS;
}

static int check_exit_cost(const char *name, const char **reason)
{
	double ratio = intro_median(cost.ratio, cost.pairs, false);
	double without = intro_median(cost.without_us, cost.pairs, false);
	double null = intro_median(cost.null_us, cost.pairs, false);
	double share = without / (without + cost.syscalls * null);

	ksft_print_msg("%s: pairs=%d exits_per_block=%d with_net_us=%.2f without_net_us=%.2f\n",
		       name, cost.pairs, COST_BLOCK, intro_median(cost.with_us, cost.pairs, false),
		       without);
	ksft_print_msg("%s: ratio_p10=%.3f ratio_p90=%.3f exit_path_syscalls=%d\n", name,
		       intro_quantile(cost.ratio, cost.pairs, 0.1, false),
		       intro_quantile(cost.ratio, cost.pairs, 0.9, false), cost.syscalls);
	intro_figures(name,
		      "ratio=%.3f bound_hi_ratio=%.2f null_call_us=%.3f ref_net_share=%.2f",
		      ratio, EXIT_RATIO_MAX, null, share);
	if (cost.syscalls < 0)
		*reason = "exit path's syscalls not counted: ptrace or fork refused";
	else if (cost.pairs < COST_MIN_PAIRS)
		*reason = cost.stopped ?: "too few pairs of exit blocks in the time budget";
	else if (!(share >= REF_NET_MIN))
		*reason = "exit without listener is mostly syscall entry and exit";
	if (*reason)
		return KSFT_SKIP;
	if (ratio <= EXIT_RATIO_MAX)
		return KSFT_PASS;
	intro_print_log2_hist(name, cost.with_us, cost.pairs, "with_us");
	intro_print_log2_hist(name, cost.without_us, cost.pairs, "without_us");
	return KSFT_FAIL;
}

/*
 * Form @i as a verdict: a refusal or a record too many fails; a shortfall
 * fails unless the socket dropped records (@reason), and a named CPU that
 * saw no exit is not judged.
 */
static int form_verdict(int i, const char **reason)
{
	const struct cpumask_form *f = &forms[i];
	int c;

	for (c = 0; c < nprobe; c++)
		if (f->err || f->recs[c] > form_expects(i, c) ||
		    (f->recs[c] < form_expects(i, c) && !f->enobufs && !f->drops))
			return KSFT_FAIL;
	for (c = 0; c < nprobe; c++) {
		if (f->recs[c] < form_expects(i, c))
			*reason = "socket dropped records";
		else if (form_names(i, c) && !f->exits[c])
			*reason = f->refused ? INTRO_NO_TASK :
				  "a child did not exit on the CPU it was pinned to";
	}
	return *reason ? KSFT_SKIP : KSFT_PASS;
}

/* A form's figures; for a wrong one, each probed CPU's records. */
static void print_form(const char *name, int i)
{
	char unnamed[16] = "none";
	int c, got = 0, want = 0, other = 0;

	for (c = 0; c < nprobe; c++) {
		got += form_names(i, c) ? forms[i].recs[c] : 0;
		want += form_expects(i, c);
		other += form_names(i, c) ? 0 : forms[i].recs[c];
	}
	if (i < 2 || nprobe > 2)
		snprintf(unnamed, sizeof(unnamed), "%d", other);
	ksft_print_msg("%s: form=%s mask=%s errno=%d records=%d expected=%d records_unnamed=%s\n",
		       name, form_name[i], forms[i].mask, -forms[i].err, got, want, unnamed);
	for (c = 0; forms[i].wrong && !forms[i].err && c < nprobe; c++)
		ksft_print_msg("%s: form=%s cpu=%d named=%d records=%d\n",
			       name, form_name[i], cpus[c], form_names(i, c), forms[i].recs[c]);
}

/* Right with the NUL, wrong without: the last character cut (1f58a5335cdd). */
static int check_cpumask(const char *name, const char **reason)
{
	int i, n = nr_forms, bugs = 0, wrong = 0, nul_wrong = 0, einval = 0, off_cpu = 0;
	const char *unjudged = NULL, *why;
	__u64 enobufs = 0, drops = 0;

	for (i = 0; i < n; i++) {
		print_form(name, i);
		wrong += forms[i].wrong;
		nul_wrong += !(i % 2) && forms[i].wrong;
		einval += forms[i].err == -EINVAL;
		off_cpu += forms[i].off_cpu;
		enobufs += forms[i].enobufs;
		drops += forms[i].drops;
		why = NULL;
		bugs += form_verdict(i, &why) == KSFT_FAIL;
		unjudged = unjudged ?: why;
	}
	ksft_print_msg("%s: exits_per_cpu=%d off_cpu=%d enobufs=%llu drops=%llu\n",
		       name, CPUMASK_EXITS_PER_CPU, off_cpu, enobufs, drops);
	intro_figures(name, "forms=%d forms_wrong=%d nul_forms_wrong=%d refused_einval=%d%s",
		      n, wrong, nul_wrong, einval,
		      bugs && !nul_wrong ? " fix_subject=" CPUMASK_FIX : "");
	if (bugs)
		return KSFT_FAIL;
	*reason = unjudged;
	return unjudged ? KSFT_SKIP : KSFT_PASS;
}

static const struct {
	const char *name;
	int (*judge)(const char *name, const char **reason);
} checks[] = {
	{ "exit_records_complete", check_complete },
	{ "one_tgid_record_per_group", check_one_tgid },
	{ "record_fields_sane", check_sane },
	{ "tgid_sums_match_threads", check_sums_verdict },
	{ "listener_exit_latency", check_exit_cost },
	{ "register_cpumask_forms", check_cpumask },
};

/*
 * In the initial @ns namespace, as kthreadd is? -1: cannot tell. Without
 * that kind (CONFIG_NET_NS=n) there is no entry (fs/proc/namespaces.c).
 */
static int in_initial_ns(const char *ns)
{
	struct stat self, init;
	char path[32];

	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	if (stat(path, &self))
		return errno == ENOENT && !access("/proc/self/ns", F_OK) ? 1 : -1;
	snprintf(path, sizeof(path), "/proc/2/ns/%s", ns);
	if (stat(path, &init))
		return -1;
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

static const struct intro_prog prog = {
	.usage =
	"taskstats_tgid: the exit records a taskstats listener receives from\n"
	"children that create 32 threads at a time, and what the listener costs\n"
	"a thread exit (the 2006 regression: a TGID record on every exit).\n"
	"\n"
	"Checks:\n"
	"  exit_records_complete       one PID record per exited thread\n"
	"  one_tgid_record_per_group   one TGID record per thread group, none for\n"
	"                              single-threaded processes\n"
	"  record_fields_sane          version, pid, tgid, uid, comm, btime, exit code\n"
	"  tgid_sums_match_threads     TGID fields equal their PID records' sums but\n"
	"                              for what a thread is charged between the two\n"
	"                              (none for delay counts; cpu_count = nvcsw +\n"
	"                              nivcsw + threads)\n"
	"  listener_exit_latency       thread exit with / without listener <= 2.1\n"
	"  register_cpumask_forms      a listener registered for \"N\", \"A-B\" or\n"
	"                              \"A,B\", with or without the NUL, gets the\n"
	"                              exits of exactly those CPUs (two CPUs)\n"
	"\n"
	"Needs: root (CAP_NET_ADMIN) in the initial user, pid and network\n"
	"namespaces, CONFIG_TASKSTATS (without SCHED_INFO cpu_count is 0), tracing a\n"
	"child (an exit's syscalls are counted), room for a few tasks (groups\n"
	"are smaller where pids.max, RLIMIT_NPROC or kernel.threads-max refuse\n"
	"threads).\n",
	.min_scale = 0.3,
	.max_scale = 2.0,
};

int main(int argc, char **argv)
{
	struct sigaction sa = { 0 };
	struct harvest h = { 0 };
	struct intro_opts opts;
	bool seen = false;
	pid_t pid;
	int ret, result, f, delayacct = 0;
	const char *reason;
	char val[16];
	size_t i;

	intro_parse_opts(argc, argv, &prog, &opts);
	ksft_print_header();
	intro_print_env(&opts);
	if (intro_read_file("/proc/sys/kernel/task_delayacct", val, sizeof(val)) > 0)
		delayacct = atoi(val);
	if (intro_read_file("/sys/devices/system/cpu/possible", cpulist, sizeof(cpulist)) <= 0)
		snprintf(cpulist, sizeof(cpulist), "0-%ld", sysconf(_SC_NPROCESSORS_CONF) - 1);
	ksft_print_msg("taskstats: task_delayacct=%d possible_cpus=%s header_version=%d\n",
		       delayacct, cpulist, TASKSTATS_VERSION);
	if (TASKSTATS_VERSION == V15)
		ksft_exit_skip("built with struct taskstats version 15, withdrawn by %s\n",
			       V15_FIX);

	nl_fd = nl_socket();
	/* sk_setsockopt(): SO_RCVBUFFORCE needs CAP_NET_ADMIN */
	if (nl_fd == -EPERM)
		ksft_exit_skip("forced netlink receive buffer needs CAP_NET_ADMIN\n");
	if (nl_fd == -EPROTONOSUPPORT || nl_fd == -EAFNOSUPPORT)
		ksft_exit_skip("no generic netlink socket (errno %d)\n", -nl_fd);
	if (nl_fd < 0) {
		errno = -nl_fd;
		ksft_exit_fail_perror("generic netlink socket");
	}
	ts_family = nl_request(nl_fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			       CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
			       sizeof(TASKSTATS_GENL_NAME));
	if (ts_family == -ENOENT)
		ksft_exit_skip("no taskstats family: no CONFIG_TASKSTATS, or not init_net\n");
	if (ts_family <= 0) {
		errno = -ts_family;
		ksft_exit_fail_perror("resolve the taskstats family");
	}
	ret = listener_all(nl_fd, true);
	/* GENL_ADMIN_PERM: netlink_capable(), i.e. capable() in init_user_ns */
	if (ret == -EPERM)
		ksft_exit_skip("listener needs CAP_NET_ADMIN in the initial user namespace\n");
	/* add_del_listener() refuses other user and pid namespaces */
	if (ret == -EINVAL && (in_initial_ns("user") != 1 || in_initial_ns("pid") != 1))
		ksft_exit_skip("listener refused outside the initial user and pid namespaces\n");
	if (ret) {
		errno = -ret;
		ksft_exit_fail_perror("register exit listener");
	}

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	ncpus = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	if (ncpus < 1)
		ksft_exit_fail_perror("sched_getaffinity");
	nprobe = ncpus < FORM_MAX_CPUS ? ncpus : FORM_MAX_CPUS;
	nr_forms = nprobe > 1 ? ARRAY_SIZE(form_name) : 2;
	single_cpu = nprobe > 1;
	pthread_attr_init(&small_stack);
	pthread_attr_setstacksize(&small_stack, WL_STACK_BYTES);
	/* the reader on the first usable CPU, the workload on the last */
	intro_pin(0, cpus[0]);
	/* a group's span ends when it is reaped: no nap past that */
	sa.sa_handler = child_exited;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	/* records go to init_net only (send_cpu_listeners()): does one arrive? */
	pid = run_child(false, cpus[ncpus - 1], 0, &h);
	if (!pid)
		ksft_exit_skip("%s\n", INTRO_NO_TASK);
	for (i = 0; i < h.n; i++)
		seen |= !h.recs[i].tgid && h.recs[i].id == (__u32)pid;
	free(h.recs);
	/* in init_net, a kernel that delivers none fails the record checks */
	if (!seen && in_initial_ns("net") != 1)
		ksft_exit_skip("no exit records delivered: not in the initial network namespace\n");
	jiffy_ns = intro_jiffy_ns();
	preempt_rt = !strcmp(intro_preempt_model(), "rt");
	sched_info = !access("/proc/self/schedstat", F_OK);
	ksft_print_msg("taskstats: memcg_room_kb=%lld\n",
		       memcg_room() == LLONG_MAX ? -1 : memcg_room() / 1024);

	ksft_set_plan(ARRAY_SIZE(checks));
	records_phase(cpus[ncpus - 1], RECORDS_S * opts.scale);
	cost.syscalls = exit_path_syscalls();
	if (cost.syscalls >= 0)
		cost_phase(cpus[ncpus - 1], COST_S * opts.scale);
	for (f = 0; f < nr_forms; f++)
		run_cpumask_form(f);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		reason = NULL;
		result = checks[i].judge(checks[i].name, &reason);
		intro_report(checks[i].name, result, reason);
	}
	ksft_finished();
}
