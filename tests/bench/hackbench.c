// SPDX-License-Identifier: GPL-2.0
/*
 * hackbench, as make bench's whole workloads run it (tests/soak/bench.sh):
 * GROUPS groups of 20 senders and 20 receivers, processes; every sender
 * writes LOOPS messages of 100 bytes to every receiver of its group, over
 * a pipe or a UNIX stream socket per receiver, and every receiver reads
 * 20 * LOOPS messages.  Each message is one write() and one read(), so
 * a run is 2 * GROUPS * 20 * 20 * LOOPS checked copies of 100 bytes
 * (pipe: to and from a page; socket: to and from an skb, a slab object).
 *
 *   hackbench pipe|socket GROUPS LOOPS
 *
 * Exit 0 when every byte arrived, 1 otherwise.  The caller times it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PER_GROUP	20
#define MSG		100

static int use_sockets;

static void die(const char *what)
{
	fprintf(stderr, "hackbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void make_channel(int fds[2])
{
	if (use_sockets) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds))
			die("socketpair");
	} else if (pipe(fds)) {
		die("pipe");
	}
}

static void receiver(int fd, long loops)
{
	char buf[MSG];
	long left = PER_GROUP * loops * MSG;

	while (left > 0) {
		ssize_t n = read(fd, buf, left < MSG ? left : MSG);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read");
		left -= n;
	}
	_exit(0);
}

static void sender(const int *out, long loops)
{
	char buf[MSG];
	long i;
	int j;

	memset(buf, 'u', sizeof(buf));
	for (i = 0; i < loops; i++) {
		for (j = 0; j < PER_GROUP; j++) {
			size_t done = 0;

			while (done < MSG) {
				ssize_t n = write(out[j], buf + done, MSG - done);

				if (n < 0 && errno == EINTR)
					continue;
				if (n <= 0)
					die("write");
				done += n;
			}
		}
	}
	_exit(0);
}

static pid_t spawn(void)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	return pid;
}

int main(int argc, char **argv)
{
	long groups, loops, g, children = 0, failed = 0;
	int status;

	if (argc != 4 || (strcmp(argv[1], "pipe") && strcmp(argv[1], "socket"))) {
		fprintf(stderr, "usage: hackbench pipe|socket GROUPS LOOPS\n");
		return 2;
	}
	use_sockets = !strcmp(argv[1], "socket");
	groups = atol(argv[2]);
	loops = atol(argv[3]);
	if (groups < 1 || loops < 1) {
		fprintf(stderr, "hackbench: GROUPS and LOOPS must be positive\n");
		return 2;
	}

	for (g = 0; g < groups; g++) {
		int rd[PER_GROUP], wr[PER_GROUP], fds[2], i, j;

		for (i = 0; i < PER_GROUP; i++) {
			make_channel(fds);
			rd[i] = fds[0];
			wr[i] = fds[1];
		}
		for (i = 0; i < PER_GROUP; i++) {
			if (spawn() == 0) {
				for (j = 0; j < PER_GROUP; j++)
					close(wr[j]);
				receiver(rd[i], loops);
			}
			children++;
		}
		for (i = 0; i < PER_GROUP; i++) {
			if (spawn() == 0) {
				for (j = 0; j < PER_GROUP; j++)
					close(rd[j]);
				sender(wr, loops);
			}
			children++;
		}
		for (i = 0; i < PER_GROUP; i++) {
			close(rd[i]);
			close(wr[i]);
		}
	}
	while (children-- > 0) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	return failed ? 1 : 0;
}
