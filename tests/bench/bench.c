// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of hardened usercopy, measured in the guest as PID 1.
 *
 * Meant for QEMU with -icount shift=0,sleep=off: the guest clock then
 * advances one nanosecond per instruction, so nanoseconds per call read as
 * instructions per call and do not depend on the host's load.
 *
 * Each figure is the instructions of one operation:
 *   getppid        no copy: the baseline of a system call
 *   stat           the struct stat goes out with a constant size (not
 *                  checked at run time), the path comes in by
 *                  strncpy_from_user() (unchecked, as upstream 4.8 has it)
 *   pipe64/pipe4k  a write plus a read of 64 or 4096 bytes: run-time sizes
 *                  through the iov_iter helpers to a page (two checked
 *                  copies in 4.x; newer kernels copy page data unchecked)
 *   udp64/udp1400  a sendto() plus a recv() on 127.0.0.1 (kernels with
 *                  INET): the address in (a stack object), the data to
 *                  and from a slab-allocated skb: three checked copies
 *   getdents1000   one listing of a directory of 1000 files: a checked
 *                  copy of each name, from the slab-allocated dentry
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define ITERATIONS 200000

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double bench_stat(void)
{
	struct stat st;
	double t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < ITERATIONS; i++)
		stat("/", &st);
	t1 = now_ns();
	return (t1 - t0) / ITERATIONS;
}

/*
 * The copy routines take more or fewer instructions by the alignment of
 * the user buffer: a static one, at a fixed address, keeps runs comparable.
 */
static _Alignas(64) char buf[4096];

/* A write plus a read of SIZE bytes through a pipe. */
static double bench_pipe(size_t size)
{
	int fds[2];
	double t0, t1;
	int i;

	if (pipe(fds))
		return -1;
	memset(buf, 'x', size);
	t0 = now_ns();
	for (i = 0; i < ITERATIONS; i++) {
		if (write(fds[1], buf, size) != (ssize_t)size ||
		    read(fds[0], buf, size) != (ssize_t)size)
			return -1;
	}
	t1 = now_ns();
	close(fds[0]);
	close(fds[1]);
	return (t1 - t0) / ITERATIONS;
}

/* Brings up the loopback interface; the kernel leaves it down. */
static int loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) == 0) {
			close(s);
			return 0;
		}
	}
	close(s);
	return -1;
}

/* A send plus a receive of SIZE bytes over UDP on 127.0.0.1. */
static double bench_udp(size_t size)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	double t0, t1;
	int s, i;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return -1;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(s, (struct sockaddr *)&addr, &len))
		return -1;
	memset(buf, 'u', size);
	t0 = now_ns();
	for (i = 0; i < ITERATIONS / 4; i++) {
		if (sendto(s, buf, size, 0, (struct sockaddr *)&addr,
			   sizeof(addr)) != (ssize_t)size ||
		    recv(s, buf, size, 0) != (ssize_t)size)
			return -1;
	}
	t1 = now_ns();
	close(s);
	return (t1 - t0) / (ITERATIONS / 4);
}

#define DIR_FILES 1000

/* One listing (getdents64 to the end) of a directory of 1000 files. */
static double bench_getdents(void)
{
	char name[64];
	double t0, t1;
	int i, fd;
	long n;

	if (mkdir("/bench-dir", 0755))
		return -1;
	for (i = 0; i < DIR_FILES; i++) {
		snprintf(name, sizeof(name), "/bench-dir/file-%04d", i);
		fd = open(name, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	fd = open("/bench-dir", O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	t0 = now_ns();
	for (i = 0; i < ITERATIONS / 1000; i++) {
		lseek(fd, 0, SEEK_SET);
		do {
			n = syscall(SYS_getdents64, fd, buf, sizeof(buf));
		} while (n > 0);
		if (n < 0)
			return -1;
	}
	t1 = now_ns();
	close(fd);
	return (t1 - t0) / (ITERATIONS / 1000);
}

static double bench_empty(void)
{
	double t0, t1;
	int i;

	t0 = now_ns();
	for (i = 0; i < ITERATIONS; i++)
		getppid();
	t1 = now_ns();
	return (t1 - t0) / ITERATIONS;
}

int main(void)
{
	/* Warm caches and page tables once before measuring. */
	bench_stat();
	printf("# UC-BENCH iterations=%d\n", ITERATIONS);
	printf("# UC-BENCH getppid %.1f\n", bench_empty());
	printf("# UC-BENCH stat %.1f\n", bench_stat());
	printf("# UC-BENCH pipe64 %.1f\n", bench_pipe(64));
	printf("# UC-BENCH pipe4k %.1f\n", bench_pipe(4096));
	/* A kernel without INET (tinyconfig cells) has no figure for these. */
	if (loopback_up() == 0) {
		printf("# UC-BENCH udp64 %.1f\n", bench_udp(64));
		printf("# UC-BENCH udp1400 %.1f\n", bench_udp(1400));
	}
	printf("# UC-BENCH getdents1000 %.1f\n", bench_getdents());
	printf("# UC-BENCH-DONE\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
