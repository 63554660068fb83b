// SPDX-License-Identifier: GPL-2.0
/*
 * A 32-bit program for the soak on x86_64 (built static with the i686
 * compiler by ci/soak.sh): system calls whose compat entry points copy
 * structures between a 32-bit task and the kernel, each checked for its
 * result.  Hardened usercopy must let every one through.
 *
 * Prints one line per call group and "compat: N ok, M failed"; exits 1
 * if any failed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>

static int ok, failed;

static void check(const char *what, int good)
{
	if (good) {
		ok++;
		printf("compat: %s ok\n", what);
	} else {
		failed++;
		printf("compat: %s FAILED (%s)\n", what, strerror(errno));
	}
}

/* readv/writev through a pipe: compat iovecs. */
static void vectors(void)
{
	char a[100], b[3000], c[100], d[3000];
	struct iovec w[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec r[2] = { { c, sizeof(c) }, { d, sizeof(d) } };
	int p[2];

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	check("pipe", pipe(p) == 0);
	check("writev", writev(p[1], w, 2) == sizeof(a) + sizeof(b));
	check("readv", readv(p[0], r, 2) == sizeof(c) + sizeof(d) &&
	      !memcmp(a, c, sizeof(a)) && !memcmp(b, d, sizeof(b)));
	close(p[0]);
	close(p[1]);
}

/* sendmsg/recvmsg with SCM_RIGHTS: compat control messages. */
static void control_messages(void)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr m;
	struct cmsghdr *cm;
	struct iovec iov;
	char data[64] = "fd";
	int sv[2], fd = -1;

	check("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	memset(&m, 0, sizeof(m));
	iov.iov_base = data;
	iov.iov_len = sizeof(data);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &sv[0], sizeof(int));
	check("sendmsg SCM_RIGHTS", sendmsg(sv[1], &m, 0) == sizeof(data));
	memset(&u, 0, sizeof(u));
	m.msg_control = u.buf;
	m.msg_controllen = sizeof(u.buf);
	check("recvmsg SCM_RIGHTS", recvmsg(sv[0], &m, 0) == sizeof(data));
	cm = CMSG_FIRSTHDR(&m);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	check("passed descriptor", fd >= 0 && fcntl(fd, F_GETFD) >= 0);
	if (fd >= 0)
		close(fd);
	close(sv[0]);
	close(sv[1]);
}

/* getsockopt/setsockopt: compat timevals and lingers. */
static void socket_options(void)
{
	struct timeval tv = { 2, 500000 }, got;
	struct linger l = { 1, 3 }, lgot;
	socklen_t len;
	int s = socket(AF_INET, SOCK_STREAM, 0);

	check("socket", s >= 0);
	check("SO_RCVTIMEO set", setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0);
	len = sizeof(got);
	check("SO_RCVTIMEO get", getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &got, &len) == 0 &&
	      got.tv_sec == 2);
	check("SO_LINGER set", setsockopt(s, SOL_SOCKET, SO_LINGER, &l, sizeof(l)) == 0);
	len = sizeof(lgot);
	check("SO_LINGER get", getsockopt(s, SOL_SOCKET, SO_LINGER, &lgot, &len) == 0 &&
	      lgot.l_linger == 3);
	close(s);
}

/* stat, getdents, poll, select, ioctl on a pty, and the info calls. */
static void files_and_info(void)
{
	struct rlimit rl;
	struct sysinfo si;
	struct utsname un;
	struct timeval tv;
	struct timespec ts;
	struct termios t;
	struct stat st;
	struct pollfd pfd;
	struct sigaction sa, old;
	struct dirent *de;
	fd_set rd;
	DIR *dir;
	int n = 0, master, slave;

	check("stat", stat("/uc", &st) == 0 && S_ISDIR(st.st_mode));
	dir = opendir("/usr/bin");
	while (dir && (de = readdir(dir)))
		n++;
	if (dir)
		closedir(dir);
	check("getdents", n > 10);
	check("uname", uname(&un) == 0);
	check("sysinfo", sysinfo(&si) == 0 && si.totalram > 0);
	check("getrlimit", getrlimit(RLIMIT_NOFILE, &rl) == 0);
	check("gettimeofday", gettimeofday(&tv, NULL) == 0);
	check("clock_gettime", clock_gettime(CLOCK_MONOTONIC, &ts) == 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	check("sigaction", sigaction(SIGUSR1, &sa, &old) == 0);
	check("openpty", openpty(&master, &slave, NULL, NULL, NULL) == 0);
	check("ioctl TCGETS", tcgetattr(slave, &t) == 0);
	check("ioctl TCSETS", tcsetattr(slave, TCSANOW, &t) == 0);
	check("pty write", write(master, "x\n", 2) == 2);
	pfd.fd = slave;
	pfd.events = POLLIN;
	check("poll", poll(&pfd, 1, 2000) == 1);
	FD_ZERO(&rd);
	FD_SET(slave, &rd);
	tv.tv_sec = 2;
	tv.tv_usec = 0;
	check("select", select(slave + 1, &rd, NULL, NULL, &tv) == 1);
	close(master);
	close(slave);
}

/* fork, execve with arguments and environment, wait4 with rusage. */
static void processes(void)
{
	struct rusage ru;
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		char *argv[] = { "true", "a", "b", NULL };
		char *envp[] = { "SOAK=1", NULL };

		execve("/bin/true", argv, envp);
		_exit(127);
	}
	check("fork", pid > 0);
	check("wait4", wait4(pid, &status, 0, &ru) == pid &&
	      WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	vectors();
	control_messages();
	socket_options();
	files_and_info();
	processes();
	printf("compat: %d ok, %d failed\n", ok, failed);
	return failed ? 1 : 0;
}
