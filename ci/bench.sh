#!/bin/bash
# Cost of the checks, in instructions per call: the same tree built with
# HARDENED=y and HARDENED=n, each booted under QEMU -icount shift=0 (one
# guest nanosecond per instruction, so the numbers do not depend on the
# host's load) with tests/bench/bench.c as init.  The guest's clock starts
# at a fixed date and user space is not randomised (norandmaps): two runs
# of one kernel give the same figures.
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
arch_setup "$arch" || exit 1
# The arches whose bench figures were measured (bench = yes in their
# uckit/arches file).
[ "$(uckit arch "$arch" --get bench)" = yes ] || {
	echo "bench: ARCH=$arch is not benchmarked (bench = yes in uckit/arches/$arch.ini)" >&2
	exit 1
}
read -r -a qemu_machine <<<"$ARCH_QEMU_MACHINE"
console_args=""
for c in $ARCH_CONSOLE; do
	console_args+="console=$c "
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CROSS_COMPILE}gcc" -static -O2 -Wall -o "$work/bench" "$top/tests/bench/bench.c"

# Runs: y (hardened), n (the control), and "boot-off": the hardened
# build booted with hardened_usercopy=off, where the kernel has that
# switch (ours; upstream from 4.17), which should cost what n costs.
declare -A result
runs="y n"
for h in y n boot-off; do
	hb=${h/boot-off/y}
	build=$(bash "$top/ci/boot-test.sh" --build-only "$kernel" "$arch" "$alloc" "$hb" | sed -n 's/^build=//p')
	[ -n "$build" ] || { echo "bench: build failed" >&2; exit 1; }
	extra=
	if [ "$h" = boot-off ]; then
		grep -q ' parse_hardened_usercopy$' "$build/System.map" || continue
		extra=hardened_usercopy=off
		runs="y n boot-off"
	fi
	bash "$top/ci/initramfs.sh" --kbuild "$build" --out "$work/initramfs-$h.gz" \
		--init "$work/bench"
	timeout 600 "$ARCH_QEMU" -accel tcg "${qemu_machine[@]}" -smp 1 -nographic -no-reboot \
		-icount shift=0,sleep=off -rtc base=2000-01-01,clock=vm \
		-kernel "$build/$ARCH_IMAGE" -initrd "$work/initramfs-$h.gz" \
		-append "${console_args}panic=-1 quiet norandmaps $extra" > "$work/console-$h.log" 2>&1 || true
	grep -q 'UC-BENCH-DONE' "$work/console-$h.log" || {
		tail -n 30 "$work/console-$h.log" >&2
		echo "bench: guest did not finish (HARDENED=$h)" >&2
		exit 1
	}
	for k in getppid stat pipe64; do
		result[$h-$k]=$(tr -d '\r' < "$work/console-$h.log" | sed -n "s/^# UC-BENCH $k //p")
	done
	mkdir -p "$cache/results/bench"
	cp "$work/console-$h.log" "$cache/results/bench/$(basename "$build")${extra:+-$extra}.log"
done

version=$(uckit info --kernel "$kernel" | sed -n 's/^version=//p')
echo "instructions per call, Linux $version $arch $alloc, QEMU -icount shift=0 ($(date -u +%Y-%m-%d))"
if [ "$runs" = "y n" ]; then
	printf '%-10s %12s %12s %10s\n' call hardened off delta
else
	printf '%-10s %12s %12s %10s %22s\n' call hardened off delta "hardened_usercopy=off"
fi
for k in getppid stat pipe64; do
	awk -v k="$k" -v a="${result[y-$k]}" -v b="${result[n-$k]}" -v c="${result[boot-off-$k]:-}" \
		'BEGIN { printf "%-10s %12.1f %12.1f %+9.1f (%+.1f %%)", k, a, b, a - b, (a - b) * 100 / b
			if (c != "") printf " %12.1f (%+.1f vs off)", c, c - b
			printf "\n" }'
done
