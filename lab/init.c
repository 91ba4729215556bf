// SPDX-License-Identifier: GPL-2.0
/*
 * The /init of the mutant lab's initramfs (project tooling, not part of
 * the collection). Built static by lab/lab.
 *
 * Mounts proc, sysfs, devtmpfs, tmpfs on /tmp and debugfs, prints what the
 * guest is, then runs every program named on its command line from
 * /introspect, one after the other, each in its own process group with a
 * timeout, and powers the machine off (qemu -no-reboot then exits).
 *
 * The kernel passes everything after "--" on its command line to init
 * (after any unknown bare word of the boot line, hence the marker):
 *   /init [...] lab-run TIMEOUT_S SCALE PROG...
 * TIMEOUT_S: seconds each program may run (the collection's `settings`);
 * SCALE: "-" or a factor passed to every program as "--scale SCALE".
 * /lab/PROG.args, if present, holds more arguments for PROG (words
 * separated by blanks; lab/lab writes it from KSELFTEST_<PROG>_ARGS, the
 * variable the kselftest runner uses for the same purpose).
 *
 * Everything the host parses is one line on the console:
 *   LAB-INFO <key>: <value>
 *   LAB-BEGIN <prog>
 *   ... the program's own KTAP output ...
 *   LAB-END <prog> exit=<code>|signal=<n>|timeout secs=<s>
 *   LAB-DONE
 * init waits for a program in a blocking waitpid() (no polling, so it adds
 * no wake-ups to what the programs measure); SIGALRM ends the wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG_DIR	"/introspect"
#define CGROUP_DIR	"/sys/fs/cgroup"
#define LAB_CGROUP	CGROUP_DIR "/lab"
#define ARGS_DIR	"/lab"
#define MAX_ARGS	32

/* SIGALRM only has to interrupt waitpid(): EINTR there means timeout */
static void on_alarm(int sig)
{
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* read up to @len - 1 bytes of @path into @buf, NUL-terminated; 0 or -1 */
static int read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* print the first line of @path as "LAB-INFO @label: ..." */
static void print_file(const char *label, const char *path)
{
	char buf[512];

	if (read_small_file(path, buf, sizeof(buf)))
		return;
	buf[strcspn(buf, "\n")] = '\0';
	printf("LAB-INFO %s: %s\n", label, buf);
}

/*
 * Each CPU's BogoMIPS line of /proc/cpuinfo: loops_per_jiffy * HZ / 500000,
 * the calibration udelay() and ndelay() scale by (x86 __const_udelay(),
 * arm's udelay), so a delay mutant's real length can be checked.
 */
static void print_bogomips(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncasecmp(line, "bogomips", 8))
			printf("LAB-INFO bogomips: %s", strchr(line, ':') ?
			       strchr(line, ':') + 2 : line);
	fclose(f);
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		printf("LAB-INFO mount %s: %s\n", dir, strerror(errno));
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	close(fd);
	return n == (ssize_t)strlen(value) ? 0 : -1;
}

/*
 * lab_cgroup=FILE:VALUE,... on the kernel command line (a variant's
 * Boot-args): mount cgroup v2, enable the memory and pids controllers and
 * set each FILE of the group LAB_CGROUP to VALUE; every program then runs
 * in that group, as in a container. Return: whether the programs go there.
 */
static bool setup_cgroup(void)
{
	static char cmdline[4096];
	char path[256], *arg, *item, *save, *colon;
	bool ok = true;

	if (read_small_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		return false;
	arg = strstr(cmdline, "lab_cgroup=");
	if (!arg)
		return false;
	arg += strlen("lab_cgroup=");
	arg[strcspn(arg, "\n ")] = '\0';
	mount_fs("cgroup2", CGROUP_DIR, "cgroup2");
	if (write_file(CGROUP_DIR "/cgroup.subtree_control", "+memory +pids") ||
	    (mkdir(LAB_CGROUP, 0755) && errno != EEXIST)) {
		printf("LAB-INFO cgroup %s: %s\n", LAB_CGROUP, strerror(errno));
		return false;
	}
	for (item = strtok_r(arg, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		colon = strchr(item, ':');
		if (!colon)
			continue;
		*colon = '\0';
		snprintf(path, sizeof(path), "%s/%s", LAB_CGROUP, item);
		if (write_file(path, colon + 1)) {
			printf("LAB-INFO cgroup %s=%s: %s\n", item, colon + 1,
			       strerror(errno));
			ok = false;
		} else {
			printf("LAB-INFO cgroup %s=%s\n", item, colon + 1);
		}
	}
	return ok;
}

/* append the words of ARGS_DIR/@prog.args to @argv (@argc in/out) */
static void add_file_args(const char *prog, char **argv, int *argc)
{
	static char buf[1024];
	char path[256];
	char *word, *save;

	snprintf(path, sizeof(path), "%s/%s.args", ARGS_DIR, prog);
	if (read_small_file(path, buf, sizeof(buf)))
		return;
	for (word = strtok_r(buf, " \t\n", &save); word && *argc < MAX_ARGS - 1;
	     word = strtok_r(NULL, " \t\n", &save))
		argv[(*argc)++] = word;
}

/* run one program; returns nothing, prints its LAB-END line */
static void run_prog(const char *prog, unsigned int timeout_s,
		     const char *scale, bool in_cgroup)
{
	char path[256];
	char *argv[MAX_ARGS];
	double start;
	bool timed_out = false;
	int argc = 0, i;
	int status = 0;
	pid_t pid, got;

	snprintf(path, sizeof(path), "%s/%s", PROG_DIR, prog);
	argv[argc++] = (char *)prog;
	if (strcmp(scale, "-")) {
		argv[argc++] = "--scale";
		argv[argc++] = (char *)scale;
	}
	add_file_args(prog, argv, &argc);
	argv[argc] = NULL;

	printf("LAB-BEGIN %s", prog);
	for (i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
	start = now_s();
	pid = fork();
	if (pid < 0) {
		printf("LAB-END %s exit=fork-failed secs=0\n", prog);
		return;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (in_cgroup &&
		    write_file(LAB_CGROUP "/cgroup.procs", "0"))
			_exit(125);
		if (chdir(PROG_DIR))
			_exit(126);
		execv(path, argv);
		printf("# lab init: execv %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);

	alarm(timeout_s);
	for (;;) {
		got = waitpid(-1, &status, 0);
		if (got == pid)
			break;
		if (got < 0 && errno == EINTR) {
			timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			continue;
		}
		if (got < 0 && errno == ECHILD)
			break;
		/* an orphan reparented to init: reaped, keep waiting */
	}
	alarm(0);
	/* whatever the program left behind in its group */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;

	if (timed_out)
		printf("LAB-END %s exit=timeout secs=%.2f\n", prog,
		       now_s() - start);
	else if (WIFEXITED(status))
		printf("LAB-END %s exit=%d secs=%.2f\n", prog,
		       WEXITSTATUS(status), now_s() - start);
	else
		printf("LAB-END %s signal=%d secs=%.2f\n", prog,
		       WIFSIGNALED(status) ? WTERMSIG(status) : -1,
		       now_s() - start);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	unsigned int timeout_s;
	const char *scale;
	bool in_cgroup;
	int i;

	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	mount_fs("tmpfs", "/tmp", "tmpfs");
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* no SA_RESTART: SIGALRM must interrupt waitpid() */
	sigaction(SIGALRM, &sa, NULL);

	print_file("version", "/proc/version");
	print_file("cmdline", "/proc/cmdline");
	print_file("preempt", "/sys/kernel/debug/sched/preempt");
	print_file("clocksource",
		   "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	print_file("uptime-at-init", "/proc/uptime");
	print_bogomips();
	/*
	 * kernel.task_delayacct as the guest starts and after each program:
	 * taskstats_tgid's delay check skips while it is 0, so a change
	 * between boots must be visible where it happens
	 */
	print_file("task_delayacct-at-init", "/proc/sys/kernel/task_delayacct");
	in_cgroup = setup_cgroup();

	for (i = 1; i < argc && strcmp(argv[i], "lab-run"); i++)
		;
	if (argc - i < 4) {
		printf("LAB-INFO usage: init lab-run TIMEOUT_S SCALE PROG...\n");
	} else {
		timeout_s = strtoul(argv[i + 1], NULL, 10);
		if (!timeout_s)
			timeout_s = 45;
		scale = argv[i + 2];
		for (i += 3; i < argc; i++) {
			run_prog(argv[i], timeout_s, scale, in_cgroup);
			print_file("task_delayacct-after-prog",
				   "/proc/sys/kernel/task_delayacct");
		}
	}

	print_file("uptime-at-poweroff", "/proc/uptime");
	printf("LAB-DONE\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	printf("LAB-INFO reboot(RB_POWER_OFF): %s\n", strerror(errno));
	reboot(RB_AUTOBOOT);
	return 1;
}
