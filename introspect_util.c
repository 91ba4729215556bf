// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the introspect programs; introspect_util.h says what
 * each one promises.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "introspect_util.h"

#define FIGURES_MAX	512

static const char *force_fail;	/* --force-fail: a check name or "all" */
static char figures_check[128];
static char figures[FIGURES_MAX];

uint64_t intro_clock_ns(clockid_t clk)
{
	struct timespec ts;

	if (clock_gettime(clk, &ts))
		ksft_exit_fail_perror("clock_gettime");
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t intro_jiffy_ns(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
		ksft_exit_fail_perror("clock_getres(CLOCK_MONOTONIC_COARSE)");
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int intro_usable_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int cpu, n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE && n < max; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpus[n++] = cpu;
	return n;
}

int intro_pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

bool intro_current_cpu_ok(int cpu)
{
	return sched_getcpu() == cpu;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void intro_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double intro_quantile(const double *v, size_t n, double q, bool sorted)
{
	double *copy = NULL, pos, r;
	const double *s = v;
	size_t lo;

	if (!n)
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	if (!sorted) {
		copy = malloc(n * sizeof(*v));
		if (!copy)
			ksft_exit_fail_perror("statistics");
		memcpy(copy, v, n * sizeof(*v));
		intro_sort(copy, n);
		s = copy;
	}
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	r = s[lo];
	if (lo + 1 < n)
		r += (pos - (double)lo) * (s[lo + 1] - s[lo]);
	free(copy);
	return r;
}

double intro_theil_sen(const double *x, const double *y, const double *s,
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

void intro_print_log2_hist(const char *check, const double *v, size_t n,
			   const char *unit)
{
	size_t count[64] = { 0 };
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		b = v[i] < 2 ? 0 : (int)floor(log2(v[i]));
		count[b > 63 ? 63 : b]++;
	}
	for (b = 0; b < 64; b++)
		if (count[b])
			ksft_print_msg("%s: bucket_lo_%s=%.0f bucket_hi_%s=%.0f count=%zu\n",
				       check, unit, b ? ldexp(1, b) : 0, unit,
				       ldexp(1, b + 1), count[b]);
}

static void print_usage(FILE *f, const char *argv0,
			const struct intro_prog *prog)
{
	fprintf(f, "usage: %s [-s F] [-v] [--force-fail CHECK] [-h]\n\n%s\n",
		argv0, prog->usage);
	fprintf(f, "options:\n"
		"  -s, --scale F         time budget and sample counts times F (%.2g to %.2g;\n"
		"                        other values are clamped)\n"
		"  -v, --verbose         per-sample detail and histograms on pass too\n"
		"  --force-fail CHECK    report CHECK (one named above, or all) as failed,\n"
		"                        figures unchanged: tests how a failure reaches CI\n"
		"  -h, --help            this text\n"
		"The kselftest runner appends KSELFTEST_<PROG>_ARGS to the arguments.\n",
		prog->min_scale, prog->max_scale);
}

static bool is_check(const struct intro_prog *prog, const char *name)
{
	const char *row = (const char *)prog->check_names;
	size_t i;

	for (i = 0; i < prog->nr_checks; i++, row += prog->check_size)
		if (!strcmp(*(const char * const *)row, name))
			return true;
	return !strcmp(name, "all");
}

void intro_parse_opts(int argc, char **argv, const struct intro_prog *prog,
		      struct intro_opts *opts)
{
	static const struct option longopts[] = {
		{ "scale", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "force-fail", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opts->scale = 1.0;
	opts->verbose = false;
	while ((c = getopt_long(argc, argv, "s:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			opts->scale = strtod(optarg, &end);
			if (errno || *end || !(opts->scale > 0))
				goto bad;
			break;
		case 'v':
			opts->verbose = true;
			break;
		case 'F':
			force_fail = optarg;
			break;
		case 'h':
			print_usage(stdout, argv[0], prog);
			exit(KSFT_PASS);
		default:
			goto bad;
		}
	}
	if (optind < argc || (force_fail && !is_check(prog, force_fail)))
		goto bad;
	opts->requested_scale = opts->scale;
	opts->scale = fmax(prog->min_scale, fmin(prog->max_scale, opts->scale));
	/* SIG_IGN survives exec and would reap every child before wait4() */
	signal(SIGCHLD, SIG_DFL);
	return;
bad:
	fprintf(stderr, "%s: invalid arguments\n", argv[0]);
	print_usage(stderr, argv[0], prog);
	exit(KSFT_FAIL);
}

void intro_budget_start(struct intro_budget *b, double seconds)
{
	b->start_ns = intro_now_ns();
	b->limit_ns = (uint64_t)(seconds * (double)NSEC_PER_SEC);
}

uint64_t intro_budget_left_ns(const struct intro_budget *b)
{
	uint64_t used = intro_now_ns() - b->start_ns;

	return used >= b->limit_ns ? 0 : b->limit_ns - used;
}

double intro_budget_spent_s(const struct intro_budget *b)
{
	return (double)(intro_now_ns() - b->start_ns) / NSEC_PER_SEC;
}

pid_t intro_fork(void)
{
	pid_t parent = getpid();
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	/* the parent may have died before prctl() ran */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(KSFT_FAIL);
	return 0;
}

void intro_kill_wait(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

ssize_t intro_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n = 0, got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (n < 0)
		return -1;
	if (got && buf[got - 1] == '\n')
		got--;
	buf[got] = '\0';
	return got;
}

/* @name in the comma-separated @list */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/*
 * The mount of @controller's hierarchy: its root in the hierarchy into
 * @root, its mount point into @mnt (PATH_MAX each). Lines of mountinfo:
 * "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [TAGS] - FSTYPE SOURCE
 * SUPER_OPTIONS" (Documentation/filesystems/proc.rst); a v1 hierarchy has
 * its controllers among the super options. Return: 1, 2 or 0.
 */
static int cgroup_mount(const char *controller, char *root, char *mnt)
{
	char r[PATH_MAX], m[PATH_MAX], type[32], opts[PATH_MAX];
	char *line = NULL, *dash;
	size_t size = 0;
	int version = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (version != 1 && getline(&line, &size, f) > 0) {
		dash = strstr(line, " - ");
		if (!dash ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
		    sscanf(dash + 3, "%31s %*s %4095s", type, opts) != 2)
			continue;
		if (!strcmp(type, "cgroup") && in_list(opts, controller))
			version = 1;
		else if (!strcmp(type, "cgroup2") && !version)
			version = 2;
		else
			continue;
		memcpy(root, r, sizeof(r));
		memcpy(mnt, m, sizeof(m));
	}
	free(line);
	fclose(f);
	return version;
}

int intro_cgroup_dir(const char *controller, char *dir, size_t *top)
{
	char root[PATH_MAX], mnt[PATH_MAX];
	char *line = NULL, *ctrls, *path = NULL;
	size_t size = 0, n;
	int version;
	FILE *f;

	version = cgroup_mount(controller, root, mnt);
	f = version ? fopen("/proc/self/cgroup", "re") : NULL;
	if (!f)
		return 0;
	/* "ID:CONTROLLERS:PATH", CONTROLLERS empty for v2 */
	while (!path && getline(&line, &size, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		ctrls = strchr(line, ':');
		path = ctrls ? strchr(++ctrls, ':') : NULL;
		if (!path)
			continue;
		*path++ = '\0';
		if (version == 2 ? !!*ctrls : !in_list(ctrls, controller))
			path = NULL;
	}
	fclose(f);
	n = strlen(root);
	if (path && strcmp(root, "/") && !strncmp(path, root, n) &&
	    (!path[n] || path[n] == '/'))
		path += n;
	if (path && !strcmp(path, "/"))
		path++;
	if (!path || snprintf(dir, PATH_MAX, "%s%s", mnt, path) >= PATH_MAX)
		version = 0;
	free(line);
	*top = strlen(mnt);
	return version;
}

bool intro_cgroup_parent(char *dir, size_t top)
{
	char *slash = strrchr(dir, '/');

	if (strlen(dir) <= top || !slash || (size_t)(slash - dir) < top)
		return false;
	*slash = '\0';
	return true;
}

/* The running kernel's config, read once: /proc/config.gz costs a gzip. */
static const char *kconfig_text(void)
{
	static char *text;
	static bool tried;
	char path[128];
	struct utsname u;
	size_t size = 0;
	FILE *f = NULL;
	bool piped = false;

	if (tried)
		return text;
	tried = true;
	if (!uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = fopen(path, "r");
	}
	if (!f && !access("/proc/config.gz", R_OK)) {
		f = popen("gzip -dc /proc/config.gz 2>/dev/null", "r");
		piped = f;
	}
	if (!f)
		return NULL;
	if (getdelim(&text, &size, '\0', f) < 0) {
		free(text);
		text = strdup("");	/* read, but nothing set */
	}
	if (piped)
		pclose(f);
	else
		fclose(f);
	return text;
}

char intro_kconfig(const char *name)
{
	const char *text = kconfig_text(), *p;
	char want[96];
	size_t wl;

	if (!text)
		return '?';
	wl = (size_t)snprintf(want, sizeof(want), "CONFIG_%s=", name);
	for (p = strstr(text, want); p && p != text && p[-1] != '\n';
	     p = strstr(p + 1, want))
		;
	if (!p)
		return 'n';
	return p[wl] == 'm' ? 'm' : 'y';
}

/* The last "preempt=" of the command line, else the Kconfig default. */
static const char *dynamic_preempt_model(const char * const *models,
					 size_t n)
{
	const char *found = NULL;
	static char cmd[4096];
	size_t i;
	char *p;

	if (intro_read_file("/proc/cmdline", cmd, sizeof(cmd)) >= 0) {
		for (p = strstr(cmd, "preempt="); p;
		     p = strstr(p + 1, "preempt=")) {
			if (p != cmd && p[-1] != ' ')
				continue;
			for (i = 0; i < n; i++)
				if (!strncmp(p + 8, models[i], strlen(models[i])))
					found = models[i];
		}
	}
	if (found)
		return found;
	if (intro_kconfig("PREEMPT_NONE") == 'y')
		return "none";
	if (intro_kconfig("PREEMPT_VOLUNTARY") == 'y')
		return "voluntary";
	if (intro_kconfig("PREEMPT") == 'y')
		return "full";
	return "dynamic";
}

const char *intro_preempt_model(void)
{
	static const char * const models[] = {
		"none", "voluntary", "full", "lazy",
	};
	char line[128], want[16];
	struct utsname u;
	size_t i;
	char *p;

	if (intro_read_file("/sys/kernel/realtime", line, sizeof(line)) > 0 &&
	    line[0] == '1')
		return "rt";
	/* e.g. "none (voluntary) full lazy": the current one is in () */
	if (intro_read_file("/sys/kernel/debug/sched/preempt", line,
			    sizeof(line)) > 0) {
		p = strchr(line, '(');
		for (i = 0; p && i < ARRAY_SIZE(models); i++) {
			snprintf(want, sizeof(want), "(%s)", models[i]);
			if (!strncmp(p, want, strlen(want)))
				return models[i];
		}
	}
	if (uname(&u))
		return "dynamic";
	if (strstr(u.version, "PREEMPT_RT"))
		return "rt";
	if (strstr(u.version, "PREEMPT_DYNAMIC"))
		return dynamic_preempt_model(models, ARRAY_SIZE(models));
	return strstr(u.version, "PREEMPT ") ? "full" : "none";
}

/* CPUID vendor of the hypervisor, as one token: "bhyve bhyve " is bhyve_bhyve. */
static void hypervisor(char *out, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d, i;
	char vendor[13] = "";

	snprintf(out, len, "unknown");
	__cpuid_count(1, 0, a, b, c, d);
	if (!(c & (1U << 31))) {
		snprintf(out, len, "none");
		return;
	}
	__cpuid_count(0x40000000, 0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	for (i = 12; i > 0 && (vendor[i - 1] == ' ' || !vendor[i - 1]); i--)
		vendor[i - 1] = '\0';
	for (i = 0; vendor[i]; i++)
		if (!isalnum((unsigned char)vendor[i]))
			vendor[i] = '_';
	if (vendor[0])
		snprintf(out, len, "%s", vendor);
#else
	snprintf(out, len, "unknown");
#endif
}

void intro_print_env(const struct intro_opts *opts)
{
	uint64_t j = intro_jiffy_ns();
	int cpus[INTRO_MAX_CPUS];
	char hv[16], nohz[128], self[32];
	const char *cputime = "tick";
	struct utsname u;
	ssize_t n;

	/* kernel/sched/cputime.c: vtime accounting runs on nohz_full CPUs */
	if (intro_read_file("/sys/devices/system/cpu/nohz_full", nohz,
			    sizeof(nohz)) > 0 && strcmp(nohz, "(null)"))
		cputime = "vtime_nohz_full";
	else if (intro_kconfig("VIRT_CPU_ACCOUNTING_NATIVE") == 'y')
		cputime = "vtime_native";
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	hypervisor(hv, sizeof(hv));
	ksft_print_msg("env: kernel=%s jiffy_us=%llu hz=%llu usable_cpus=%d\n",
		       u.release, (unsigned long long)(j / NSEC_PER_USEC),
		       (unsigned long long)(NSEC_PER_SEC / j),
		       intro_usable_cpus(cpus, INTRO_MAX_CPUS));
	ksft_print_msg("env: hypervisor=%s preempt=%s cputime=%s scale=%.2f requested_scale=%.2f\n",
		       hv, intro_preempt_model(), cputime, opts->scale,
		       opts->requested_scale);
	/* /proc/self names the caller in the PID namespace /proc was mounted for */
	n = readlink("/proc/self", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	if (atoi(self) != getpid())
		ksft_exit_skip("/proc is not mounted for this PID namespace (self %s, pid %d)\n",
			       self, getpid());
}

/* true if @word is "key=nan" or "key=inf" (either sign): not measured */
static bool unmeasured(const char *word, size_t len)
{
	const char *value = memchr(word, '=', len);
	char *parsed;
	double v;

	if (!value || value + 1 == word + len)
		return false;
	v = strtod(value + 1, &parsed);
	return parsed == word + len && (isnan(v) || isinf(v));
}

/* Remove the figures of @line that could not be measured. */
static void drop_unmeasured(char *line)
{
	char *word = line, *out = line, *end;
	size_t len;

	while (*word) {
		end = strchrnul(word, ' ');
		len = (size_t)(end - word);
		if (len && !unmeasured(word, len)) {
			if (out != line)
				*out++ = ' ';
			memmove(out, word, len);
			out += len;
		}
		word = *end ? end + 1 : end;
	}
	*out = '\0';
}

void intro_figures(const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(figures, sizeof(figures), fmt, ap);
	va_end(ap);
	drop_unmeasured(figures);
	snprintf(figures_check, sizeof(figures_check), "%s", check);
	ksft_print_msg("%s: %s\n", check, figures);
}

const char *intro_report_prepare(const char *check, int *result,
				 const char *reason)
{
	bool mine = !strcmp(check, figures_check);
	char token[128];
	size_t i;

	if (reason && (*result == KSFT_SKIP || *result == KSFT_XFAIL)) {
		for (i = 0; *reason && i < sizeof(token) - 1; reason++) {
			if (isalnum((unsigned char)*reason))
				token[i++] = *reason;
			else if (i && token[i - 1] != '_')
				token[i++] = '_';
		}
		i -= i && token[i - 1] == '_';
		token[i] = '\0';
		ksft_print_msg("%s: %s_reason=%s\n", check,
			       *result == KSFT_SKIP ? "skip" : "xfail", token);
	}
	if (force_fail && (!strcmp(force_fail, "all") ||
			   !strcmp(force_fail, check))) {
		ksft_print_msg("%s: forced_fail=1\n", check);
		*result = KSFT_FAIL;
	}
	figures_check[0] = '\0';
	return mine ? figures : NULL;
}
