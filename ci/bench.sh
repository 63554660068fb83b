#!/bin/bash
# Cost of the checks, in instructions per call: the same tree built with
# HARDENED=y and HARDENED=n, each booted under QEMU -icount shift=0 (one
# guest nanosecond per instruction, so the numbers do not depend on the
# host's load) with tests/bench/bench.c as init.  The guest's clock starts
# at a fixed date and user space is not randomised (norandmaps): two runs
# of one kernel give the same figures.
#
#   ci/bench.sh [KERNEL] [ARCH] [ALLOC]     (default: debian x86_64 bench)
# ALLOC bench is the slub cell plus IPv4 (ci/configs/bench.config).
# Prints one table and writes it as a record, results/bench/KERNEL-ARCH-
# ALLOC.tsv in the cache (make matrix-record gathers them into
# kernels/bench.tsv); the raw console logs stay beside it.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
kernel=${1:-debian}
arch=${2:-x86_64}
alloc=${3:-bench}
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
ops=""
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
	while read -r k v; do
		result[$h-$k]=$v
		case " $ops " in *" $k "*) ;; *) ops+="$k " ;; esac
	done < <(tr -d '\r' < "$work/console-$h.log" | sed -n 's/^# UC-BENCH \([a-z0-9]*\) \(-\{0,1\}[0-9.]*\)$/\1 \2/p')
	mkdir -p "$cache/results/bench"
	cp "$work/console-$h.log" "$cache/results/bench/$(basename "$build")${extra:+-$extra}.log"
done

# An operation the guest could not do prints -1; one missing from a run
# would compare with nothing: either is an error, not a figure.
for k in $ops; do
	for h in $runs; do
		case "${result[$h-$k]:-}" in
		"" | -*) echo "bench: $k failed or is missing in the HARDENED=$h run (see the console logs in $cache/results/bench)" >&2
			exit 1 ;;
		esac
	done
done

version=$(uckit info --kernel "$kernel" | sed -n 's/^version=//p')
state=$(uckit info --kernel "$kernel" | sed -n 's/^state=//p')
# Checked copies per operation where the kernel is one of our backports
# (state none: the tree lacks the option itself; tests/bench/bench.c says
# which copies): instructions added per check.
declare -A checks=([pipe64]=2 [pipe4k]=2 [udp64]=3 [udp1400]=3 [getdents1000]=1000)
day=$(date -u +%Y-%m-%d)
code=$(uckit matrix --code)
record="$cache/results/bench/$version-$arch-$alloc.tsv"
mkdir -p "$cache/results/bench"
echo "instructions per operation, Linux $version $arch $alloc, QEMU -icount shift=0 ($day, code $code)"
printf '%-13s %11s %11s %18s %10s %22s\n' operation hardened off delta "per check" \
	"$([ "$runs" = "y n" ] || echo hardened_usercopy=off)"
declare -A nchecks
for k in $ops; do
	nchecks[$k]=${checks[$k]:-0}
	[ "$state" = none ] || nchecks[$k]=0
done
{
	printf 'kernel\tarch\talloc\toperation\thardened\toff\tboot_off\tchecks\tdate\tcode\n'
	for k in $ops; do
		n=${nchecks[$k]}
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$version" "$arch" "$alloc" "$k" \
			"${result[y-$k]:-}" "${result[n-$k]:-}" "${result[boot-off-$k]:-}" "$n" "$day" "$code"
	done
} > "$record.new"
mv "$record.new" "$record"
for k in $ops; do
	n=${nchecks[$k]}
	awk -v k="$k" -v a="${result[y-$k]:-0}" -v b="${result[n-$k]:-0}" -v c="${result[boot-off-$k]:-}" -v n="$n" \
		'BEGIN { printf "%-13s %11.1f %11.1f %+9.1f (%+5.1f %%)", k, a, b, a - b, b ? (a - b) * 100 / b : 0
			if (n > 0) printf " %10.1f", (a - b) / n; else printf " %10s", "-"
			if (c != "") printf " %12.1f (%+.1f vs off)", c, c - b
			printf "\n" }'
done
echo "record: $record"
