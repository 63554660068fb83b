# shellcheck shell=bash disable=SC2154 # set by ci/soak.sh, which sources this
# The whole-workload bench, sourced by ci/soak.sh --bench once the soak's
# kernel is built: ci/soak.sh has set work, payload, build, results,
# rootfs, version, state, code, hardened, arch and the ARCH_* facts.
#
# The payload disk holds tests/soak/bench.sh (as soak.sh: the image's stub
# runs that), hackbench and a small C project.  Each run boots the image
# on one CPU under -icount shift=0,sleep=off with a fixed guest clock and
# no address randomisation; HARDENED=y runs as built, then with
# hardened_usercopy=off where the kernel has the switch.  Figures: the
# smallest of UC_BENCH_RUNS timed runs, in instructions.
knobs=$(uckit knobs --shell UC_BENCH_RUNS UC_BENCH_HACKBENCH) || exit 1
eval "$knobs"
read -r hb_groups hb_loops <<<"$UC_BENCH_HACKBENCH"

"${CROSS_COMPILE}gcc" -static -O2 -Wall -o "$payload/hackbench" \
	"$top/tests/bench/hackbench.c" >"$results/bench-build.log" 2>&1 ||
	die "the hackbench build failed (see $results/bench-build.log)"
mkdir "$payload/cproj"
cp "$top/tests/bench/hackbench.c" "$top/tests/bench/bench.c" \
	"$top/tests/guest/init.c" "$top/tests/guest/uc_selftest.h" "$payload/cproj/"
printf 'CFLAGS = -O2 -Wall -I.\nall: hackbench bench init\n' >"$payload/cproj/Makefile"
cp "$top/tests/soak/bench.sh" "$payload/soak.sh"
{
	echo "BENCH_RUNS=$UC_BENCH_RUNS"
	echo "HB_GROUPS=$hb_groups"
	echo "HB_LOOPS=$hb_loops"
} >"$payload/params"
payload_and_disks 64M

runs=$hardened
if [ "$hardened" = y ] && grep -q ' parse_hardened_usercopy$' "$build/System.map"; then
	runs="y boot-off"
fi
for run in $runs; do
	extra=
	[ "$run" != boot-off ] || extra=hardened_usercopy=off
	log="$results/console-$run.log"
	echo "bench: booting $cell${extra:+ with $extra} (-icount, at most ${UC_SOAK_WALL}s)"
	t2=$(date +%s)
	timeout --foreground -k 10 "$UC_SOAK_WALL" "$ARCH_QEMU" -accel tcg "${machine[@]}" -smp 1 \
		-icount shift=0,sleep=off -rtc base=2026-01-01,clock=vm -nographic -no-reboot \
		-kernel "$build/$ARCH_IMAGE" \
		-append "${console}root=/dev/vda rw rootfstype=ext4 init=/sbin/uc-soak-init panic=-1 norandmaps $extra" \
		"${disks[@]}" -serial mon:stdio </dev/null >"$log" 2>&1 || true
	echo "bench: the guest ran $(($(date +%s) - t2)) s"
	grep -q '^# UC-WORK-DONE' <(tr -d '\r' <"$log") || {
		tail -n 20 "$log" >&2
		die "the guest did not finish ($run; see $log)"
	}
	if grep -E -m3 'usercopy: [Kk]ernel memory|Oops|BUG: |Kernel panic' "$log" >&2; then
		die "the kernel complained during the workloads ($run; see $log): a false positive is a bug, not a figure"
	fi
	# NAME, the smallest, and how far the runs spread (%, largest
	# over smallest): hackbench's interleaving of 160 processes on one
	# CPU varies from run to run, git's and the compiler's hardly.
	uckit bench-runs "$log" \
		>"$results/$run.txt"
	# A guest that finished without a figure measured nothing.
	[ -s "$results/$run.txt" ] ||
		die "the guest printed no # UC-WORK figure ($run; see $log)"
	! grep -q "	-" "$results/$run.txt" ||
		die "a workload failed in the $run run: $(grep "	-" "$results/$run.txt" | cut -f1 | xargs) (see $log)"
done

# The record: this cell's newest runs, the HARDENED=n cell's (the
# control, built from the same tree) where there is one.
alloc_name=soak${config:+-c$(sha256sum "$config" | cut -c1-8)}
y_dir=${results%-h*}-hy n_dir=${results%-h*}-hn
[ -f "$y_dir/y.txt" ] || { echo "bench: the HARDENED=n run is kept; run HARDENED=y for the record"; exit 0; }
# Checked copies each workload makes that are known: hackbench's messages
# (a copy from user space into the pipe's page or the skb, one back out)
# on our backports; 0 where unknown or where the kernel is native.
declare -A checks=()
if [ "$state" = none ]; then
	checks[hackbench-pipe]=$((2 * hb_groups * 400 * hb_loops))
	checks[hackbench-socket]=$((2 * hb_groups * 400 * hb_loops))
fi
day=$(date -u +%Y-%m-%d)
record="$(dirname "$results")/$version-$arch-$alloc_name.tsv"
{
	printf 'kernel\tarch\talloc\toperation\thardened\toff\tboot_off\tchecks\tdate\tcode\n'
	while IFS=$'\t' read -r op y _; do
		n=$(awk -F'\t' -v k="$op" '$1 == k { print $2 }' "$n_dir/n.txt" 2>/dev/null || true)
		b=$(awk -F'\t' -v k="$op" '$1 == k { print $2 }' "$y_dir/boot-off.txt" 2>/dev/null || true)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$version" "$arch" "$alloc_name" "$op" \
			"$y" "$n" "$b" "${checks[$op]:-0}" "$day" "$code"
	done <"$y_dir/y.txt"
} >"$record.new"
mv "$record.new" "$record"
echo "whole workloads, Linux $version $arch $alloc_name, instructions (QEMU -icount shift=0, $day, code $code)"
printf '%-17s %14s %14s %14s %s\n' workload hardened "off (n)" "switch off" "hardened vs n / vs switch off"
tail -n +2 "$record" | awk -F'\t' -v spread="$(cat "$y_dir"/*.txt "$n_dir"/*.txt 2>/dev/null |
	awk -F'\t' '{ if (!($1 in s) || $3 > s[$1]) s[$1] = $3 } END { for (k in s) printf "%s=%s ", k, s[k] }')" '
	BEGIN { n = split(spread, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); sp[p[1]] = p[2] } }
	{
	d1 = ($6 != "" && $6 > 0) ? sprintf("%+.2f %%", ($5 - $6) * 100 / $6) : "-"
	d2 = ($7 != "" && $7 > 0) ? sprintf("%+.2f %%", ($5 - $7) * 100 / $7) : "-"
	printf "%-17s %14s %14s %14s %s / %s (runs spread up to %s %%)\n", $4, $5, ($6 == "" ? "-" : $6), ($7 == "" ? "-" : $7), d1, d2, ($4 in sp ? sp[$4] : "0.0") }'
echo "record: $record"
