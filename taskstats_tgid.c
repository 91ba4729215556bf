// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_tgid - the taskstats exit records of a thread-creating workload:
 * every record arrives, one TGID record per thread group, the records make
 * sense, and an exit listener does not make thread exit expensive.
 *
 * Regression guarded: LKML, June 2006, "[Patch][RFC] Disabling per-tgid
 * stats on task exit in taskstats": a TGID record sent with the PID record
 * on every thread exit made a program creating 1000 threads at a time run
 * 2.5x longer under a listener, which saw ENOBUFS. Fixed in 2.6.18 by
 * ad4ecbcba728 ("delay accounting taskstats interface send tgid once").
 * Also caught: TGID exit records of version 0 (fixed by 16c4f0211aaa), TGID
 * records without the exited threads' times (fixed by "taskstats: retain
 * dead thread stats in TGID queries"), the version 15 layout that moved
 * fields (fixed by 0bf2d838de1f), and a REGISTER_CPUMASK string sent
 * without its NUL parsed one character short (fixed by "taskstats: fix
 * cpumask parsing cutting off the last character").
 *
 * Invariants (kernel/taskstats.c: taskstats_exit()): with an all-CPU
 * listener whose buffer cannot overrun, each exiting thread yields one PID
 * record; the last thread of a group that ever had two threads also yields
 * the group's one TGID record, in the message of its PID record flagged
 * AGROUP; the TGID record sums its threads' counters, each sampled before
 * that thread's PID record (so never more than their sum); and a listener
 * costs each exit a record, not a multiple of the exit's own cost. A
 * listener registered for a cpulist ("N", "A-B", "A,B"; NUL-terminated or
 * not) gets the exits of exactly those CPUs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/acct.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/taskstats.h>

#include "introspect_util.h"

/* ---- bounds ---------------------------------------------------------- */

/*
 * A queued exit record takes about 2.5 KiB of receive memory and the kernel
 * doubles SO_RCVBUFFORCE, so this holds three times the 8001 records of one
 * workload child: a reader that is descheduled a while loses none.
 */
#define RCVBUF_BYTES		(32 << 20)

/*
 * tgid_sums_match_threads: TGID / sum(PID) of each summed field. A thread is
 * added to the TGID record just before its PID record is filled, so healthy
 * ratios only fall short of 1 by a tick or a context switch (lowest 0.76);
 * above 1 (counted twice) or below half (threads lost) is a fault.
 */
#define SUM_RATIO_MIN		0.50
/* utime/stime are tick sampled: judged only over at least this many ticks */
#define SUM_MIN_TICKS		20

/*
 * listener_cpu_overhead: median CPU time with / without the listener over
 * interleaved pairs of the same child. Healthy kernels read 1.10 to 1.53;
 * 50 us more per exit under a listener reads about 2.7. Over the bound, a
 * run whose baseline CPU times spread more than BASELINE_SPREAD_MAX is a SKIP.
 */
#define CPU_RATIO_MAX		1.80
#define BASELINE_SPREAD_MAX	2.5

/*
 * listener_exit_latency: the exit latency a listener adds, per
 * TASKSTATS_CMD_GET round trip (which builds and sends the same record, so
 * the unit scales with the CPU and the config). Healthy kernels read 0.50 to
 * 1.27; 50 us more per exit reads 1.73 where exits are slow, 9.6 where fast.
 */
#define LAT_PER_QUERY_MAX	1.5
/*
 * Over the bound it is a SKIP when the pairs disagree (IQR above
 * LAT_SPREAD_MAX times the median), or when more than
 * LAT_INTERRUPTED_PCT_MAX % of the exits without a listener and of the
 * queries took over half a jiffy: the CPU was taken away (0 % on a quiet
 * host, up to 5 % on a loaded one).
 */
#define LAT_SPREAD_MAX		1.0
#define LAT_INTERRUPTED_PCT_MAX	0.5
#define OVERHEAD_MIN_PAIRS	5

/*
 * register_cpumask_forms: exact counts. Each named CPU must deliver the
 * records of the children that exited on it, the CPU not named none; two
 * exits a CPU tell a lost or doubled record (1 or 3) from a CPU the kernel
 * left out of the mask (0).
 */
#define CPUMASK_EXITS_PER_CPU	2

/* ---- workload shape -------------------------------------------------- */

#define WL_THREADS		32	/* threads alive at once, as in 2006 */
/*
 * Where pids.max, RLIMIT_NPROC or kernel.threads-max leave less room, the
 * groups have fewer threads and more rounds, as many exits in all. The
 * checks judge records and costs per exit, the same at any group size, and
 * a group of two threads still yields its TGID record; with less room the
 * workload checks skip, naming the limit.
 */
#define WL_MIN_THREADS		2
/*
 * A joined thread leaves pids.current, its user's task count and
 * nr_threads in release_task(), after the futex wake-up in exit_mm() that
 * ends pthread_join(): the next round may start while a few threads of the
 * last one are still in do_exit().
 */
#define TASKS_MARGIN		4
#define WL_GROUPS		3	/* multi-threaded children, records phase */
#define WL_SINGLES		6	/* single-threaded children */
#define WL_MAX_ROUNDS		250	/* records phase: 8000 exits a group */
#define WL_STACK_BYTES		(64 << 10)
#define WL_COMM			"tstgid_wl"
#define ST_COMM			"tstgid_st"
#define RUN_DEFAULT_S		14.0	/* whole-program budget at --scale 1 */
/*
 * --scale: at 0.3 a CPU 30 times slower still times OVERHEAD_MIN_PAIRS
 * pairs; the phases stop on time, not work, so at 2 the budget (28 s) and
 * the pair that overruns it end well inside the runner's 45 s timeout.
 */
#define MIN_SCALE		0.3
#define MAX_SCALE		2.0
#define RECORDS_SHARE		0.30	/* of the budget, records phase */
#define OVH_RUN_S		0.25	/* mkthreads part of one overhead run */
#define LAT_SHARE		1.0	/* an exit latency run, in OVH_RUN_S */
#define OVH_MAX_PAIRS		40
#define CHILD_TIMEOUT_S		30.0
#define LAT_MAX			1024	/* exit latency samples of each kind */
#define LAT_PER_BLOCK		16	/* exits timed a block, then queries */
#define LAT_QUERIES_PER_BLOCK	(LAT_PER_BLOCK / 2)
#define PAIR_RUNS_RESERVE	4	/* run times left to start a pair */
#define WORKER_LOOPS		200	/* a thread's work before it exits */
#define WORKER_MULT		2654435761UL	/* Knuth's hash: work kept */
#define SINGLE_EVERY		3	/* every third child single-threaded */
#define LISTENER_POLL_US	200	/* child waits for a listener change */
#define READER_NAP_US		1000	/* parent reads records between naps */
#define BTIME_SLACK_S		1	/* ac_btime has a resolution of 1 s */
#define RECS_FIRST_CAP		4096
/*
 * A form's socket also gets every other task's exit on the CPUs it names:
 * 4 MiB (8 once doubled) holds about 3000 records, the exits of a busy host
 * over the few ms to 1 s (TCG) that one form lasts.
 */
#define CPUMASK_RCVBUF_BYTES	(4 << 20)
#define CHILD_OFF_CPU		3	/* exit code: not on its CPU at exit */
#define FORM_MAX_CPUS		3	/* probed: two named, one not */

/* ---- netlink --------------------------------------------------------- */

#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif
#ifndef NLA_ALIGN
#define NLA_ALIGNTO		4
#define NLA_ALIGN(len)		(((len) + NLA_ALIGNTO - 1) & ~(NLA_ALIGNTO - 1))
#endif
#ifndef NLA_HDRLEN
#define NLA_HDRLEN		((int)NLA_ALIGN(sizeof(struct nlattr)))
#endif
#ifndef AGROUP
#define AGROUP			0x20
#endif

#define NL_BUF_BYTES		(64 << 10)
#define NL_REPLY_TIMEOUT_S	5
#define NL_GENL_VERSION		1

/* netlink sequence numbers: one range per kind of request */
enum {
	SEQ_GETFAMILY = 1,
	SEQ_DEREGISTER_AT_EXIT = 99,	/* sent without waiting for its ack */
	SEQ_LISTENER_FIRST = 100,	/* (de)registrations count up */
};

static int nl_fd = -1;
static int ts_family;
static char cpulist[256];
static char dereg_msg[512];
static size_t dereg_len;
static int registered;	/* __atomic: read by the signal handler */

struct nl_req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[384];
};

static size_t put_attr(struct nl_req *req, __u16 type, const void *data,
		       size_t len)
{
	struct nlattr *na = (struct nlattr *)((char *)req +
					      NLMSG_ALIGN(req->nlh.nlmsg_len));

	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	memcpy((char *)na + NLA_HDRLEN, data, len);
	req->nlh.nlmsg_len = NLMSG_ALIGN(req->nlh.nlmsg_len) +
			     NLA_ALIGN(na->nla_len);
	return req->nlh.nlmsg_len;
}

static void init_req(struct nl_req *req, __u16 type, uint8_t cmd,
		     __u32 seq)
{
	memset(req, 0, sizeof(*req));
	req->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	req->nlh.nlmsg_type = type;
	req->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req->nlh.nlmsg_seq = seq;
	req->genl.cmd = cmd;
	req->genl.version = NL_GENL_VERSION;
}

static int nl_send(int fd, const void *buf, size_t len)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	return 0;
}

/*
 * Wait for the reply to request @seq: the family id for CTRL_CMD_GETFAMILY
 * (@want_family), else the ack's error code (0 or -errno). Exit records that
 * arrive in between are not ours to judge here and are dropped: requests
 * are only sent while no workload runs.
 */
static int nl_wait_reply(int fd, __u32 seq, bool want_family)
{
	static char buf[NL_BUF_BYTES];
	struct nlmsghdr *nlh;
	struct nlattr *na;
	int len, rem;

	for (;;) {	/* SO_RCVTIMEO ends the wait */
		len = recv(fd, buf, sizeof(buf), 0);
		if (len < 0) {
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return -errno;
		}
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (e->error || !want_family)
					return e->error;
				continue;
			}
			if (!want_family)
				continue;
			na = (struct nlattr *)((char *)NLMSG_DATA(nlh) +
					       GENL_HDRLEN);
			rem = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
			while (rem >= (int)sizeof(*na) &&
			       na->nla_len >= sizeof(*na) && na->nla_len <= rem) {
				if (na->nla_type == CTRL_ATTR_FAMILY_ID)
					return *(__u16 *)((char *)na +
							     NLA_HDRLEN);
				rem -= NLA_ALIGN(na->nla_len);
				na = (struct nlattr *)((char *)na +
						       NLA_ALIGN(na->nla_len));
			}
		}
	}
}

/* A bound generic netlink socket whose replies time out: fd or -errno. */
static int nl_socket(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = NL_REPLY_TIMEOUT_S };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int nl_open(void)
{
	nl_fd = nl_socket();
	return nl_fd < 0 ? nl_fd : 0;
}

static int resolve_family(void)
{
	struct nl_req req;

	init_req(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, SEQ_GETFAMILY);
	put_attr(&req, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		 sizeof(TASKSTATS_GENL_NAME));
	if (nl_send(nl_fd, &req, req.nlh.nlmsg_len))
		return -errno;
	return nl_wait_reply(nl_fd, SEQ_GETFAMILY, true);
}

/*
 * (De)register socket @fd as exit listener for the CPUs of @mask, a cpulist
 * string sent as its first @len bytes: with its NUL or without.
 */
static int listener_request(int fd, bool reg, const char *mask, size_t len)
{
	static __u32 seq = SEQ_LISTENER_FIRST;
	struct nl_req req;
	int ret;

	init_req(&req, ts_family, TASKSTATS_CMD_GET, ++seq);
	put_attr(&req, reg ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK :
			     TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		 mask, len);
	ret = nl_send(fd, &req, req.nlh.nlmsg_len);
	return ret ? ret : nl_wait_reply(fd, seq, false);
}

/* (De)register the main socket as exit listener for all possible CPUs. */
static int listener_ctl(bool reg)
{
	int ret = listener_request(nl_fd, reg, cpulist, strlen(cpulist) + 1);

	if (!ret)
		__atomic_store_n(&registered, reg, __ATOMIC_RELEASE);
	return ret;
}

/* atexit() and SIGTERM/SIGINT: leave no listener behind (sendto is safe). */
static void deregister_now(void)
{
	if (__atomic_exchange_n(&registered, 0, __ATOMIC_ACQ_REL) &&
	    nl_fd >= 0 && dereg_len)
		nl_send(nl_fd, dereg_msg, dereg_len);
}

static void on_signal(int sig)
{
	deregister_now();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void prepare_deregister(void)
{
	struct nl_req req;

	init_req(&req, ts_family, TASKSTATS_CMD_GET, SEQ_DEREGISTER_AT_EXIT);
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	put_attr(&req, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpulist,
		 strlen(cpulist) + 1);
	memcpy(dereg_msg, &req, req.nlh.nlmsg_len);
	dereg_len = req.nlh.nlmsg_len;
	atexit(deregister_now);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
}

static __u64 socket_drops(int fd)
{
	__u32 mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

/* ---- records --------------------------------------------------------- */

/*
 * struct taskstats only grows at the end, except in version 15, which put a
 * max and a min after each delay total (0bf2d838de1f moved them to the end
 * as version 16). Records are copied into the layout of the header built
 * with: fields the kernel did not send stay 0, rec_has() says which it sent.
 */
#define V15			15
#define V15_INSERT_BYTES	(2 * sizeof(__u64))
static const size_t v15_inserts[] = {
	offsetof(struct taskstats, cpu_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, blkio_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, swapin_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, freepages_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, thrashing_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, compact_delay_total) + sizeof(__u64),
	offsetof(struct taskstats, wpcopy_delay_total) + sizeof(__u64),
#if TASKSTATS_VERSION >= 14
	offsetof(struct taskstats, irq_delay_total) + sizeof(__u64),
#endif
};

struct rec {
	struct taskstats ts;
	size_t have;		/* bytes of .ts the kernel sent */
	__u32 id;		/* TASKSTATS_TYPE_PID / _TGID value */
	__u32 msg;		/* index of the netlink message */
	bool tgid;
};

/* True if the kernel sent field @f (no record ends inside a field) */
#define rec_has(r, f) \
	((r)->have >= offsetof(struct taskstats, f) + sizeof(__u64))

static void normalise(struct rec *r, const char *raw, size_t len)
{
	size_t prev = 0, shift = 0, i, n, end, src;
	__u16 version;

	memset(&r->ts, 0, sizeof(r->ts));
	r->have = 0;
	if (len < sizeof(version))
		return;
	memcpy(&version, raw, sizeof(version));
	n = version == V15 ? ARRAY_SIZE(v15_inserts) : 0;
	for (i = 0; i <= n; i++) {
		end = i < n ? v15_inserts[i] : sizeof(r->ts);
		src = prev + shift;
		if (src >= len)
			break;
		if (end - prev > len - src)
			end = prev + (len - src);
		memcpy((char *)&r->ts + prev, raw + src, end - prev);
		r->have = end;
		shift += V15_INSERT_BYTES;
		prev = end;
	}
}

/* What the records phase and the overhead phase keep of one child. */
struct harvest {
	struct rec *recs;
	size_t n, cap;
	bool keep;		/* store records (else only count) */
	bool live;		/* read while the child runs */
	pid_t parent;
	__u32 msgs;
	__u64 pid_recs, tgid_recs, foreign, truncated, enobufs;
	__u16 version;	/* of the first PID record seen */
	size_t stats_len;	/* attribute length the kernel sent */
};

static void keep_rec(struct harvest *h, const struct rec *r)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : RECS_FIRST_CAP;
		h->recs = realloc(h->recs, h->cap * sizeof(*h->recs));
		if (!h->recs)
			ksft_exit_fail_msg("out of memory for records\n");
	}
	h->recs[h->n++] = *r;
}

static void parse_aggr(struct harvest *h, const struct nlattr *aggr,
		       __u32 msg)
{
	const struct nlattr *na = (const void *)((const char *)aggr +
						  NLA_HDRLEN);
	int rem = aggr->nla_len - NLA_HDRLEN;
	struct rec r = { .msg = msg };
	bool have_stats = false;

	r.tgid = aggr->nla_type == TASKSTATS_TYPE_AGGR_TGID;
	while (rem >= (int)sizeof(*na) && na->nla_len >= sizeof(*na) &&
	       na->nla_len <= rem) {
		const char *data = (const char *)na + NLA_HDRLEN;
		size_t dlen = na->nla_len - NLA_HDRLEN;

		if ((na->nla_type == TASKSTATS_TYPE_PID ||
		     na->nla_type == TASKSTATS_TYPE_TGID) &&
		    dlen >= sizeof(r.id)) {
			memcpy(&r.id, data, sizeof(r.id));
		} else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			normalise(&r, data, dlen);
			have_stats = true;
			if (!r.tgid && !h->version) {
				h->version = r.ts.version;
				h->stats_len = dlen;
			}
		}
		rem -= NLA_ALIGN(na->nla_len);
		na = (const void *)((const char *)na + NLA_ALIGN(na->nla_len));
	}
	if (!have_stats)
		return;
	/*
	 * Ours: PID records of a task whose parent is this process (only the
	 * workload children are), TGID records handed to the caller to match
	 * against the child pid.
	 */
	if (!r.tgid && (pid_t)r.ts.ac_ppid != h->parent) {
		h->foreign++;
		return;
	}
	if (r.tgid)
		h->tgid_recs++;
	else
		h->pid_recs++;
	if (h->keep)
		keep_rec(h, &r);
}

static void parse_datagram(struct harvest *h, const char *buf, int len)
{
	const struct nlmsghdr *nlh;

	for (nlh = (const void *)buf; NLMSG_OK(nlh, len);
	     nlh = NLMSG_NEXT(nlh, len)) {
		const struct genlmsghdr *g = NLMSG_DATA(nlh);
		const struct nlattr *na;
		int rem;

		if (nlh->nlmsg_type != ts_family ||
		    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
		    g->cmd != TASKSTATS_CMD_NEW)
			continue;
		h->msgs++;
		na = (const void *)((const char *)g + GENL_HDRLEN);
		rem = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
		while (rem >= (int)sizeof(*na) && na->nla_len >= sizeof(*na) &&
		       na->nla_len <= rem) {
			if (na->nla_type == TASKSTATS_TYPE_AGGR_PID ||
			    na->nla_type == TASKSTATS_TYPE_AGGR_TGID)
				parse_aggr(h, na, h->msgs);
			rem -= NLA_ALIGN(na->nla_len);
			na = (const void *)((const char *)na +
					    NLA_ALIGN(na->nla_len));
		}
	}
}

/* Read every record queued on @fd without blocking; false on a hard error. */
static bool drain(int fd, struct harvest *h)
{
	static char buf[NL_BUF_BYTES];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t len;

	for (;;) {
		len = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				h->enobufs++;
				continue;
			}
			return errno == EAGAIN || errno == EWOULDBLOCK;
		}
		if (mh.msg_flags & MSG_TRUNC)
			h->truncated++;
		parse_datagram(h, buf, (int)len);
	}
}

/* ---- workload -------------------------------------------------------- */

/* Filled by a workload child, read by the parent after reaping it. */
struct wl_shared {
	__u64 threads;	/* threads created and joined */
	__u64 rounds;
	__u64 run_ns;	/* first create .. last join */
	__u64 cpu_ns;	/* the child's CPU time at that point */
	int failed;		/* pthread_create/join failed */
	int create_err;		/* what pthread_create() returned then */
	/* exit latency blocks: the child asks, the parent (de)registers */
	int want_listener;
	unsigned int req_seq, ack_seq;
	int nlat[2], nget;
	__u32 lat_ns[2][LAT_MAX];	/* [0] without, [1] with listener */
	__u32 get_ns[LAT_MAX];	/* taskstats query round trips */
};

struct wl_job {
	int threads;		/* 0: single-threaded child */
	__u64 max_rounds;
	__u64 limit_ns;	/* stop creating rounds after this long */
	__u64 lat_limit_ns;	/* exit latency blocks, 0: none */
	int cpu;		/* pin the child there, -1: do not pin */
	const char *comm;
};

static struct wl_shared *shared;
static unsigned long sink;
static int wl_threads = WL_THREADS;	/* of a group, sized to the task limits */

/* A thread of the 2006 mkthreads: a little work, then exit. */
static void *worker(void *arg)
{
	unsigned long i, acc = (unsigned long)arg;

	for (i = 0; i < WORKER_LOOPS; i++)
		acc = acc * WORKER_MULT + i;
	__atomic_store_n(&sink, acc, __ATOMIC_RELAXED);
	return NULL;
}

/* The thread's last act before returning: stamp the time. */
static void *stamped_worker(void *arg)
{
	__u64 *stamp = arg;

	*stamp = intro_now_ns();
	return NULL;
}

/* Ask the parent to (de)register its exit listener and wait until done. */
static void request_listener(int want)
{
	__atomic_store_n(&shared->want_listener, want, __ATOMIC_RELEASE);
	__atomic_add_fetch(&shared->req_seq, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&shared->ack_seq, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&shared->req_seq, __ATOMIC_ACQUIRE))
		usleep(LISTENER_POLL_US);
}

/*
 * One TASKSTATS_CMD_GET round trip for this process, in ns (0: failed).
 * The reply is built by fill_stats() and sent by genlmsg_reply(): the
 * same work an exit listener adds to each exit, plus two system calls.
 */
static __u64 query_round_trip(__u32 seq)
{
	static char buf[NL_BUF_BYTES];
	__u32 pid = getpid();
	struct nl_req req;
	__u64 t0;

	init_req(&req, ts_family, TASKSTATS_CMD_GET, seq);
	req.nlh.nlmsg_flags = NLM_F_REQUEST;
	put_attr(&req, TASKSTATS_CMD_ATTR_PID, &pid, sizeof(pid));
	t0 = intro_now_ns();
	if (nl_send(nl_fd, &req, req.nlh.nlmsg_len) ||
	    recv(nl_fd, buf, sizeof(buf), 0) <= 0)
		return 0;
	return intro_now_ns() - t0;
}

/*
 * Exit latency: one thread at a time on the child's one CPU, from the
 * thread's last instruction to the joiner running again: the whole
 * do_exit() up to the futex wake-up in exit_mm(), which comes after
 * taskstats_exit(). Blocks with and without the listener alternate
 * (ABBA), so a drift of the CPU's speed hits both alike; each block
 * also times taskstats queries on the same CPU, the unit of the bound.
 */
static void exit_latency_blocks(const struct wl_job *job,
				pthread_attr_t *attr)
{
	__u64 stamp, t, t0 = intro_now_ns();
	pthread_t tid;
	int blk, i, with, err;

	if (nl_open()) {
		shared->failed = 1;
		return;
	}
	for (blk = 0; blk < 2 * LAT_MAX / LAT_PER_BLOCK; blk++) {
		if (!(blk % 2) && intro_now_ns() - t0 >= job->lat_limit_ns)
			break;
		with = !(((blk + 1) / 2) % 2);
		request_listener(with);
		for (i = 0; i < LAT_PER_BLOCK; i++) {
			stamp = 0;
			err = pthread_create(&tid, attr, stamped_worker, &stamp);
			if (err || pthread_join(tid, NULL)) {
				shared->create_err = err;
				shared->failed = 1;
				return;
			}
			t = intro_now_ns();
			if (shared->nlat[with] < LAT_MAX && stamp && t > stamp)
				shared->lat_ns[with][shared->nlat[with]++] =
					t - stamp;
			shared->threads++;
		}
		for (i = 0; i < LAT_QUERIES_PER_BLOCK; i++) {
			t = query_round_trip(blk * LAT_PER_BLOCK + i);
			if (!t) {
				shared->failed = 1;
				return;
			}
			if (shared->nget < LAT_MAX)
				shared->get_ns[shared->nget++] = t;
		}
	}
	request_listener(1);
}

static void child_main(const struct wl_job *job)
{
	pthread_t tid[WL_THREADS];
	pthread_attr_t attr;
	struct rusage ru;
	__u64 t0, r;
	int i, n, err;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	close(nl_fd);
	prctl(PR_SET_NAME, job->comm);
	if (job->cpu >= 0)
		intro_pin(0, job->cpu);
	if (!job->threads)
		_exit(0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WL_STACK_BYTES);
	t0 = intro_now_ns();
	for (r = 0; r < job->max_rounds; r++) {
		for (n = 0; n < job->threads; n++) {
			err = pthread_create(&tid[n], &attr, worker,
					     (void *)(unsigned long)n);
			if (err) {
				shared->create_err = err;
				shared->failed = 1;
				break;
			}
		}
		for (i = 0; i < n; i++)
			if (pthread_join(tid[i], NULL))
				shared->failed = 1;
		shared->threads += n;
		shared->rounds++;
		if (shared->failed || intro_now_ns() - t0 >= job->limit_ns)
			break;
	}
	shared->run_ns = intro_now_ns() - t0;
	if (!getrusage(RUSAGE_SELF, &ru))
		shared->cpu_ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
				 NSEC_PER_SEC +
				 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
				 NSEC_PER_USEC;
	if (job->lat_limit_ns)
		exit_latency_blocks(job, &attr);
	_exit(0);
}

/* What the parent saw of one child. */
struct wl_run {
	pid_t pid;
	struct wl_shared out;
	__u64 elapsed_ns;	/* fork .. reap */
	__s64 wall_start_s, wall_end_s;
	bool ok;
	bool refused;		/* fork or pthread_create: EAGAIN */
};

/* Serve the child's listener requests; false if (de)registering failed. */
static bool serve_listener_request(void)
{
	unsigned int req = __atomic_load_n(&shared->req_seq, __ATOMIC_ACQUIRE);
	int want;

	if (req == __atomic_load_n(&shared->ack_seq, __ATOMIC_ACQUIRE))
		return true;
	want = __atomic_load_n(&shared->want_listener, __ATOMIC_ACQUIRE);
	if (want != __atomic_load_n(&registered, __ATOMIC_ACQUIRE) &&
	    listener_ctl(want))
		return false;
	__atomic_store_n(&shared->ack_seq, req, __ATOMIC_RELEASE);
	return true;
}

/*
 * Fork a workload child, read records while it runs (@h: NULL for none),
 * reap it, then read what it left queued: taskstats_exit() runs before
 * exit_notify(), so every record is queued before wait4() can return.
 * The buffer holds a whole child's records, so a reader that naps between
 * reads loses none and costs the exiting threads no wake-ups. Overhead
 * runs (!h->live) read only after the child is gone: a busy reader beside
 * the child would slow it, which is not the kernel's cost.
 */
static void run_child(const struct wl_job *job, struct harvest *h,
		      struct wl_run *run)
{
	__u64 t0;
	pid_t got = 0;
	int status;

	memset(run, 0, sizeof(*run));
	memset(shared, 0, sizeof(*shared));
	run->wall_start_s = time(NULL);
	t0 = intro_now_ns();
	run->pid = intro_fork();
	if (run->pid < 0 && errno == EAGAIN) {
		run->refused = true;
		return;
	}
	if (run->pid < 0)
		ksft_exit_fail_perror("fork");
	if (!run->pid)
		child_main(job);
	for (;;) {
		usleep(READER_NAP_US);
		if ((h && h->live && !drain(nl_fd, h)) || !serve_listener_request())
			break;
		got = waitpid(run->pid, &status, WNOHANG);
		if (got == run->pid)
			break;
		if (got < 0 ||
		    intro_now_ns() - t0 > CHILD_TIMEOUT_S * NSEC_PER_SEC) {
			intro_kill_wait(run->pid);
			return;
		}
	}
	if (got != run->pid || (h && !drain(nl_fd, h))) {
		intro_kill_wait(run->pid);
		return;
	}
	run->elapsed_ns = intro_now_ns() - t0;
	run->wall_end_s = time(NULL);
	run->out = *shared;
	run->ok = WIFEXITED(status) && !WEXITSTATUS(status) &&
		  !run->out.failed;
	run->refused = run->out.create_err == EAGAIN;
}

/* ---- task limits ----------------------------------------------------- */

/*
 * copy_process() refuses a task with EAGAIN at any of three limits: the
 * pids.max of the cgroup or of a parent, RLIMIT_NPROC and threads-max.
 */
enum task_limit { LIMIT_PIDS_MAX, LIMIT_NPROC, LIMIT_THREADS_MAX, NR_LIMITS };

static const char * const limit_reason[NR_LIMITS] = {
	[LIMIT_PIDS_MAX] = "too few tasks allowed: pids.max",
	[LIMIT_NPROC] = "too few tasks allowed: RLIMIT_NPROC",
	[LIMIT_THREADS_MAX] = "too few tasks allowed: kernel.threads-max",
};

#define REFUSED_UNEXPLAINED	"thread or process creation refused with EAGAIN"
#define NO_LIMIT		LLONG_MAX
#define FIGURE_UNKNOWN		-1LL
#define NOT_COUNTED		-2LL	/* RLIMIT_NPROC does not apply */

/* How many more tasks each limit lets this process create, and why. */
struct task_room {
	long long room[NR_LIMITS];	/* NO_LIMIT where none applies */
	long long pids_max, pids_current;	/* the cgroup with the least room */
	long long nproc, nproc_tasks;	/* RLIMIT_NPROC, tasks of the real uid */
	bool nproc_exempt;
	long long threads_max, nr_threads;
};

/*
 * The phases whose checks skip as a whole, and why (NULL: they are judged).
 * register_cpumask_forms judges each form, so a refused child leaves only
 * its own form unjudged, for the reason in cpumask_refused.
 */
enum phase { PHASE_RECORDS, PHASE_PAIRS, PHASE_CPUMASK, NR_PHASES };

static const char *phase_skip[NR_PHASES];
static const char *cpumask_refused;

/* Capability @cap in the effective set; -1: unknown */
static int has_cap(int cap)
{
	char status[4096], *eff;

	if (intro_read_file("/proc/self/status", status, sizeof(status)) < 0)
		return -1;
	eff = strstr(status, "CapEff:");
	if (!eff)
		return -1;
	return (strtoull(eff + strlen("CapEff:"), NULL, 16) >> cap) & 1;
}

static long long read_ll(const char *path, long long none)
{
	char val[32];

	if (intro_read_file(path, val, sizeof(val)) <= 0)
		return FIGURE_UNKNOWN;
	return strcmp(val, "max") ? atoll(val) : none;
}

/*
 * pids_try_charge() charges the cgroup and each parent, so the room is the
 * least pids.max - pids.current of this process's pids cgroup and its
 * ancestors.
 */
static void pids_room(struct task_room *t)
{
	char dir[PATH_MAX], file[PATH_MAX + 16];
	long long max, cur;
	size_t top;

	if (!intro_cgroup_dir("pids", dir, &top))
		return;
	do {
		snprintf(file, sizeof(file), "%s/pids.max", dir);
		max = read_ll(file, NO_LIMIT);
		snprintf(file, sizeof(file), "%s/pids.current", dir);
		cur = read_ll(file, FIGURE_UNKNOWN);
		if (max >= 0 && max != NO_LIMIT && cur >= 0 &&
		    max - cur < t->room[LIMIT_PIDS_MAX]) {
			t->room[LIMIT_PIDS_MAX] = max - cur;
			t->pids_max = max;
			t->pids_current = cur;
		}
	} while (intro_cgroup_parent(dir, top));
}

/* Tasks (threads) of real uid @uid: the count RLIMIT_NPROC is held to. */
static long long uid_tasks(uid_t uid)
{
	char path[PATH_MAX], status[4096], *p;
	long long n = 0;
	struct dirent *d;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return FIGURE_UNKNOWN;
	while ((d = readdir(proc))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", d->d_name);
		if (intro_read_file(path, status, sizeof(status)) < 0)
			continue;
		p = strstr(status, "\nUid:");
		if (!p || strtoul(p + strlen("\nUid:"), NULL, 10) != uid)
			continue;
		p = strstr(status, "\nThreads:");
		if (p)
			n += atoll(p + strlen("\nThreads:"));
	}
	closedir(proc);
	return n;
}

/*
 * copy_process() holds the real uid's tasks to RLIMIT_NPROC unless that uid
 * is the initial namespace's root or the caller has CAP_SYS_RESOURCE or
 * CAP_SYS_ADMIN (capable(): the listener already proved the initial user
 * namespace); every task counts against threads-max.
 */
static void read_task_room(struct task_room *t)
{
	char loadavg[128];
	struct rlimit rl;
	int i;

	*t = (struct task_room){ .pids_max = NO_LIMIT, .pids_current = FIGURE_UNKNOWN,
				 .nproc = NO_LIMIT, .nproc_tasks = NOT_COUNTED };
	for (i = 0; i < NR_LIMITS; i++)
		t->room[i] = NO_LIMIT;
	pids_room(t);
	t->nproc_exempt = !getuid() || has_cap(CAP_SYS_RESOURCE) == 1 ||
			  has_cap(CAP_SYS_ADMIN) == 1;
	if (!getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY)
		t->nproc = rl.rlim_cur;
	if (!t->nproc_exempt && t->nproc != NO_LIMIT)
		t->nproc_tasks = uid_tasks(getuid());
	if (t->nproc_tasks >= 0)
		t->room[LIMIT_NPROC] = t->nproc - t->nproc_tasks;
	t->threads_max = read_ll("/proc/sys/kernel/threads-max", NO_LIMIT);
	/* the fourth field of loadavg is running/nr_threads */
	if (intro_read_file("/proc/loadavg", loadavg, sizeof(loadavg)) < 0 ||
	    sscanf(loadavg, "%*s %*s %*s %*d/%lld", &t->nr_threads) != 1)
		t->nr_threads = FIGURE_UNKNOWN;
	if (t->threads_max >= 0 && t->nr_threads >= 0)
		t->room[LIMIT_THREADS_MAX] = t->threads_max - t->nr_threads;
}

static enum task_limit tightest(const struct task_room *t)
{
	enum task_limit l, min = LIMIT_PIDS_MAX;

	for (l = 0; l < NR_LIMITS; l++)
		if (t->room[l] < t->room[min])
			min = l;
	return min;
}

/* A figure for a "# tasks:" line: a number or a token. */
static const char *task_figure(long long v, char *buf, size_t len)
{
	if (v == NO_LIMIT)
		return "unlimited";
	if (v == FIGURE_UNKNOWN)
		return "unknown";
	if (v == NOT_COUNTED)
		return "not_counted";
	snprintf(buf, len, "%lld", v);
	return buf;
}

static void print_task_room(const struct task_room *t)
{
	char b[3][24];

	ksft_print_msg("tasks: pids_max=%s pids_current=%s pids_headroom=%s\n",
		       task_figure(t->pids_max, b[0], sizeof(b[0])),
		       task_figure(t->pids_current, b[1], sizeof(b[1])),
		       task_figure(t->room[LIMIT_PIDS_MAX], b[2], sizeof(b[2])));
	ksft_print_msg("tasks: nproc=%s nproc_tasks=%s nproc_exempt=%d nproc_headroom=%s\n",
		       task_figure(t->nproc, b[0], sizeof(b[0])),
		       task_figure(t->nproc_tasks, b[1], sizeof(b[1])),
		       t->nproc_exempt,
		       task_figure(t->room[LIMIT_NPROC], b[2], sizeof(b[2])));
	ksft_print_msg("tasks: threads_max=%s nr_threads=%s threads_max_headroom=%s\n",
		       task_figure(t->threads_max, b[0], sizeof(b[0])),
		       task_figure(t->nr_threads, b[1], sizeof(b[1])),
		       task_figure(t->room[LIMIT_THREADS_MAX], b[2], sizeof(b[2])));
}

/*
 * Size the groups to the room the limits leave this process: a group's
 * threads, its process and TASKS_MARGIN. NULL, or why the workload checks
 * cannot decide.
 */
static const char *size_workload(void)
{
	struct task_room t;
	enum task_limit l;

	read_task_room(&t);
	l = tightest(&t);
	if (t.room[l] < WL_THREADS + 1 + TASKS_MARGIN)
		wl_threads = t.room[l] > 1 + TASKS_MARGIN ?
			     t.room[l] - 1 - TASKS_MARGIN : 0;
	print_task_room(&t);
	ksft_print_msg("tasks: workload_threads=%d wanted_threads=%d min_threads=%d margin=%d\n",
		       wl_threads, WL_THREADS, WL_MIN_THREADS, TASKS_MARGIN);
	return wl_threads < WL_MIN_THREADS ? limit_reason[l] : NULL;
}

/*
 * A fork or pthread_create() in @phase, which needs @tasks at a time, was
 * refused with EAGAIN, which other tasks under the same limit can cause at
 * any time: the limit that leaves too little room for them is named, else
 * none is.
 */
static const char *refused_reason(const char *phase, int tasks)
{
	struct task_room t;
	enum task_limit l;

	read_task_room(&t);
	l = tightest(&t);
	ksft_print_msg("tasks: refused_errno=%d phase=%s needed=%d\n",
		       EAGAIN, phase, tasks + TASKS_MARGIN);
	print_task_room(&t);
	return t.room[l] < tasks + TASKS_MARGIN ? limit_reason[l] :
	       REFUSED_UNEXPLAINED;
}

/* ---- measurement ----------------------------------------------------- */

struct record_tally {
	int groups, singles;
	__u64 threads, expected_pid, got_pid, tgid_recs, tgid_expected;
	__u64 single_tgid, group_tgid_bad, agroup_bad, dup_pid, foreign;
	__u64 enobufs, drops, truncated, run_ns;
	__u16 version;
	size_t stats_len;
	/* record_fields_sane */
	__u64 bad_fields, checked, tgid_version_zero;
	const char *first_bad;	/* field name */
	__u32 first_bad_tid;
	/* tgid_sums_match_threads, over all groups */
	__u64 sum_groups, sum_over;
	double ratio_min;
	const char *ratio_field, *over_field;
	bool tgid_times_zero;
	__u64 delay_mismatch, delay_fields;
};

static struct record_tally tally;
static __u64 jiffy_us;

static void note_bad(const char *what, __u32 id)
{
	tally.bad_fields++;
	if (!tally.first_bad) {
		tally.first_bad = what;
		tally.first_bad_tid = id;
	}
}

/* record_fields_sane on one PID record of child @run. */
static void check_fields(const struct rec *r, const struct wl_run *run,
			 const char *comm, __u16 version)
{
	const struct taskstats *t = &r->ts;

	tally.checked++;
	if (t->version != version || !t->version)
		note_bad("version", r->id);
	if (rec_has(r, ac_pid) && t->ac_pid != r->id)
		note_bad("ac_pid", r->id);
	if (rec_has(r, ac_tgid) && t->ac_tgid != (__u32)run->pid)
		note_bad("ac_tgid", r->id);
	if (rec_has(r, ac_uid) && t->ac_uid != getuid())
		note_bad("ac_uid", r->id);
	if (rec_has(r, ac_comm) &&
	    strncmp(t->ac_comm, comm, sizeof(t->ac_comm)))
		note_bad("ac_comm", r->id);
	if (rec_has(r, ac_btime) &&
	    ((__s64)t->ac_btime < run->wall_start_s - BTIME_SLACK_S ||
	     (__s64)t->ac_btime > run->wall_end_s + BTIME_SLACK_S))
		note_bad("ac_btime", r->id);
	if (rec_has(r, ac_btime64) && t->ac_btime64 != t->ac_btime)
		note_bad("ac_btime64", r->id);
	if (rec_has(r, ac_exitcode) && t->ac_exitcode)
		note_bad("ac_exitcode", r->id);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return (x > y) - (x < y);
}

/* One summed field of one group: TGID / sum(PID), the lowest kept. */
static void sum_ratio(const char *field, __u64 tgid, __u64 sum)
{
	double ratio;

	if (tgid > sum) {
		tally.sum_over++;
		if (!tally.over_field)
			tally.over_field = field;
	}
	if (!sum)
		return;
	ratio = (double)tgid / (double)sum;
	if (!tally.ratio_field || ratio < tally.ratio_min) {
		tally.ratio_min = ratio;
		tally.ratio_field = field;
	}
}

/* The sums of one multi-threaded child against its TGID record. */
static void check_sums(const struct harvest *h, const struct rec *tg,
		       const struct wl_run *run)
{
	struct taskstats sum = { 0 };
	const struct taskstats *t;
	size_t i;

	for (i = 0; i < h->n; i++) {
		t = &h->recs[i].ts;
		if (h->recs[i].tgid || (rec_has(&h->recs[i], ac_tgid) &&
					t->ac_tgid != (__u32)run->pid))
			continue;
		sum.cpu_count += t->cpu_count;
		sum.nvcsw += t->nvcsw;
		sum.nivcsw += t->nivcsw;
		sum.ac_utime += t->ac_utime + t->ac_stime;
		sum.ac_etime += t->ac_etime;
		sum.cpu_run_real_total += t->cpu_run_real_total;
		sum.cpu_run_virtual_total += t->cpu_run_virtual_total;
		sum.blkio_count += t->blkio_count + t->swapin_count +
				   t->freepages_count + t->thrashing_count +
				   t->compact_count + t->wpcopy_count;
	}
	t = &tg->ts;
	if (!t->ac_utime && !t->ac_stime && !t->ac_etime && !t->nvcsw &&
	    !t->nivcsw && sum.ac_etime)
		tally.tgid_times_zero = true;
	sum_ratio("cpu_count", t->cpu_count, sum.cpu_count);
	sum_ratio("nvcsw", t->nvcsw, sum.nvcsw);
	sum_ratio("nivcsw", t->nivcsw, sum.nivcsw);
	/* tick-sampled: judged only over enough ticks (too few: left out) */
	if (sum.ac_utime >= SUM_MIN_TICKS * jiffy_us) {
		sum_ratio("utime_stime", t->ac_utime + t->ac_stime,
			  sum.ac_utime);
		sum_ratio("cpu_run_real", t->cpu_run_real_total,
			  sum.cpu_run_real_total);
	}
	sum_ratio("etime", t->ac_etime, sum.ac_etime);
	sum_ratio("cpu_run_virtual", t->cpu_run_virtual_total,
		  sum.cpu_run_virtual_total);
	tally.sum_groups++;
	tally.delay_fields++;
	if (sum.blkio_count != t->blkio_count + t->swapin_count +
			       t->freepages_count + t->thrashing_count +
			       t->compact_count + t->wpcopy_count)
		tally.delay_mismatch++;
}

/* Judge the records of one child: counts, TGID placement, fields, sums. */
static void judge_child(struct harvest *h, const struct wl_run *run,
			const struct wl_job *job)
{
	const struct rec *tg = NULL, *agroup = NULL;
	__u64 mine = 0, tgids = 0, agroups = 0;
	__u32 *tids;
	size_t i, k = 0;

	tids = calloc(h->n + 1, sizeof(*tids));
	if (!tids)
		ksft_exit_fail_msg("out of memory\n");
	for (i = 0; i < h->n; i++) {
		const struct rec *r = &h->recs[i];

		if (r->tgid) {
			if (r->id != (__u32)run->pid)
				continue;
			tgids++;
			tg = r;
			if (r->ts.version == 0)
				tally.tgid_version_zero++;
			continue;
		}
		if (rec_has(r, ac_tgid) && r->ts.ac_tgid != (__u32)run->pid)
			continue;
		mine++;
		tids[k++] = r->id;
		check_fields(r, run, job->comm, tally.version);
		if (r->ts.ac_flag & AGROUP) {
			agroups++;
			agroup = r;
		}
	}
	qsort(tids, k, sizeof(*tids), cmp_u32);
	for (i = 1; i < k; i++)
		if (tids[i] == tids[i - 1])
			tally.dup_pid++;
	free(tids);

	tally.got_pid += mine;
	tally.expected_pid += run->out.threads + 1;
	tally.threads += run->out.threads;
	tally.run_ns += run->out.run_ns;
	if (!job->threads) {
		tally.single_tgid += tgids;
	} else {
		tally.tgid_recs += tgids;
		tally.tgid_expected++;
		if (tgids != 1)
			tally.group_tgid_bad++;
	}
	/* the group-exit record: one AGROUP, in the TGID record's message */
	if (agroups != 1 || (tg && (!agroup || agroup->msg != tg->msg)))
		tally.agroup_bad++;
	if (job->threads && tgids == 1)
		check_sums(h, tg, run);
}

static void records_phase(int cpu_child, double seconds)
{
	struct harvest h = { .keep = true, .live = true, .parent = getpid() };
	struct wl_job job;
	struct wl_run run;
	__u64 drops0 = socket_drops(nl_fd);
	int i, n = WL_GROUPS + WL_SINGLES;

	for (i = 0; i < n; i++) {
		bool group = i % SINGLE_EVERY != SINGLE_EVERY - 1 &&
			     tally.groups < WL_GROUPS;

		if (!group && tally.singles >= WL_SINGLES)
			group = true;
		job = (struct wl_job){
			.threads = group ? wl_threads : 0,
			.max_rounds = WL_MAX_ROUNDS * WL_THREADS / wl_threads,
			.limit_ns = seconds * NSEC_PER_SEC / (WL_GROUPS + 1),
			.cpu = cpu_child,
			.comm = group ? WL_COMM : ST_COMM,
		};
		h.n = 0;
		run_child(&job, &h, &run);
		if (run.refused) {
			phase_skip[PHASE_RECORDS] = refused_reason("records", wl_threads + 1);
			break;
		}
		if (!run.ok)
			ksft_exit_fail_msg("workload child failed\n");
		if (!tally.version) {
			tally.version = h.version;
			tally.stats_len = h.stats_len;
		}
		judge_child(&h, &run, &job);
		if (group)
			tally.groups++;
		else
			tally.singles++;
	}
	tally.enobufs = h.enobufs;
	tally.truncated = h.truncated;
	tally.foreign = h.foreign;
	tally.drops = socket_drops(nl_fd) - drops0;
	free(h.recs);
}

struct pair_figures {
	double cpu_ratio[OVH_MAX_PAIRS], wall_ratio[OVH_MAX_PAIRS];
	double cpu_ratio_x100[OVH_MAX_PAIRS];	/* for the histogram */
	double base_cpu_s[OVH_MAX_PAIRS], lat_ratio[OVH_MAX_PAIRS];
	double lat_us[2][OVH_MAX_PAIRS], get_us[OVH_MAX_PAIRS];
	double interrupted_pct[OVH_MAX_PAIRS];	/* samples > J/2 */
	int pairs, lat_samples;
	__u64 rounds, exits;
	double exits_per_s;
};

static struct pair_figures ovh;

static double median_us(const __u32 *ns, int n)
{
	double v[LAT_MAX];
	int i;

	for (i = 0; i < n; i++)
		v[i] = ns[i] / 1e3;
	return intro_median(v, n, false);
}

/* How many of @n samples (ns) exceed @limit_ns. */
static int count_above(const __u32 *ns, int n, __u64 limit_ns)
{
	int i, above = 0;

	for (i = 0; i < n; i++)
		above += ns[i] > limit_ns;
	return above;
}

static void print_pair(int i, const struct wl_run *with,
		       const struct wl_run *without)
{
	ksft_print_msg("pair: index=%d with_cpu_s=%.3f without_cpu_s=%.3f\n", i,
		       with->out.cpu_ns / 1e9, without->out.cpu_ns / 1e9);
	ksft_print_msg("pair: index=%d with_run_s=%.3f without_run_s=%.3f\n", i,
		       with->out.run_ns / 1e9, without->out.run_ns / 1e9);
	ksft_print_msg("pair: index=%d with_exit_us=%.1f without_exit_us=%.1f query_us=%.1f\n",
		       i, ovh.lat_us[1][i], ovh.lat_us[0][i], ovh.get_us[i]);
}

/* Run the "without listener" child: deregister around it. */
static void run_without(const struct wl_job *job, struct wl_run *run)
{
	int ret = listener_ctl(false);

	if (!ret) {
		run_child(job, NULL, run);
		ret = listener_ctl(true);
	}
	if (ret) {
		errno = -ret;
		ksft_exit_fail_perror("exit listener (de)registration");
	}
}

/*
 * Interleaved pairs of the same mkthreads child, without and with the
 * listener (order alternating), until the budget is spent. The "with"
 * child then also measures exit latency in alternating blocks.
 */
static void overhead_phase(const struct intro_opts *opts, int cpu_child,
			   const struct intro_budget *b)
{
	struct harvest h = { .parent = getpid() };
	double per_round_s, run_s = OVH_RUN_S;
	struct wl_job job, job_lat;
	struct wl_run with, without;
	__u64 half_jiffy_ns = intro_jiffy_ns() / 2;
	const char *refused = NULL;
	__u64 exits_ns = 0;
	int i;

	/* below --scale 1, shorter runs rather than fewer pairs */
	if (opts->scale < 1)
		run_s *= opts->scale;
	/* rounds per run from the records phase's rate (same workload) */
	per_round_s = tally.run_ns / 1e9 /
		      (double)(tally.threads / wl_threads + 1);
	ovh.rounds = (__u64)(run_s / per_round_s) + 1;
	job = (struct wl_job){
		.threads = wl_threads,
		.max_rounds = ovh.rounds,
		.limit_ns = UINT64_MAX,
		.cpu = cpu_child,
		.comm = WL_COMM,
	};
	job_lat = job;
	job_lat.lat_limit_ns = run_s * LAT_SHARE * NSEC_PER_SEC;
	for (i = 0; i < OVH_MAX_PAIRS; i++) {
		if (intro_budget_left_ns(b) <
		    PAIR_RUNS_RESERVE * run_s * NSEC_PER_SEC)
			break;
		if (i % 2) {
			run_child(&job_lat, &h, &with);
			run_without(&job, &without);
		} else {
			run_without(&job, &without);
			run_child(&job_lat, &h, &with);
		}
		if (with.refused || without.refused) {
			refused = refused_reason("pairs", wl_threads + 1);
			break;
		}
		if (!with.ok || !without.ok || !without.out.cpu_ns ||
		    !without.out.run_ns || !with.out.nlat[0] ||
		    !with.out.nlat[1] || !with.out.nget)
			ksft_exit_fail_msg("workload child failed\n");
		ovh.cpu_ratio[i] = (double)with.out.cpu_ns / without.out.cpu_ns;
		ovh.cpu_ratio_x100[i] = 100 * ovh.cpu_ratio[i];
		ovh.wall_ratio[i] = (double)with.out.run_ns /
				   without.out.run_ns;
		ovh.base_cpu_s[i] = without.out.cpu_ns / 1e9;
		ovh.lat_us[0][i] = median_us(with.out.lat_ns[0],
					     with.out.nlat[0]);
		ovh.lat_us[1][i] = median_us(with.out.lat_ns[1],
					     with.out.nlat[1]);
		ovh.get_us[i] = median_us(with.out.get_ns, with.out.nget);
		ovh.lat_ratio[i] = (ovh.lat_us[1][i] - ovh.lat_us[0][i]) /
				  ovh.get_us[i];
		/* not the exits with a listener: they are what is judged */
		ovh.interrupted_pct[i] = 100.0 *
			(count_above(with.out.lat_ns[0], with.out.nlat[0],
				     half_jiffy_ns) +
			 count_above(with.out.get_ns, with.out.nget,
				     half_jiffy_ns)) /
			(with.out.nlat[0] + with.out.nget);
		ovh.lat_samples += with.out.nlat[0] + with.out.nlat[1];
		ovh.exits += without.out.threads + 1;
		exits_ns += without.out.run_ns;
		ovh.pairs++;
		if (opts->verbose)
			print_pair(i, &with, &without);
	}
	ovh.exits_per_s = exits_ns ? ovh.exits / (exits_ns / 1e9) : 0;
	/* the pairs timed before a refusal still count */
	if (refused && ovh.pairs < OVERHEAD_MIN_PAIRS)
		phase_skip[PHASE_PAIRS] = refused;
}

/* ---- cpumask forms --------------------------------------------------- */

/*
 * Documentation/accounting/taskstats.rst gives the cpumask as a cpulist
 * string ("1-3,5,7-8"); the attribute is an NLA_STRING, which a sender may
 * end with its NUL or not. A record names no CPU, so it is attributed by
 * its pid to the CPU its child was pinned to (and found running on) when it
 * exited: taskstats_exit() sends to the listeners of the CPU it runs on.
 */
enum cpumask_shape { SHAPE_SINGLE, SHAPE_RANGE, SHAPE_LIST, NR_SHAPES };

static const char * const shape_name[NR_SHAPES] = {
	[SHAPE_SINGLE] = "single", [SHAPE_RANGE] = "range", [SHAPE_LIST] = "list",
};

/* a form's name: its shape, then whether the string is sent with its NUL */
static const char * const nul_suffix[2] = { "_without_nul", "_with_nul" };

/* One registration form and what its listener received. */
struct cpumask_form {
	enum cpumask_shape shape;
	bool nul;		/* the attribute ends with the string's NUL */
	char mask[32];
	int cpu[FORM_MAX_CPUS], ncpus;	/* the named CPUs, then one other */
	int nnamed;
	int err;		/* of the registration: 0 or -errno */
	int recs[FORM_MAX_CPUS];	/* records of the children that exited there */
	int off_cpu;		/* children not on their CPU at exit */
	int refused;		/* children not forked: EAGAIN */
	__u64 enobufs, drops;
};

static struct cpumask_form forms[2 * NR_SHAPES];
static int nforms;
static double cpumask_ms;

static bool form_wrong(const struct cpumask_form *f)
{
	int i;

	if (f->err)
		return true;
	for (i = 0; i < f->ncpus; i++)
		if (f->recs[i] != (i < f->nnamed ? CPUMASK_EXITS_PER_CPU : 0))
			return true;
	return false;
}

/*
 * The forms the usable CPUs allow, each with and without its NUL: the last
 * CPU alone ("N"), and the first two as a range ("A-B") and a list ("A,B");
 * a usable CPU outside the mask is probed too when there is one.
 */
static void plan_cpumask_forms(const int *cpus, int ncpus)
{
	struct cpumask_form *f;
	int shape, nul, a = cpus[0], b = cpus[ncpus > 1];

	for (shape = 0; shape < NR_SHAPES; shape++) {
		if (shape != SHAPE_SINGLE && ncpus < 2)
			break;
		for (nul = 1; nul >= 0; nul--) {
			f = &forms[nforms++];
			f->shape = shape;
			f->nul = nul;
			if (shape == SHAPE_SINGLE) {
				f->cpu[f->ncpus++] = cpus[ncpus - 1];
				f->nnamed = 1;
				snprintf(f->mask, sizeof(f->mask), "%d", f->cpu[0]);
				if (ncpus > 1)
					f->cpu[f->ncpus++] = a;
				continue;
			}
			f->cpu[f->ncpus++] = a;
			f->cpu[f->ncpus++] = b;
			f->nnamed = 2;
			snprintf(f->mask, sizeof(f->mask),
				 shape == SHAPE_RANGE ? "%d-%d" : "%d,%d", a, b);
			if (ncpus > 2)
				f->cpu[f->ncpus++] = cpus[2];
		}
	}
}

/*
 * A single-threaded child that exits on @cpu: its pid, 0 if it ran
 * elsewhere, -1 if a task limit refused it.
 */
static pid_t exit_on_cpu(int cpu)
{
	pid_t pid = intro_fork();
	int status;

	if (pid < 0 && errno == EAGAIN) {
		if (!cpumask_refused)
			cpumask_refused = refused_reason("cpumask", 1);
		return -1;
	}
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		intro_pin(0, cpu);
		_exit(intro_current_cpu_ok(cpu) ? 0 : CHILD_OFF_CPU);
	}
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_perror("waitpid");
	return WIFEXITED(status) && !WEXITSTATUS(status) ? pid : 0;
}

/*
 * Register a socket of its own with @f's mask, let children exit on each
 * probed CPU, read what arrived (queued before wait4() returns, see
 * run_child()), deregister every possible CPU with the NUL-terminated
 * cpulist, which any kernel parses whole.
 */
static void run_cpumask_form(struct cpumask_form *f)
{
	struct harvest h = { .keep = true, .parent = getpid() };
	pid_t pid[FORM_MAX_CPUS][CPUMASK_EXITS_PER_CPU];
	int fd, i, k, rcvbuf = CPUMASK_RCVBUF_BYTES;
	size_t r;

	fd = nl_socket();
	if (fd < 0) {
		errno = -fd;
		ksft_exit_fail_perror("netlink socket");
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		ksft_exit_fail_perror("SO_RCVBUFFORCE");
	f->err = listener_request(fd, true, f->mask, strlen(f->mask) + f->nul);
	if (!f->err) {
		for (i = 0; i < f->ncpus; i++)
			for (k = 0; k < CPUMASK_EXITS_PER_CPU; k++) {
				pid[i][k] = exit_on_cpu(f->cpu[i]);
				f->off_cpu += !pid[i][k];
				f->refused += pid[i][k] < 0;
			}
		if (!drain(fd, &h))
			ksft_exit_fail_perror("read exit records");
		for (r = 0; r < h.n; r++)
			for (i = 0; i < f->ncpus; i++)
				for (k = 0; k < CPUMASK_EXITS_PER_CPU; k++)
					f->recs[i] += !h.recs[r].tgid && pid[i][k] > 0 &&
						      h.recs[r].id == (__u32)pid[i][k];
	}
	listener_request(fd, false, cpulist, strlen(cpulist) + 1);
	f->enobufs = h.enobufs;
	f->drops = socket_drops(fd);
	close(fd);
	free(h.recs);
}

static void cpumask_phase(const int *cpus, int ncpus)
{
	__u64 t0 = intro_now_ns();
	int i;

	plan_cpumask_forms(cpus, ncpus);
	for (i = 0; i < nforms; i++)
		run_cpumask_form(&forms[i]);
	cpumask_ms = (intro_now_ns() - t0) / 1e6;
}

/* ---- checks ---------------------------------------------------------- */

/* The fixes that failing record checks name */
#define TGID_VERSION_FIX	"16c4f0211aaa"
#define V15_FIX			"0bf2d838de1f"
#define DEAD_THREADS_FIX	"taskstats_retain_dead_thread_stats_in_TGID_queries"
#define CPUMASK_FIX		"taskstats_fix_cpumask_parsing_cutting_off_the_last_character"

static bool delayacct_on;

static int check_complete(const char *name, const char **reason)
{
	ksft_print_msg("%s: groups=%d singles=%d threads=%llu dup_tids=%llu foreign=%llu\n",
		       name, tally.groups, tally.singles,
		       (unsigned long long)tally.threads,
		       (unsigned long long)tally.dup_pid,
		       (unsigned long long)tally.foreign);
	ksft_print_msg("%s: exits_per_s_k=%.1f\n", name, tally.run_ns ?
		       tally.threads / (tally.run_ns / 1e6) : 0.0);
	intro_figures(name,
		      "pid_records=%llu expected=%llu enobufs=%llu drops=%llu truncated=%llu",
		      (unsigned long long)tally.got_pid,
		      (unsigned long long)tally.expected_pid,
		      (unsigned long long)tally.enobufs,
		      (unsigned long long)tally.drops,
		      (unsigned long long)tally.truncated);
	if (tally.enobufs || tally.drops) {
		*reason = "socket dropped records";
		return KSFT_SKIP;
	}
	return tally.got_pid == tally.expected_pid && !tally.truncated ?
	       KSFT_PASS : KSFT_FAIL;
}

static int check_one_tgid(const char *name, const char **reason)
{
	ksft_print_msg("%s: single_tgid_records=%llu agroup_misplaced=%llu\n",
		       name, (unsigned long long)tally.single_tgid,
		       (unsigned long long)tally.agroup_bad);
	intro_figures(name, "tgid_records=%llu groups=%llu groups_not_one=%llu",
		      (unsigned long long)tally.tgid_recs,
		      (unsigned long long)tally.tgid_expected,
		      (unsigned long long)tally.group_tgid_bad);
	if (tally.enobufs || tally.drops) {
		*reason = "socket dropped records";
		return KSFT_SKIP;
	}
	return !tally.group_tgid_bad && !tally.single_tgid &&
	       !tally.agroup_bad && tally.tgid_recs == tally.tgid_expected ?
	       KSFT_PASS : KSFT_FAIL;
}

/*
 * Version 0 TGID records and the version 15 layout are bugs that stable
 * kernels may still carry: they fail, naming the fix. A record of an older
 * or newer layout than the header's is decoded, not judged.
 */
static int check_sane(const char *name, const char **reason)
{
	ksft_print_msg("%s: stats_len=%zu header_len=%zu\n", name,
		       tally.stats_len, sizeof(struct taskstats));
	intro_figures(name, "version=%u checked=%llu bad=%llu tgid_version_zero=%llu",
		      tally.version, (unsigned long long)tally.checked,
		      (unsigned long long)tally.bad_fields,
		      (unsigned long long)tally.tgid_version_zero);
	if (!tally.checked) {
		*reason = "no records of the workload received";
		return KSFT_SKIP;
	}
	if (tally.bad_fields)
		ksft_print_msg("%s: first_bad=%s first_bad_tid=%u\n", name,
			       tally.first_bad, tally.first_bad_tid);
	if (tally.tgid_version_zero)
		ksft_print_msg("%s: tgid_version_zero=%llu fix_commit=%s\n", name,
			       (unsigned long long)tally.tgid_version_zero,
			       TGID_VERSION_FIX);
	if (tally.version == V15)
		ksft_print_msg("%s: moved_fields_version=%u fix_commit=%s\n",
			       name, tally.version, V15_FIX);
	return tally.bad_fields || tally.tgid_version_zero ||
	       tally.version == V15 ? KSFT_FAIL : KSFT_PASS;
}

static int check_sums_verdict(const char *name, const char **reason)
{
	bool fail = tally.sum_over || tally.ratio_min < SUM_RATIO_MIN;

	ksft_print_msg("%s: groups=%llu tgid_times_zero=%d bound_hi_ratio=1\n",
		       name, (unsigned long long)tally.sum_groups,
		       tally.tgid_times_zero);
	ksft_print_msg("%s: ratio_min_field=%s above_field=%s\n", name,
		       tally.ratio_field ? tally.ratio_field : "none",
		       tally.over_field ? tally.over_field : "none");
	intro_figures(name, "ratio_min=%.4f tgid_above_sum=%llu bound_lo_ratio=%.2f",
		      tally.ratio_min, (unsigned long long)tally.sum_over,
		      SUM_RATIO_MIN);
	if (tally.enobufs || tally.drops) {
		*reason = "socket dropped records";
		return KSFT_SKIP;
	}
	if (tally.got_pid != tally.expected_pid || tally.group_tgid_bad) {
		ksft_print_msg("%s: pid_records=%llu expected=%llu groups_not_one=%llu\n",
			       name, (unsigned long long)tally.got_pid,
			       (unsigned long long)tally.expected_pid,
			       (unsigned long long)tally.group_tgid_bad);
		*reason = "PID or TGID records missing or extra";
		return KSFT_SKIP;
	}
	if (!tally.sum_groups) {
		*reason = "no thread group to sum";
		return KSFT_SKIP;
	}
	if (fail && tally.tgid_times_zero)
		ksft_print_msg("%s: fix_subject=%s\n", name, DEAD_THREADS_FIX);
	return fail ? KSFT_FAIL : KSFT_PASS;
}

static int check_delay(const char *name, const char **reason)
{
	intro_figures(name, "task_delayacct=%d groups=%llu mismatched=%llu",
		      delayacct_on, (unsigned long long)tally.delay_fields,
		      (unsigned long long)tally.delay_mismatch);
	if (!delayacct_on) {
		*reason = "task_delayacct sysctl is off";
		return KSFT_SKIP;
	}
	if (!tally.delay_fields) {
		*reason = "no thread group with its one TGID record";
		return KSFT_SKIP;
	}
	return tally.delay_mismatch ? KSFT_FAIL : KSFT_PASS;
}

static int check_cpu_overhead(const char *name, const char **reason)
{
	double cpu = intro_median(ovh.cpu_ratio, ovh.pairs, false);
	double lo = intro_quantile(ovh.base_cpu_s, ovh.pairs, 0, false);
	double hi = intro_quantile(ovh.base_cpu_s, ovh.pairs, 1, false);

	ksft_print_msg("%s: pairs=%d rounds=%llu exits_per_s_k=%.1f wall_ratio_median=%.3f\n",
		       name, ovh.pairs, (unsigned long long)ovh.rounds,
		       ovh.exits_per_s / 1000,
		       intro_median(ovh.wall_ratio, ovh.pairs, false));
	ksft_print_msg("%s: cpu_ratio_min=%.3f cpu_ratio_max=%.3f skip_above_spread=%.2f\n",
		       name, intro_quantile(ovh.cpu_ratio, ovh.pairs, 0, false),
		       intro_quantile(ovh.cpu_ratio, ovh.pairs, 1, false),
		       BASELINE_SPREAD_MAX);
	intro_figures(name, "cpu_ratio_median=%.3f bound_hi_ratio=%.2f base_cpu_spread=%.2f",
		      cpu, CPU_RATIO_MAX, lo > 0 ? hi / lo : 0);
	if (ovh.pairs < OVERHEAD_MIN_PAIRS) {
		*reason = "too few interleaved runs in the time budget";
		return KSFT_SKIP;
	}
	if (cpu > CPU_RATIO_MAX && hi > BASELINE_SPREAD_MAX * lo) {
		*reason = "baseline runs too noisy to judge";
		return KSFT_SKIP;
	}
	if (cpu <= CPU_RATIO_MAX)
		return KSFT_PASS;
	intro_print_log2_hist(name, ovh.cpu_ratio_x100, ovh.pairs, "pct");
	return KSFT_FAIL;
}

static int check_exit_latency(const char *name, const char **reason)
{
	double ratio = intro_median(ovh.lat_ratio, ovh.pairs, false);
	double iqr = intro_quantile(ovh.lat_ratio, ovh.pairs, 0.75, false) -
		     intro_quantile(ovh.lat_ratio, ovh.pairs, 0.25, false);
	double intr = intro_median(ovh.interrupted_pct, ovh.pairs, false);

	ksft_print_msg("%s: pairs=%d samples=%d with_us=%.1f without_us=%.1f query_us=%.1f\n",
		       name, ovh.pairs, ovh.lat_samples,
		       intro_median(ovh.lat_us[1], ovh.pairs, false),
		       intro_median(ovh.lat_us[0], ovh.pairs, false),
		       intro_median(ovh.get_us, ovh.pairs, false));
	ksft_print_msg("%s: min=%.3f max=%.3f iqr=%.3f skip_above_interrupted_pct=%.2f\n",
		       name, intro_quantile(ovh.lat_ratio, ovh.pairs, 0, false),
		       intro_quantile(ovh.lat_ratio, ovh.pairs, 1, false), iqr,
		       LAT_INTERRUPTED_PCT_MAX);
	intro_figures(name, "added_per_query_median=%.3f bound_hi_ratio=%.2f interrupted_pct=%.2f",
		      ratio, LAT_PER_QUERY_MAX, intr);
	if (ovh.pairs < OVERHEAD_MIN_PAIRS) {
		*reason = "too few interleaved runs in the time budget";
		return KSFT_SKIP;
	}
	if (ratio <= LAT_PER_QUERY_MAX)
		return KSFT_PASS;
	if (intr > LAT_INTERRUPTED_PCT_MAX) {
		*reason = "exits interrupted too often to judge";
		return KSFT_SKIP;
	}
	if (iqr > LAT_SPREAD_MAX * ratio) {
		*reason = "exit latency pairs disagree";
		return KSFT_SKIP;
	}
	intro_print_log2_hist(name, ovh.lat_us[1], ovh.pairs, "with_us");
	intro_print_log2_hist(name, ovh.lat_us[0], ovh.pairs, "without_us");
	return KSFT_FAIL;
}

/* Records of @f short of or beyond the exact counts, and what explains it. */
enum form_verdict { FORM_RIGHT, FORM_BUG, FORM_UNJUDGED };

static enum form_verdict judge_form(const struct cpumask_form *f,
				    const char **reason)
{
	bool extra = false;
	int i;

	if (f->err == -EINVAL)
		return FORM_BUG;
	if (f->err) {
		*reason = "cpumask registration failed with an errno other than EINVAL";
		return FORM_UNJUDGED;
	}
	if (!form_wrong(f))
		return FORM_RIGHT;
	for (i = 0; i < f->ncpus; i++)
		extra |= f->recs[i] > (i < f->nnamed ? CPUMASK_EXITS_PER_CPU : 0);
	if (extra)
		return FORM_BUG;
	if (f->refused) {
		*reason = cpumask_refused;
		return FORM_UNJUDGED;
	}
	if (f->off_cpu) {
		*reason = "a child did not exit on the CPU it was pinned to";
		return FORM_UNJUDGED;
	}
	if (f->enobufs || f->drops) {
		*reason = "socket dropped records";
		return FORM_UNJUDGED;
	}
	return FORM_BUG;
}

/* A form's figures; for a wrong one, each probed CPU's records. */
static void print_form(const char *name, const struct cpumask_form *f)
{
	char unnamed[16] = "none";
	int c, got = 0;

	for (c = 0; c < f->nnamed; c++)
		got += f->recs[c];
	if (f->ncpus > f->nnamed)
		snprintf(unnamed, sizeof(unnamed), "%d", f->recs[f->nnamed]);
	ksft_print_msg("%s: form=%s%s mask=%s errno=%d records=%d expected=%d records_unnamed=%s\n",
		       name, shape_name[f->shape], nul_suffix[f->nul], f->mask,
		       -f->err, got, f->nnamed * CPUMASK_EXITS_PER_CPU, unnamed);
	if (!form_wrong(f) || f->err)
		return;
	for (c = 0; c < f->ncpus; c++)
		ksft_print_msg("%s: form=%s%s cpu=%d named=%d records=%d\n",
			       name, shape_name[f->shape], nul_suffix[f->nul],
			       f->cpu[c], c < f->nnamed, f->recs[c]);
}

/*
 * The main listener registered, so privilege and namespaces allow a
 * listener: a form refused with EINVAL, or delivering other counts, is the
 * kernel's. Right with the NUL and wrong without it is the parse that cut
 * the string's last character ("0-1" refused, "0,1" without CPU 1).
 */
static int check_cpumask(const char *name, const char **reason)
{
	int i, bugs = 0, wrong = 0, nul_wrong = 0, einval = 0, off_cpu = 0, refused = 0;
	const char *unjudged = NULL;
	__u64 enobufs = 0, drops = 0;

	for (i = 0; i < nforms; i++) {
		const struct cpumask_form *f = &forms[i];

		print_form(name, f);
		wrong += form_wrong(f);
		nul_wrong += f->nul && form_wrong(f);
		einval += f->err == -EINVAL;
		off_cpu += f->off_cpu;
		refused += f->refused;
		enobufs += f->enobufs;
		drops += f->drops;
		bugs += judge_form(f, &unjudged) == FORM_BUG;
	}
	ksft_print_msg("%s: exits_per_cpu=%d off_cpu=%d enobufs=%llu drops=%llu run_ms=%.1f\n",
		       name, CPUMASK_EXITS_PER_CPU, off_cpu,
		       (unsigned long long)enobufs, (unsigned long long)drops,
		       cpumask_ms);
	if (refused)
		ksft_print_msg("%s: children_not_forked=%d\n", name, refused);
	intro_figures(name, "forms=%d forms_wrong=%d nul_forms_wrong=%d refused_einval=%d",
		      nforms, wrong, nul_wrong, einval);
	if (bugs && !nul_wrong)
		ksft_print_msg("%s: fix_subject=%s\n", name, CPUMASK_FIX);
	if (bugs)
		return KSFT_FAIL;
	if (unjudged) {
		*reason = unjudged;
		return KSFT_SKIP;
	}
	return KSFT_PASS;
}

struct check {
	const char *name;
	int (*judge)(const char *name, const char **reason);
	enum phase phase;	/* that measured it */
};

static const struct check checks[] = {
	{ "exit_records_complete", check_complete, PHASE_RECORDS },
	{ "one_tgid_record_per_group", check_one_tgid, PHASE_RECORDS },
	{ "record_fields_sane", check_sane, PHASE_RECORDS },
	{ "tgid_sums_match_threads", check_sums_verdict, PHASE_RECORDS },
	{ "delay_totals_match_threads", check_delay, PHASE_RECORDS },
	{ "listener_cpu_overhead", check_cpu_overhead, PHASE_PAIRS },
	{ "listener_exit_latency", check_exit_latency, PHASE_PAIRS },
	{ "register_cpumask_forms", check_cpumask, PHASE_CPUMASK },
};

/* ---- main ------------------------------------------------------------ */

/*
 * Is this process in the initial @ns ("user", "pid", "net") namespace?
 * add_del_listener() refuses a listener with EINVAL outside the initial
 * user and pid namespaces; exit records go to sockets in init_net only
 * (send_cpu_listeners() uses genlmsg_unicast(&init_net, ...)), which it
 * does not check. kthreadd (pid 2) always lives in the initial ones; its
 * ns links are readable where pid 1's may not be. -1: cannot tell.
 */
static int in_initial_ns(const char *ns)
{
	struct stat self, init;
	char comm[32], path[32];

	snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	if (intro_read_file("/proc/2/comm", comm, sizeof(comm)) < 0 ||
	    strcmp(comm, "kthreadd") || stat(path, &self))
		return -1;
	snprintf(path, sizeof(path), "/proc/2/ns/%s", ns);
	if (stat(path, &init))
		return -1;
	return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

/*
 * Where pid 2's ns links cannot be read: a user namespace whose uid_map is
 * not the whole identity is not the initial one (the initial one maps
 * 0 0 4294967295, and so may a child); a pid namespace that has a pid in
 * the /proc's namespace and in a nested one (two NSpid fields), or whose
 * /proc has no kthreadd at pid 2, is not the initial one.
 */
static int in_init_user_ns(void)
{
	unsigned long long inner, outer, count;
	char map[256];
	int ns = in_initial_ns("user");

	if (ns >= 0 || intro_read_file("/proc/self/uid_map", map, sizeof(map)) < 0)
		return ns;
	if (sscanf(map, "%llu %llu %llu", &inner, &outer, &count) != 3 ||
	    inner || outer || count != UINT32_MAX || strchr(map, '\n'))
		return 0;
	return -1;
}

static int in_init_pid_ns(void)
{
	char status[4096], comm[32], *nspid;
	int ns = in_initial_ns("pid"), outer, inner;

	if (ns >= 0 || intro_read_file("/proc/self/status", status, sizeof(status)) < 0)
		return ns;
	nspid = strstr(status, "NSpid:");
	if (!nspid)
		return -1;
	nspid += strlen("NSpid:");
	nspid[strcspn(nspid, "\n")] = '\0';
	if (sscanf(nspid, "%d %d", &outer, &inner) == 2)
		return 0;
	if (intro_read_file("/proc/2/comm", comm, sizeof(comm)) < 0)
		return errno == ENOENT ? 0 : -1;
	return !strcmp(comm, "kthreadd") ? 1 : 0;
}

/* One single-threaded child: does its exit record reach this socket? */
static bool records_delivered(int cpu_child)
{
	struct harvest h = { .live = true, .parent = getpid() };
	struct wl_job job = { .cpu = cpu_child, .comm = ST_COMM };
	struct wl_run run;

	run_child(&job, &h, &run);
	if (run.refused)
		ksft_exit_skip("%s\n", refused_reason("probe", 1));
	return run.ok && h.pid_recs;
}

static void read_cpulist(void)
{
	if (intro_read_file("/sys/devices/system/cpu/possible", cpulist,
			    sizeof(cpulist)) <= 0)
		snprintf(cpulist, sizeof(cpulist), "0-%ld",
			 sysconf(_SC_NPROCESSORS_CONF) - 1);
}

static const struct intro_prog prog = {
	.usage =
	"taskstats_tgid: the exit records a taskstats listener receives, and what\n"
	"the listener costs each thread exit.\n"
	"Guards taskstats exit records against the 2.6.17 regression (LKML, June\n"
	"2006) that sent a TGID record on every thread exit, fixed by ad4ecbcba728;\n"
	"also against version 0 TGID records (fixed by 16c4f0211aaa), TGID records\n"
	"without the exited threads' times (\"taskstats: retain dead thread stats\n"
	"in TGID queries\"), the version 15 layout (fixed by 0bf2d838de1f) and\n"
	"cpumasks sent without their NUL parsed one character short (\"taskstats:\n"
	"fix cpumask parsing cutting off the last character\").\n"
	"An all-CPU exit listener watches children that create and join 32\n"
	"threads at a time, then pairs of runs with and without the listener;\n"
	"then listeners registered with each cpumask form see pinned exits.\n"
	"Groups have fewer threads where a task limit leaves less room (the\n"
	"\"# tasks:\" lines).\n"
	"\n"
	"Checks:\n"
	"  exit_records_complete       one PID record per exited thread\n"
	"  one_tgid_record_per_group   one TGID record per thread group, none for\n"
	"                              single-threaded processes\n"
	"  record_fields_sane          version, pid, tgid, uid, comm, btime, exit code\n"
	"  tgid_sums_match_threads     TGID counters / sum of the PID records in\n"
	"                              [0.5, 1]\n"
	"  delay_totals_match_threads  TGID delay counts = sum of the PID records\n"
	"                              (needs kernel.task_delayacct=1)\n"
	"  listener_cpu_overhead       CPU time with / without the listener <= 1.8\n"
	"  listener_exit_latency       exit latency the listener adds <= 1.5\n"
	"                              TASKSTATS_CMD_GET round trips\n"
	"  register_cpumask_forms      a listener registered for \"N\", \"A-B\" or\n"
	"                              \"A,B\", with or without the NUL, gets the\n"
	"                              exits of exactly those CPUs\n"
	"\n"
	"Needs: root (CAP_NET_ADMIN), the initial user, pid and network\n"
	"namespaces, CONFIG_TASKSTATS; room under pids.max, RLIMIT_NPROC and\n"
	"kernel.threads-max for 7 tasks beside its own (37 for groups of 32\n"
	"threads); two CPUs are used when available.\n",
	.min_scale = MIN_SCALE,
	.max_scale = MAX_SCALE,
};

int main(int argc, char **argv)
{
	int cpus[INTRO_MAX_CPUS], ncpus, cpu_child = -1, rcvbuf = RCVBUF_BYTES;
	char delayacct[16];
	const char *reason;
	struct intro_budget budget;
	struct intro_opts opts;
	size_t i;
	int ret, userns, pidns, netns, result;

	intro_parse_opts(argc, argv, &prog, &opts);
	ksft_print_header();
	intro_print_env(&opts);
	delayacct_on = intro_read_file("/proc/sys/kernel/task_delayacct",
				       delayacct, sizeof(delayacct)) > 0 &&
		       atoi(delayacct) > 0;
	read_cpulist();
	ksft_print_msg("taskstats: task_delayacct=%d possible_cpus=%s header_version=%d\n",
		       delayacct_on, cpulist, TASKSTATS_VERSION);
	if (TASKSTATS_VERSION == V15)
		ksft_exit_skip("built with struct taskstats version 15, withdrawn by %s\n",
			       V15_FIX);

	userns = in_init_user_ns();
	pidns = in_init_pid_ns();
	netns = in_initial_ns("net");
	ksft_print_msg("taskstats: init_user_ns=%d init_pid_ns=%d init_net=%d cap_net_admin=%d\n",
		       userns, pidns, netns, has_cap(CAP_NET_ADMIN));
	ret = nl_open();
	if (ret) {
		ksft_print_msg("taskstats: socket_errno=%d\n", -ret);
		ksft_exit_skip("generic netlink socket unavailable\n");
	}
	ts_family = resolve_family();
	if (ts_family == -ENOENT)
		ksft_exit_skip("no taskstats genetlink family: kernel without CONFIG_TASKSTATS\n");
	if (ts_family <= 0) {
		errno = -ts_family;
		ksft_exit_fail_perror("resolve the taskstats family");
	}
	prepare_deregister();
	ret = listener_ctl(true);
	if (ret)
		ksft_print_msg("taskstats: register_errno=%d\n", -ret);
	/* GENL_ADMIN_PERM: netlink_capable(), i.e. capable() in init_user_ns */
	if (ret == -EPERM)
		ksft_exit_skip("listener needs CAP_NET_ADMIN in the initial user namespace\n");
	if (ret == -EINVAL && !userns)
		ksft_exit_skip("listener refused outside the initial user namespace\n");
	if (ret == -EINVAL && !pidns)
		ksft_exit_skip("listener refused outside the initial pid namespace\n");
	if (ret == -EINVAL && (userns < 0 || pidns < 0))
		ksft_exit_skip("listener refused, user and pid namespaces unknown\n");
	if (ret) {
		errno = -ret;
		ksft_exit_fail_perror("register exit listener");
	}
	if (!netns)
		ksft_exit_skip("not in the initial network namespace\n");
	if (setsockopt(nl_fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf))) {
		ksft_print_msg("taskstats: rcvbufforce_errno=%d\n", errno);
		ksft_exit_skip("cannot force the socket receive buffer\n");
	}

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		ksft_exit_fail_perror("mmap");
	ncpus = intro_usable_cpus(cpus, INTRO_MAX_CPUS);
	if (ncpus < 1)
		ksft_exit_fail_perror("sched_getaffinity");
	if (ncpus >= 2) {
		cpu_child = cpus[ncpus - 1];
		intro_pin(0, cpus[0]);
	}
	if (netns < 0 && !records_delivered(cpu_child)) {
		ksft_print_msg("taskstats: probe_records=0 init_net=%d\n", netns);
		ksft_exit_skip("no exit records delivered, network namespace unknown\n");
	}

	jiffy_us = intro_jiffy_ns() / NSEC_PER_USEC;
	phase_skip[PHASE_RECORDS] = size_workload();
	ksft_set_plan(ARRAY_SIZE(checks));
	intro_budget_start(&budget, RUN_DEFAULT_S * opts.scale);
	if (!phase_skip[PHASE_RECORDS])
		records_phase(cpu_child,
			      RUN_DEFAULT_S * opts.scale * RECORDS_SHARE);
	/* its rounds are sized from the records phase's rate */
	phase_skip[PHASE_PAIRS] = phase_skip[PHASE_RECORDS];
	if (!phase_skip[PHASE_PAIRS])
		overhead_phase(&opts, cpu_child, &budget);
	listener_ctl(false);
	cpumask_phase(cpus, ncpus);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		reason = phase_skip[checks[i].phase];
		result = reason ? KSFT_SKIP :
			 checks[i].judge(checks[i].name, &reason);
		intro_report(checks[i].name, result, reason);
	}
	ksft_print_msg("budget: spent_s=%.2f limit_s=%.2f\n",
		       intro_budget_spent_s(&budget),
		       RUN_DEFAULT_S * opts.scale);
	ksft_finished();
}
