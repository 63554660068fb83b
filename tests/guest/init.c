// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the usercopy boot test.  Built static (-static -Os) with the
 * target's gcc and put in an initramfs next to uc_selftest.ko and,
 * optionally, a static busybox.
 *
 * It loads the module, runs every case in a child of its own and reports,
 * as KTAP, what it saw: whether the child was killed, and the direction and
 * class of the "usercopy:" line the kernel logged meanwhile.  It does not
 * know what to expect; the host compares the "# obs:" lines with its table.
 * A legitimate workload follows, which must log no "usercopy:" line at all.
 * The report goes to the console and, when it exists, to the second serial
 * port, which carries nothing else.  Then the machine is powered off.
 *
 * Run as "init --case NAME" under a full userspace (the soak, whose script
 * has loaded the module), it runs that one case in its own process and
 * exits as a case child does: killed by the kernel, or 0 when the copy
 * went through.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <linux/fb.h>
#include <linux/futex.h>
#ifdef __i386__
#include <sys/vm86.h>
#endif

#include "uc_selftest.h"

#define MODULE_PATH	"/uc_selftest.ko"
#define DEVICE_PATH	"/dev/uc_selftest"
/* A case child's exit: a bug replayed found its fix (the kernel said no). */
#define REFUSED_EXIT	15
#define BUSYBOX_PATH	"/bin/busybox"
#define KTAP_TTY	"/dev/ttyS1"
#define DONE_MARKER	"# UC-SUITE-DONE"

/* A case that takes longer than this is stuck (TCG is slow, oopses more). */
#define CASE_TIMEOUT_MS		60000
/* How long the legitimate workload keeps going. */
#define WORKLOAD_MS		4000
#define MAX_UC_LINES		8
#define LINE_MAX_LEN		512

/* The workload's busybox part; "set -e": every step must succeed. */
static const char busybox_script[] =
	"set -e\n"
	"cat /proc/version /proc/meminfo /proc/cpuinfo /proc/stat >/dev/null\n"
	"cat /proc/self/status /proc/self/maps /proc/mounts >/dev/null\n"
	"ls -l /proc/self/ /proc/1/ /dev >/dev/null\n"
	"ls -lR /sys >/dev/null 2>&1 || true\n"
	"find /sys/kernel /sys/devices -name uevent | head -n 50 | "
	"xargs cat >/dev/null 2>&1 || true\n"
	"ps >/dev/null\n"
	"uname -a >/dev/null\n"
	"dd if=/dev/zero bs=4096 count=64 2>/dev/null | "
	"dd of=/dev/null bs=517 2>/dev/null\n"
	"dd if=/dev/urandom bs=1000 count=16 2>/dev/null | md5sum >/dev/null\n"
	"mkdir -p /tmp/wl/a/b\n"
	"seq 1 500 > /tmp/wl/a/b/f\n"
	"sort -r /tmp/wl/a/b/f | tail -n 3 >/dev/null\n"
	"cp /tmp/wl/a/b/f /tmp/wl/a/g\n"
	"cmp /tmp/wl/a/b/f /tmp/wl/a/g\n"
	"touch /tmp/wl/a/t; mv /tmp/wl/a/t /tmp/wl/a/u; ls -la /tmp/wl/a >/dev/null\n"
	"rm -rf /tmp/wl\n"
	"echo $$ | grep -q '[0-9]'\n";

static int ktap_fd = -1;
static int kmsg_fd = -1;
/* Before 3.5 /dev/kmsg cannot be read: the log comes from syslog(2). */
static int kmsg_syslog;

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int put(int fd, const char *buf, int len)
{
	return write(fd, buf, len) == len ? 0 : -1;
}

/* One line of report, to the console and to the KTAP port. */
static void emit(const char *fmt, ...)
{
	char line[LINE_MAX_LEN + 64];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (len > (int)sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	/* A console write error has nowhere to go; the KTAP port may work. */
	put(STDOUT_FILENO, line, len);
	if (ktap_fd >= 0 && put(ktap_fd, line, len) < 0) {
		close(ktap_fd);
		ktap_fd = -1;
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void setup_console(void)
{
	int fd;

	mkdir("/dev", 0755);
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/tmp", 01777);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");

	/* Without /dev/console in the initramfs there is no stdio yet. */
	if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
		fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			if (fd > STDERR_FILENO)
				close(fd);
		}
	}

	ktap_fd = open(KTAP_TTY, O_WRONLY | O_NOCTTY);
	if (ktap_fd >= 0) {
		struct termios t;

		if (tcgetattr(ktap_fd, &t) == 0) {
			cfmakeraw(&t);
			tcsetattr(ktap_fd, TCSANOW, &t);
		}
	}
}

/* Forget what the kernel logged so far. */
static void kmsg_mark(void)
{
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	else if (kmsg_syslog)
		klogctl(5, NULL, 0);	/* SYSLOG_ACTION_CLEAR */
}

/* The kernel log can be read, from /dev/kmsg or with syslog(2). */
static int kmsg_readable(void)
{
	return kmsg_fd >= 0 || kmsg_syslog;
}

/* kmsg_collect() for syslog(2): the lines logged since the last clear. */
static int syslog_collect(char lines[][LINE_MAX_LEN], int max)
{
	static char buf[1 << 17];
	int len = klogctl(3, buf, sizeof(buf) - 1);	/* SYSLOG_ACTION_READ_ALL */
	char *line, *next, *uc;
	int found = 0;

	if (len <= 0)
		return 0;
	buf[len] = '\0';
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		uc = strstr(line, "usercopy: ");
		if (uc && found < max) {
			snprintf(lines[found], LINE_MAX_LEN, "%s", uc);
			found++;
		}
	}
	return found;
}

/*
 * Collect the "usercopy:" lines logged since kmsg_mark().  Each read of
 * /dev/kmsg returns one record: "prio,seq,usec,flags;text\n" followed by
 * optional continuation lines.
 */
static int kmsg_collect(char lines[][LINE_MAX_LEN], int max)
{
	char rec[2048];
	int found = 0;

	if (kmsg_syslog)
		return syslog_collect(lines, max);
	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		ssize_t len = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *text, *end, *uc;

		if (len < 0 && errno == EPIPE)
			continue;	/* records were overwritten; go on */
		if (len <= 0)
			break;
		rec[len] = '\0';
		text = strchr(rec, ';');
		if (!text)
			continue;
		text++;
		end = strchr(text, '\n');
		if (end)
			*end = '\0';
		uc = strstr(text, "usercopy: ");
		/* The rate limiter's own line: "report_usercopy: N callbacks suppressed". */
		if (!uc || strstr(text, "callbacks suppressed"))
			continue;
		if (found < max) {
			snprintf(lines[found], LINE_MAX_LEN, "%s", uc);
			found++;
		}
	}
	return found;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Class of a type as 4.8-style reports print it: "(<process stack>)". */
static const char *classify_old(const char *type)
{
	if (starts_with(type, "unknown)"))
		return "other";	/* no type given */
	if (type[0] != '<')
		return "slab";	/* a slab cache name, e.g. kmalloc-64 */
	if (starts_with(type, "<null>"))
		return "null";
	if (starts_with(type, "<wrapped address>"))
		return "wrap";
	if (starts_with(type, "<process stack>"))
		return "stack";
	if (starts_with(type, "<kernel text>") ||
	    starts_with(type, "<linear kernel text>"))
		return "text";
	if (starts_with(type, "<rodata>"))
		return "rodata";
	if (starts_with(type, "<spans ") || starts_with(type, "<page alloc>"))
		return "page";	/* multiple pages, Reserved or CMA mixes */
	return "other";
}

/* Class as newer kernels print it: "from SLUB object 'kmalloc-64' (...". */
static const char *classify_new(const char *type)
{
	if (starts_with(type, "slub object") || starts_with(type, "slab object"))
		return "slab";
	if (starts_with(type, "null address"))
		return "null";
	if (starts_with(type, "wrapped address"))
		return "wrap";
	if (starts_with(type, "process stack"))
		return "stack";
	if (starts_with(type, "kernel text") ||
	    starts_with(type, "linear kernel text"))
		return "text";
	if (starts_with(type, "vmalloc"))
		return "vmalloc";
	if (starts_with(type, "kmap"))
		return "kmap";
	if (starts_with(type, "page alloc") || starts_with(type, "spans "))
		return "page";
	return "other";
}

/*
 * Reduce a report to (direction, class).  Old format:
 *   usercopy: kernel memory exposure attempt detected from PTR (TYPE) (N bytes)
 * New format:
 *   usercopy: Kernel memory exposure attempt detected from TYPE... (offset ..)
 */
static void classify(const char *line, const char **dir, const char **cls)
{
	char low[LINE_MAX_LEN];
	const char *rest, *sp;
	size_t i;

	for (i = 0; line[i] && i < sizeof(low) - 1; i++)
		low[i] = tolower((unsigned char)line[i]);
	low[i] = '\0';

	*dir = "unknown";
	if (strstr(low, "memory exposure attempt"))
		*dir = "exposure";
	else if (strstr(low, "memory overwrite attempt"))
		*dir = "overwrite";

	*cls = "other";
	rest = strstr(low, "detected from ");
	if (rest) {
		rest += strlen("detected from ");
	} else {
		rest = strstr(low, "detected to ");
		if (!rest)
			return;
		rest += strlen("detected to ");
	}

	/*
	 * Old format: "PTR (TYPE) (N bytes)".  Read it from the end: older
	 * kernels print a NULL %p as a padded "(null)", so the pointer is not
	 * always one token.
	 */
	sp = strstr(rest, " bytes)");
	if (sp) {
		const char *close = sp;

		while (close > rest && *close != '(')
			close--;	/* "(N bytes)" */
		while (close > rest && *close != ')')
			close--;	/* end of "(TYPE)" */
		if (close > rest) {
			const char *open = close;

			while (open > rest && *open != '(')
				open--;
			if (*open == '(') {
				*cls = classify_old(open + 1);
				return;
			}
		}
	}

	/* Old format: one pointer token, then " (" and the type. */
	sp = strchr(rest, ' ');
	if (sp && sp[1] == '(' && !starts_with(rest, "slub ") &&
	    !starts_with(rest, "slab ")) {
		const char *word_end = rest;

		while (word_end < sp && (isxdigit((unsigned char)*word_end) ||
					 strchr("x()nul", *word_end)))
			word_end++;
		if (word_end == sp) {
			*cls = classify_old(sp + 2);
			return;
		}
	}
	*cls = classify_new(rest);
}

/*
 * A case that kills its task sends it through do_exit() straight from the
 * oops, and do_exit() then reads the robust futex list and clears the
 * clear_child_tid word, both user accesses.  Debian's 6.1 on QEMU's sun4u
 * enters that path with %asi left at ASI_P (not ASI_AIUS, which 4.9-4.19's
 * set_fs(USER_DS) in do_exit() restored) and spins on the first of them
 * forever (kernels/6.1).  A case child needs neither, so it drops both
 * (glibc registers them at fork) and its exit makes no user access.
 */
static void drop_exit_user_accesses(void)
{
	syscall(SYS_set_robust_list, NULL, sizeof(struct robust_list_head));
	syscall(SYS_set_tid_address, NULL);
}

static void child_run_case(unsigned int test)
{
	struct uc_selftest_req req;
	char *buf;
	int fd, tries;

	drop_exit_user_accesses();
	buf = malloc(UC_SELFTEST_BUF_SIZE);
	if (!buf)
		_exit(3);
	/* Fault the buffer in now, not in the middle of a case. */
	memset(buf, 0x5a, UC_SELFTEST_BUF_SIZE);

	for (tries = 0; tries < 50; tries++) {
		fd = open(DEVICE_PATH, O_RDWR);
		if (fd >= 0 || errno != ENOENT)
			break;
		sleep_ms(100);
	}
	if (fd < 0)
		_exit(2);

	memset(&req, 0, sizeof(req));
	req.test = test;
	req.buf = (uintptr_t)buf;
	req.len = UC_SELFTEST_BUF_SIZE;
	if (ioctl(fd, UC_SELFTEST_IOC_RUN, &req) < 0)
		_exit(errno > 0 && errno < 200 ? 16 + errno : 4);
	_exit(0);
}

/* Wait for a child, killing it if it takes too long: its wait status. */
static int reap(pid_t pid, long timeout_ms, int *timed_out)
{
	long deadline = now_ms() + timeout_ms;
	int status = 0;

	*timed_out = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (now_ms() > deadline) {
			if (!*timed_out) {
				*timed_out = 1;
				kill(pid, SIGKILL);
				deadline = now_ms() + 5000;
				continue;
			}
			return -1;	/* stuck in the kernel */
		}
		sleep_ms(5);
	}
}

static const char *exit_reason(int status, char *buf, size_t size)
{
	int code = WEXITSTATUS(status);

	if (code == 2)
		snprintf(buf, size, "cannot open %s", DEVICE_PATH);
	else if (code >= 16)
		snprintf(buf, size, "ioctl failed: %s", strerror(code - 16));
	else
		snprintf(buf, size, "child exited with %d", code);
	return buf;
}

struct observation {
	char text[96];		/* what the host compares: "killed exposure slab" */
	char reason[160];	/* why the case could not be observed, if so */
	int nlines;
	char lines[MAX_UC_LINES][LINE_MAX_LEN];
};

/*
 * Fate from the wait status, plus the first usercopy report's direction
 * and class when there is one: "killed exposure slab", "survived",
 * "survived overwrite stack" (reported but not stopped), "failed" (the case
 * did not run: bad ioctl, timeout).
 */
static void observe(struct observation *o, int status, int timed_out)
{
	const char *fate, *dir, *cls;

	o->reason[0] = '\0';
	if (status == -1 || timed_out) {
		fate = "failed";
		snprintf(o->reason, sizeof(o->reason), "%s",
			 timed_out ? "timed out" : "lost the child");
	} else if (WIFSIGNALED(status)) {
		fate = "killed";
	} else if (WEXITSTATUS(status) == 0) {
		fate = "survived";
	} else if (WEXITSTATUS(status) == 16 + EOPNOTSUPP) {
		fate = "n/a";	/* the kernel lacks the routine the case needs */
	} else if (WEXITSTATUS(status) == REFUSED_EXIT) {
		fate = "refused";	/* a bug's fix is in: the kernel said no */
	} else {
		fate = "failed";
		exit_reason(status, o->reason, sizeof(o->reason));
	}

	o->nlines = kmsg_collect(o->lines, MAX_UC_LINES);
	if (o->nlines) {
		classify(o->lines[0], &dir, &cls);
		snprintf(o->text, sizeof(o->text), "%s %s %s", fate, dir, cls);
	} else {
		snprintf(o->text, sizeof(o->text), "%s", fate);
	}
}

static void report_lines(const struct observation *o, const char *name,
			 int status)
{
	int i;

	emit("# obs: %s %s", name, o->text);
	if (status != -1 && WIFSIGNALED(status))
		emit("# %s: killed by signal %d", name, WTERMSIG(status));
	for (i = 0; i < o->nlines; i++)
		emit("# %s: %s", name, o->lines[i]);
}

#define UC_SELFTEST_NAME(id, name, violation)	[id] = #name,
static const char * const case_names[UC_NR_CASES] = {
	UC_SELFTEST_CASES(UC_SELFTEST_NAME)
};
#undef UC_SELFTEST_NAME

/*
 * Under hardened_usercopy=warn the kernel rate-limits its reports (10 in
 * 5 s), and a copy may be checked twice (i386's copy_to_user() and the
 * __copy_to_user() under it): cases 1100 ms apart stay under the limit,
 * so each report is seen.
 */
static unsigned int case_gap_ms;

static void pace_for_warn_mode(void)
{
	char cmdline[4096];
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n <= 0)
		return;
	cmdline[n] = '\0';
	if (strstr(cmdline, "hardened_usercopy=warn")) {
		case_gap_ms = 1100;
		emit("# hardened_usercopy=warn: cases %u ms apart (the reports are rate-limited)",
		     case_gap_ms);
	}
}

static int run_case(unsigned int test, int number)
{
	struct observation o;
	int status, timed_out;
	long start;
	pid_t pid;

	if (case_gap_ms)
		usleep(case_gap_ms * 1000);
	start = now_ms();
	kmsg_mark();
	pid = fork();
	if (pid == 0)
		child_run_case(test);
	if (pid < 0) {
		emit("not ok %d %s # fork: %s", number, case_names[test],
		     strerror(errno));
		return 0;
	}
	status = reap(pid, CASE_TIMEOUT_MS, &timed_out);
	observe(&o, status, timed_out);
	report_lines(&o, case_names[test], status);
	emit("# %s: %ld ms", case_names[test], now_ms() - start);
	if (o.reason[0]) {
		emit("not ok %d %s # %s", number, case_names[test], o.reason);
		return 0;
	}
	emit("ok %d %s", number, case_names[test]);
	return 1;
}

/* Workload, C part: read, walk and copy through the usual syscalls. */
static void slurp(const char *path)
{
	char buf[3000];
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
}

static void walk(const char *dir, int depth)
{
	char path[512], target[512];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (depth > 6)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, depth + 1);
		else if (S_ISLNK(st.st_mode))
			readlink(path, target, sizeof(target));
	}
	closedir(d);
}

static int c_workload_round(void)
{
	static const char * const files[] = {
		"/proc/version", "/proc/meminfo", "/proc/cpuinfo",
		"/proc/stat", "/proc/self/status", "/proc/self/maps",
		"/proc/self/stat", "/proc/mounts", "/proc/interrupts",
		"/sys/kernel/uevent_seqnum",
	};
	char buf[8192], back[8192];
	struct utsname u;
	struct stat st;
	int p[2], fd;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		slurp(files[i]);
	walk("/sys", 0);
	uname(&u);

	memset(buf, 'w', sizeof(buf));
	if (pipe(p) < 0)
		return -1;
	for (i = 1; i <= sizeof(buf); i = i * 3 + 1) {
		if (write(p[1], buf, i) != (ssize_t)i ||
		    read(p[0], back, i) != (ssize_t)i)
			return -1;
	}
	close(p[0]);
	close(p[1]);

	mkdir("/tmp/cw", 0755);
	fd = open("/tmp/cw/file", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    pread(fd, back, sizeof(back), 0) != sizeof(back) ||
	    memcmp(buf, back, sizeof(buf))) {
		close(fd);
		return -1;
	}
	fstat(fd, &st);
	close(fd);
	if (rename("/tmp/cw/file", "/tmp/cw/moved") < 0 ||
	    unlink("/tmp/cw/moved") < 0 || rmdir("/tmp/cw") < 0)
		return -1;
	return 0;
}

static int run_busybox(void)
{
	int status, timed_out;
	pid_t pid = fork();

	if (pid == 0) {
		execl(BUSYBOX_PATH, "sh", "-c", busybox_script, (char *)NULL);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	status = reap(pid, CASE_TIMEOUT_MS, &timed_out);
	if (status == -1 || timed_out)
		return -1;
	return status;
}

/* The workload runs in its own process: a false positive kills it, not us. */
static void child_workload(int have_busybox)
{
	long end = now_ms() + WORKLOAD_MS;
	int rounds = 0;

	do {
		if (c_workload_round() < 0)
			_exit(5);
		if (have_busybox) {
			int st = run_busybox();

			if (st == -1)
				_exit(6);
			if (WIFSIGNALED(st))
				_exit(7);
			if (WEXITSTATUS(st))
				_exit(8);
		}
		rounds++;
	} while (now_ms() < end);
	_exit(0);
}

static int run_workload(int number)
{
	static const char name[] = "workload_no_false_positive";
	struct observation o;
	struct stat st;
	int have_busybox = stat(BUSYBOX_PATH, &st) == 0;
	int status, timed_out;
	long start = now_ms();
	pid_t pid;

	emit("# %s: busybox %s", name, have_busybox ? "present" :
	     "absent, C workload only");
	kmsg_mark();
	pid = fork();
	if (pid == 0)
		child_workload(have_busybox);
	if (pid < 0) {
		emit("not ok %d %s # fork: %s", number, name, strerror(errno));
		return 0;
	}
	status = reap(pid, CASE_TIMEOUT_MS + WORKLOAD_MS, &timed_out);
	observe(&o, status, timed_out);
	if (!o.reason[0] && status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status)) {
		snprintf(o.reason, sizeof(o.reason),
			 "workload step %d failed", WEXITSTATUS(status));
	}
	report_lines(&o, name, status);
	emit("# %s: %ld ms", name, now_ms() - start);
	if (o.nlines) {
		emit("not ok %d %s # usercopy report during legitimate work",
		     number, name);
		return 0;
	}
	if (!kmsg_readable()) {
		emit("not ok %d %s # cannot read the kernel log", number, name);
		return 0;
	}
	if (o.reason[0] || strcmp(o.text, "survived")) {
		emit("not ok %d %s # %s", number, name,
		     o.reason[0] ? o.reason : o.text);
		return 0;
	}
	emit("ok %d %s", number, name);
	return 1;
}

/*
 * A round trip through vm86 mode (i386 with CONFIG_VM86): real-mode code
 * that is one "hlt", which faults back to 32-bit mode, where the kernel
 * copies the vm86 registers out to the caller (copy_vm86_regs_to_user()
 * before 4.3: from the trap frame, above every C frame of the stack).  A
 * legitimate copy: the process must survive it.  Exits 16 + EOPNOTSUPP
 * where there is no vm86 mode (n/a).
 */
static void child_vm86(void)
{
#ifdef __i386__
	struct vm86plus_struct v;
	unsigned char *code;
	long ret;

	code = mmap((void *)0x10000, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		_exit(9);
	code[0] = 0xf4;				/* hlt */
	memset(&v, 0, sizeof(v));
	v.regs.cs = v.regs.ss = v.regs.ds = v.regs.es = 0x1000;
	v.regs.eip = 0;
	v.regs.esp = 0x800;
	v.regs.eflags = 0x202;			/* IF, and bit 1 */
	v.cpu_type = CPU_386;
	ret = syscall(SYS_vm86, VM86_ENTER, &v);
	if (ret < 0 && errno == ENOSYS)
		_exit(16 + EOPNOTSUPP);
	_exit(ret < 0 ? 10 : 0);
#else
	_exit(16 + EOPNOTSUPP);
#endif
}

/*
 * Real bugs replayed: a historical kernel bug whose primitive is an
 * over-long or misdirected copy of a kernel object, driven from user
 * space as its exploit would.  "survived" means the bad copy went through
 * (the stock kernel leaks or overwrites), "killed exposure slab" (say)
 * that hardened usercopy refused it, "refused" that the kernel carries
 * the bug's fix, n/a that the kernel lacks the device (config profile
 * realbugs has them).
 *
 * CVE-2016-8405, fixed by "fbdev: color map copying bounds checking"
 * (4.10; of the trees here 3.10.108, 3.18.140, 4.1.52 and 4.4 have it):
 * fb_cmap_to_user() keeps the offset into the colour map in an int, so a
 * start above 0x7fffffff makes it negative and FBIOGETCMAP copies from
 * before the kmalloc()ed red[], green[] and blue[] arrays (256 entries,
 * kmalloc-512 each) into the caller's buffers.  Eight entries before:
 * each copy starts 16 bytes before its array, in the last bytes of the
 * object below it.
 */
static void child_bug_fb_cmap(void)
{
	__u16 red[32], green[32], blue[32];
	struct fb_cmap cmap = {
		.start = 0xfffffff8u, .len = 32,
		.red = red, .green = green, .blue = blue,
	};
	int fd = -1, tries;

	drop_exit_user_accesses();
	for (tries = 0; tries < 20 && fd < 0; tries++) {
		fd = open("/dev/fb0", O_RDWR);
		if (fd < 0 && errno != ENOENT)
			break;
		if (fd < 0)
			sleep_ms(100);
	}
	if (fd < 0)
		_exit(16 + EOPNOTSUPP);
	memset(red, 0xa5, sizeof(red));
	if (ioctl(fd, FBIOGETCMAP, &cmap) < 0)
		_exit(errno == EINVAL ? REFUSED_EXIT : 16 + errno);
	emit("# bug_fb_cmap_leak: 16 bytes from below red[]: "
	     "%04x %04x %04x %04x %04x %04x %04x %04x",
	     red[0], red[1], red[2], red[3], red[4], red[5], red[6], red[7]);
	_exit(0);
}

/*
 * A syslog(2) read that resumes a line with another printk.time (no CVE;
 * mainline 6.1 keeps "syslog_time", the printk_time of the line's start,
 * for partial reads; 3.10-4.4 format the rest of the line with the
 * current setting).  syslog_print() formats a record into a
 * kmalloc(LOG_LINE_MAX + PREFIX_MAX) buffer (kmalloc-1024) and copies
 * out what is left after syslog_partial.  Read part of a line with
 * timestamps on, turn them off: the line is now shorter than the part
 * already read, the unsigned difference wraps, and the whole request
 * (4096 bytes) is copied from beyond the part read: a heap over-read
 * that root can walk on.  Byte-stream printk (3.2, 3.4) and mainline
 * return the rest of the line: "refused".
 */
#define PRINTK_TIME	"/sys/module/printk/parameters/time"

static char printk_time_saved = 'N';

static int write_param(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = -1;

	if (fd >= 0) {
		ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
		close(fd);
	}
	return ret;
}

static void child_bug_syslog_partial(void)
{
	static const char marker[] = "uc-bug-syslog-partial";
	static const char line[] = "uc-bug-syslog-partial\n";
	static char buf[8192];
	int fd, part, got, tries;

	drop_exit_user_accesses();
	for (tries = 0; tries < 64 && klogctl(9, NULL, 0) > 0; tries++)
		klogctl(2, buf, sizeof(buf));	/* SYSLOG_ACTION_READ */
	if (write_param(PRINTK_TIME, "Y") < 0)
		_exit(16 + EOPNOTSUPP);
	/*
	 * A whole line (without its newline it waits as a continuation), in
	 * one write(): /dev/kmsg opened write-only refuses lseek(), which
	 * stdio's dprintf() tries first.
	 */
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		_exit(13);
	close(fd);
	/*
	 * "<12>[    2.345678] uc-bug-syslog-partial\n": read past the
	 * timestamp-less line's length, short of the whole line.
	 */
	part = strlen(marker) + 12;
	got = klogctl(2, buf, part);
	if (got != part || !memmem(buf, got, "] uc-bug-", 9))
		_exit(14);
	if (write_param(PRINTK_TIME, "N") < 0)
		_exit(12);
	got = klogctl(2, buf, 4096);
	if (got <= 64)
		_exit(REFUSED_EXIT);
	emit("# bug_syslog_partial_leak: %d bytes for the %d-byte rest of a line",
	     got, (int)(strlen(marker) + 20 - part));
	_exit(0);
}

/*
 * XFS_IOC_ATTRMULTI_BY_HANDLE with the kernel-only flag ATTR_KERNOVAL (no
 * CVE; fixed by "xfs: clear kernel only flags in
 * XFS_IOC_ATTRMULTI_BY_HANDLE", 953aa9d136f5, 5.6; never in 3.2-4.4.y):
 * xfs_attrmulti_attr_get() allocates the caller's am_length (kmalloc()
 * first on every branch here), the flag makes xfs_attr_get() store the
 * attribute's real length in am_length without copying the value, and
 * copy_to_user() then copies that many bytes out of the small object: a
 * heap over-read by the holder of CAP_SYS_ADMIN on any XFS mount.  The
 * filesystem is /xfs.img (made by ci/boot.sh with mkfs.xfs where the build
 * has XFS) on /dev/loop0; a 256-byte value read into a 32-byte buffer
 * copies 256 bytes from a kmalloc-32 object.  A kernel that masks the flag
 * (or 6.1, which ignores it) says -ERANGE: "refused".
 */
#define UC_LOOP_SET_FD		0x4C00
#define UC_ATTR_KERNOVAL	0x2000
#define UC_ATTR_OP_GET		1
#define UC_XFS_VALUE_LEN	256
#define UC_XFS_ASKED_LEN	32

struct uc_xfs_handlereq {		/* struct xfs_fsop_handlereq */
	__u32 fd;
	void *path;
	__u32 oflags;
	void *ihandle;
	__u32 ihandlen;
	void *ohandle;
	__u32 *ohandlen;
};

struct uc_xfs_attr_multiop {		/* struct xfs_attr_multiop */
	__u32 am_opcode;
	__s32 am_error;
	void *am_attrname;
	void *am_attrvalue;
	__u32 am_length;
	__u32 am_flags;
};

struct uc_xfs_attrmulti_req {		/* struct xfs_fsop_attrmulti_handlereq */
	struct uc_xfs_handlereq hreq;
	__u32 opcount;
	struct uc_xfs_attr_multiop *ops;
};

#define UC_XFS_IOC_PATH_TO_HANDLE	_IOWR('X', 105, struct uc_xfs_handlereq)
#define UC_XFS_IOC_ATTRMULTI		_IOW('X', 123, struct uc_xfs_attrmulti_req)

static void child_bug_xfs_attrmulti(void)
{
	static const char path[] = "/tmp/xfs/uc-bug-xfs";
	static unsigned char value[UC_XFS_VALUE_LEN], buf[4096];
	unsigned char *got = buf;
	unsigned char handle[128];
	__u32 hlen = sizeof(handle);
	struct uc_xfs_attr_multiop op = {
		.am_opcode = UC_ATTR_OP_GET, .am_attrname = "uc",
		.am_attrvalue = got, .am_length = UC_XFS_ASKED_LEN,
		.am_flags = UC_ATTR_KERNOVAL,
	};
	struct uc_xfs_attrmulti_req req = { .opcount = 1, .ops = &op };
	struct uc_xfs_handlereq hreq = {
		.path = (void *)path, .ohandle = handle, .ohandlen = &hlen,
	};
	int img, loop, fd, dir;

	drop_exit_user_accesses();
	img = open("/xfs.img", O_RDWR);
	if (img < 0)
		_exit(16 + EOPNOTSUPP);
	loop = open("/dev/loop0", O_RDWR);
	if (loop < 0 && errno == ENOENT &&
	    mknod("/dev/loop0", S_IFBLK | 0600, makedev(7, 0)) == 0)
		loop = open("/dev/loop0", O_RDWR);
	if (loop < 0)
		_exit(16 + EOPNOTSUPP);
	if (ioctl(loop, UC_LOOP_SET_FD, img) < 0 && errno != EBUSY)
		_exit(12);
	mkdir("/tmp/xfs", 0755);
	if (mount("/dev/loop0", "/tmp/xfs", "xfs", 0, NULL) < 0 &&
	    errno != EBUSY)
		_exit(errno == ENODEV ? 16 + EOPNOTSUPP : 13);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		_exit(14);
	memset(value, 'U', sizeof(value));
	if (fsetxattr(fd, "user.uc", value, sizeof(value), 0) < 0)
		_exit(16 + errno);
	close(fd);
	/* Handle calls go through a directory of the filesystem. */
	dir = open("/tmp/xfs", O_RDONLY | O_DIRECTORY);
	if (dir < 0)
		_exit(14);
	if (ioctl(dir, UC_XFS_IOC_PATH_TO_HANDLE, &hreq) < 0)
		_exit(16 + errno);
	req.hreq.ihandle = handle;
	req.hreq.ihandlen = hlen;
	if (ioctl(dir, UC_XFS_IOC_ATTRMULTI, &req) < 0)
		_exit(16 + errno);
	if (op.am_error == -ERANGE)
		_exit(REFUSED_EXIT);
	if (op.am_error)
		_exit(16 + (op.am_error < 0 ? -op.am_error : 1));
	if (op.am_length <= UC_XFS_ASKED_LEN)
		_exit(REFUSED_EXIT);
	got += UC_XFS_ASKED_LEN;
	emit("# bug_xfs_attrmulti_leak: %u bytes for a %d-byte buffer, past "
	     "it: %02x %02x %02x %02x %02x %02x %02x %02x", op.am_length,
	     UC_XFS_ASKED_LEN, got[0], got[1], got[2], got[3], got[4], got[5],
	     got[6], got[7]);
	_exit(0);
}

static void save_printk_time(void)
{
	char c = 'N';
	int fd = open(PRINTK_TIME, O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &c, 1) == 1)
			printk_time_saved = c;
		close(fd);
	}
}

static void restore_printk_time(void)
{
	char val[2] = { printk_time_saved, '\0' };

	write_param(PRINTK_TIME, val);
}

/*
 * /proc/kcore and /dev/mem read as a debugger reads them (gdb vmlinux
 * /proc/kcore, crash, drgn, perf): the first page of every PT_LOAD segment
 * of /proc/kcore (x86_64's kernel text segment among them), then the page
 * of /dev/mem where /proc/iomem puts "Kernel code" (its linear-map alias).
 * A legitimate copy: root asked for those bytes.  Before the series read
 * them through a bounce buffer (cocci/kcore-devmem-bounce.cocci) the check
 * killed the reader ("<kernel text>").  n/a without /proc/kcore.
 */
static int kcore_segments(int fd, unsigned long long *off, int max)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} eh;
	union {
		Elf32_Phdr p32;
		Elf64_Phdr p64;
	} ph;
	unsigned long long phoff;
	int wide, i, n = 0, count, size;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.ident, ELFMAG, SELFMAG))
		return -1;
	wide = eh.ident[EI_CLASS] == ELFCLASS64;
	phoff = wide ? eh.e64.e_phoff : eh.e32.e_phoff;
	count = wide ? eh.e64.e_phnum : eh.e32.e_phnum;
	size = wide ? eh.e64.e_phentsize : eh.e32.e_phentsize;
	for (i = 0; i < count && n < max; i++) {
		if (pread(fd, &ph, sizeof(ph), phoff + (off_t)i * size) <
		    (wide ? (ssize_t)sizeof(ph.p64) : (ssize_t)sizeof(ph.p32)))
			return -1;
		if (wide && ph.p64.p_type == PT_LOAD && ph.p64.p_memsz)
			off[n++] = ph.p64.p_offset;
		else if (!wide && ph.p32.p_type == PT_LOAD && ph.p32.p_memsz)
			off[n++] = ph.p32.p_offset;
	}
	return n;
}

/* The physical start of "Kernel code" in /proc/iomem, or -1. */
static long long kernel_code_phys(void)
{
	char line[256];
	unsigned long long start = 0;
	long long found = -1;
	FILE *f = fopen("/proc/iomem", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ": Kernel code") &&
		    sscanf(line, " %llx-", &start) == 1) {
			found = start;
			break;
		}
	fclose(f);
	return found;
}

static void child_kcore_devmem(void)
{
	static char page[4096];
	unsigned long long off[32];
	long long phys;
	int fd, i, n, got = 0;

	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		_exit(errno == ENOENT ? 16 + EOPNOTSUPP : 16 + errno);
	n = kcore_segments(fd, off, 32);
	if (n <= 0)
		_exit(11);
	for (i = 0; i < n; i++)
		if (pread(fd, page, sizeof(page), off[i]) > 0)
			got++;
	close(fd);
	emit("# kcore_devmem_read: %d of %d /proc/kcore segments read", got, n);
	phys = kernel_code_phys();
	fd = open("/dev/mem", O_RDONLY);
	if (phys < 0 || fd < 0) {
		emit("# kcore_devmem_read: /dev/mem not read (%s)",
		     phys < 0 ? "no Kernel code in /proc/iomem" : strerror(errno));
	} else {
		ssize_t r = pread(fd, page, sizeof(page), phys);

		emit("# kcore_devmem_read: /dev/mem at %llx (Kernel code): %s",
		     phys, r == sizeof(page) ? "read" :
		     r < 0 ? strerror(errno) : "short read");
		close(fd);
	}
	_exit(got ? 0 : 12);
}

/*
 * One case whose kernel copy user space drives (vm86, a bug replayed):
 * FN runs in a child of its own and exits as a case child does.
 */
static int run_user_case(const char *name, void (*fn)(void), int number)
{
	struct observation o;
	int status, timed_out;
	pid_t pid;

	if (case_gap_ms)
		usleep(case_gap_ms * 1000);
	kmsg_mark();
	pid = fork();
	if (pid == 0)
		fn();
	if (pid < 0) {
		emit("not ok %d %s # fork: %s", number, name, strerror(errno));
		return 0;
	}
	status = reap(pid, CASE_TIMEOUT_MS, &timed_out);
	observe(&o, status, timed_out);
	report_lines(&o, name, status);
	if (o.reason[0]) {
		emit("not ok %d %s # %s", number, name, o.reason);
		return 0;
	}
	emit("ok %d %s", number, name);
	return 1;
}

/* An oops must kill only the child: make sure it does not panic. */
static void no_panic_on_oops(void)
{
	char val[8] = "";
	int fd = open("/proc/sys/kernel/panic_on_oops", O_RDWR);

	if (fd < 0)
		return;
	if (read(fd, val, sizeof(val) - 1) > 0 && val[0] != '0') {
		if (pwrite(fd, "0\n", 2, 0) == 2)
			emit("# panic_on_oops was %c, set to 0", val[0]);
		else
			emit("# panic_on_oops is %c and cannot be cleared",
			     val[0]);
	}
	close(fd);
}

/* init_module() from a copy in memory: kernels without finit_module(). */
static int load_module_image(int fd)
{
	struct stat st;
	char *image;
	ssize_t got;
	int ret;

	if (fstat(fd, &st) < 0)
		return -errno;
	image = malloc(st.st_size);
	if (!image)
		return -ENOMEM;
	got = pread(fd, image, st.st_size, 0);
	if (got != st.st_size)
		ret = got < 0 ? -errno : -EIO;
	else if (syscall(SYS_init_module, image, (unsigned long)got, "") < 0)
		ret = -errno;
	else
		ret = 0;
	free(image);
	return ret;
}

static int load_module(void)
{
	int fd = open(MODULE_PATH, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	if (ret < 0)
		ret = -errno;
	if (ret == -ENOSYS)
		ret = load_module_image(fd);	/* before 3.8 */
	close(fd);
	return ret;
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* No ACPI: with qemu -no-reboot a reboot ends the run too. */
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

/* init --case NAME: one case, in this process (it does not return). */
static int run_one_case(const char *name)
{
	unsigned int test;

	for (test = 0; test < UC_NR_CASES; test++)
		if (!strcmp(case_names[test], name))
			child_run_case(test);
	fprintf(stderr, "init: no case %s\n", name);
	return 2;
}

int main(int argc, char **argv)
{
	struct utsname u;
	int passed = 0, number = 0, ret, kmsg_err;
	char probe[2048];
	unsigned int test;

	if (argc == 3 && !strcmp(argv[1], "--case"))
		return run_one_case(argv[2]);
	setup_console();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	kmsg_err = errno;
	if (kmsg_fd >= 0 && read(kmsg_fd, probe, sizeof(probe)) < 0 &&
	    errno == EINVAL) {
		close(kmsg_fd);
		kmsg_fd = -1;
		kmsg_syslog = 1;
	}

	emit("KTAP version 1");
	if (uname(&u) == 0)
		emit("# uc_selftest: kernel %s %s %s", u.release, u.machine,
		     u.version);
	if (kmsg_syslog)
		emit("# /dev/kmsg cannot be read: using syslog(2)");
	else if (kmsg_fd < 0)
		emit("# cannot read /dev/kmsg: %s", strerror(kmsg_err));
	no_panic_on_oops();
	ret = load_module();
	if (ret < 0) {
		emit("Bail out! cannot load %s: %s", MODULE_PATH,
		     strerror(-ret));
		power_off();
	}
	emit("1..%d", UC_NR_CASES + 6);
	pace_for_warn_mode();

	for (test = 0; test < UC_NR_CASES; test++)
		passed += run_case(test, ++number);
	passed += run_user_case("vm86_return", child_vm86, ++number);
	passed += run_user_case("kcore_devmem_read", child_kcore_devmem, ++number);
	passed += run_user_case("bug_fb_cmap_leak", child_bug_fb_cmap, ++number);
	passed += run_user_case("bug_xfs_attrmulti_leak",
				child_bug_xfs_attrmulti, ++number);
	save_printk_time();
	passed += run_user_case("bug_syslog_partial_leak",
				child_bug_syslog_partial, ++number);
	restore_printk_time();
	passed += run_workload(++number);

	emit("# totals: %d of %d observed", passed, number);
	emit(DONE_MARKER);
	power_off();
	return 0;
}
