#!/bin/bash
# Cost of the checks, in instructions per call: the same tree built with
# HARDENED=y and HARDENED=n, each booted under QEMU -icount shift=0 (one
# guest nanosecond per instruction, so the numbers do not depend on the
# host's load) with tests/bench/bench.c as init.
#
#   ci/bench.sh [KERNEL] [ARCH] [ALLOC]     (default: debian x86_64 slub)
# Prints one table; the raw console logs stay in the results directory.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
kernel=${1:-debian}
arch=${2:-x86_64}
alloc=${3:-slub}
[ "$arch" = x86_64 ] || { echo "bench: only ARCH=x86_64 is wired up so far" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -static -O2 -Wall -o "$work/bench" "$top/tests/bench/bench.c"

declare -A result
for h in y n; do
	build=$(UC_BUILD_ONLY=1 bash "$top/ci/boot-test.sh" "$kernel" "$arch" "$alloc" "$h" | sed -n 's/^build=//p')
	[ -n "$build" ] || { echo "bench: build failed" >&2; exit 1; }
	cat > "$work/list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
file /init $work/bench 0755 0 0
LIST
	"$build/usr/gen_init_cpio" "$work/list" | gzip -9 > "$work/initramfs-$h.gz"
	timeout 600 qemu-system-x86_64 -M pc -m 256 -smp 1 -nographic -no-reboot \
		-icount shift=0,sleep=off -kernel "$build/arch/x86/boot/bzImage" \
		-initrd "$work/initramfs-$h.gz" \
		-append "console=ttyS0 panic=-1 quiet" > "$work/console-$h.log" 2>&1 || true
	grep -q 'UC-BENCH-DONE' "$work/console-$h.log" || {
		tail -n 30 "$work/console-$h.log" >&2
		echo "bench: guest did not finish (HARDENED=$h)" >&2
		exit 1
	}
	for k in getppid stat pipe64; do
		result[$h-$k]=$(tr -d '\r' < "$work/console-$h.log" | sed -n "s/^# UC-BENCH $k //p")
	done
	mkdir -p "$cache/results/bench"
	cp "$work/console-$h.log" "$cache/results/bench/$(basename "$build").log"
done

version=$(uckit info --kernel "$kernel" | sed -n 's/^version=//p')
echo "instructions per call, Linux $version $arch $alloc, QEMU -icount shift=0 ($(date -u +%Y-%m-%d))"
printf '%-10s %12s %12s %10s\n' call hardened off delta
for k in getppid stat pipe64; do
	awk -v k="$k" -v a="${result[y-$k]}" -v b="${result[n-$k]}" \
		'BEGIN { printf "%-10s %12.1f %12.1f %+9.1f (%+.1f %%)\n", k, a, b, a - b, (a - b) * 100 / b }'
done
