// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of hardened usercopy, measured in the guest as PID 1.
 *
 * Meant for QEMU with -icount shift=0,sleep=off: the guest clock then
 * advances one nanosecond per instruction, so nanoseconds per call read as
 * instructions per call and do not depend on the host's load.
 *
 * stat() copies a struct stat to user space with a constant size (not
 * checked at run time) but also copies the path name in; a 64-byte pipe
 * write plus read moves the data with run-time sizes through the iov_iter
 * helpers, which reach the checked copy routines in 4.x (newer kernels
 * copy page data without the check).  getppid() is the no-copy baseline.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>

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
static char buf[64] __attribute__((aligned(64)));

static double bench_pipe(void)
{
	int fds[2];
	double t0, t1;
	int i;

	if (pipe(fds))
		return -1;
	memset(buf, 'x', sizeof(buf));
	t0 = now_ns();
	for (i = 0; i < ITERATIONS; i++) {
		if (write(fds[1], buf, sizeof(buf)) != sizeof(buf) ||
		    read(fds[0], buf, sizeof(buf)) != sizeof(buf))
			return -1;
	}
	t1 = now_ns();
	return (t1 - t0) / ITERATIONS;
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
	printf("# UC-BENCH pipe64 %.1f\n", bench_pipe());
	printf("# UC-BENCH-DONE\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
