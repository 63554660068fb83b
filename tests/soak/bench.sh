#!/bin/bash
# make bench's whole workloads (ci/soak.sh --bench), run in the guest as
# the soak's workload is: /sbin/uc-soak-init runs it from the payload
# disk, mounted on /uc, where it is soak.sh.
#
# QEMU runs with -icount shift=0 on one CPU: a nanosecond of guest time is
# one instruction, so `date +%s%N` around a workload counts what it cost,
# the idle loop aside (the workloads run from tmpfs and the page cache,
# warmed by a first, untimed run).  Each workload runs BENCH_RUNS more
# times; the console gets
#   # UC-WORK NAME MIN RUN1 RUN2 ...
# in instructions, and # UC-WORK-DONE at the end.  A workload that fails
# prints -1 for MIN; the host turns that into an error, not a figure.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
# shellcheck source=/dev/null
. /uc/params

say() { echo "$*" >/dev/console; }
now() { date +%s%N; }

# measure NAME COMMAND...: one untimed run, then BENCH_RUNS timed ones.
measure() {
	local name=$1 i t0 t1 d min="" runs=""
	shift
	if ! "$@" >/dev/null 2>/tmp/err-"$name"; then
		say "uc-bench: $name failed: $(tail -n 3 /tmp/err-"$name" | tr '\n' ' ')"
		say "# UC-WORK $name -1"
		return
	fi
	for i in $(seq "$BENCH_RUNS"); do
		t0=$(now)
		if ! "$@" >/dev/null 2>/tmp/err-"$name"; then
			say "uc-bench: $name failed in run $i"
			say "# UC-WORK $name -1"
			return
		fi
		t1=$(now)
		d=$((t1 - t0))
		runs+=" $d"
		if [ -z "$min" ] || [ "$d" -lt "$min" ]; then
			min=$d
		fi
	done
	say "# UC-WORK $name $min$runs"
}

say "uc-bench: kernel $(uname -r) $(uname -m), cmdline: $(cat /proc/cmdline)"
ip link set lo up

# git: a checkout of a few thousand files on tmpfs, committed, then 20 of
# them changed and 10 new ones: git status (a stat() and an index read per
# file, a directory read per directory) and git diff.
g=/tmp/git
mkdir -p "$g"
cd "$g" || exit 1
cp -a /usr/include /usr/share/doc /usr/share/zoneinfo . 2>/dev/null
git init -q
git -c user.name=uc -c user.email=uc@localhost add -A
git -c user.name=uc -c user.email=uc@localhost commit -qm initial
files=$(git ls-files | wc -l)
say "uc-bench: git checkout of $files files"
git ls-files | awk 'NR % 150 == 1' | head -n 20 | while read -r f; do
	echo "/* uc-bench */" >>"$f"
done
for i in $(seq 10); do echo "new $i" >"untracked-$i"; done
# Past the racy-git window, and the index refreshed once, untimed.
sleep 2
git status --porcelain >/dev/null
# A checkout that did not come to be (copy or commit failed) would time
# git on nothing: a failure, not a figure.
if [ "$files" -lt 1000 ]; then
	say "uc-bench: the checkout has $files files, not a few thousand"
	say "# UC-WORK git-status -1"
	say "# UC-WORK git-diff -1"
else
	measure git-status git status --porcelain
	measure git-diff git diff
fi

# hackbench (tests/bench/hackbench.c): processes exchanging 100-byte
# messages over pipes, then over UNIX sockets.
measure hackbench-pipe /uc/hackbench pipe "$HB_GROUPS" "$HB_LOOPS"
measure hackbench-socket /uc/hackbench socket "$HB_GROUPS" "$HB_LOOPS"

# A small C project: this bench's own C files, compiled at -O2 and linked.
cp -a /uc/cproj /tmp/cproj
measure cc-project make -s -B -C /tmp/cproj

say "# UC-WORK-DONE"
