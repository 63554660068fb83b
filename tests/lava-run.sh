#!/bin/bash
# A boot cell's LAVA job run by lava-dispatcher on this machine, judged as
# a lab's result would be.
#
#   tests/lava-run.sh KERNEL:ARCH:ALLOC:HARDENED DIR
#
# DIR holds what the pipeline's boot job kept for LAVA (lava/CELL/: the
# kernel image, initramfs.cpio.gz, cmdline.txt, expect.tsv).  The job
# definition and a QEMU device configuration come from python3 -m uckit
# lava (file:// URLs into DIR); lava-run boots it (QEMU TCG), its log gives
# the guest's console (uckit lava --console-of), and the host's verdicts
# (uckit ktap, uckit verdicts against DIR/expect.tsv) must all match.
# Exit 0 only then.  Needs root (lava-run's work directory).
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cell=${1:?KERNEL:ARCH:ALLOC:HARDENED}
dir=$(cd "${2:?DIR}" && pwd)
die() { echo "lava-run: error: $*" >&2; exit 1; }
command -v lava-run >/dev/null || die "lava-run is not installed (apt-get install lava-dispatcher)"
for f in cmdline.txt expect.tsv initramfs.cpio.gz; do
	[ -f "$dir/$f" ] || die "$dir has no $f (the pipeline's boot job keeps it)"
done
IFS=: read -r _ arch _ hardened <<<"$cell"
name=${cell//:/-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$top"
python3 -m uckit lava --cell "$cell" --device --out "$work" \
	--url "file://$dir" --cmdline "$(cat "$dir/cmdline.txt")"
rc=0
lava-run --job-id "uc-$$" --output-dir "$work/out" \
	--device "$work/$name.device.yaml" "$work/$name.yaml" 2>"$work/lava.log" || rc=$?
echo "lava-run: exit $rc, job result: $(sed -n 's/^result: //p' "$work/out/result.yaml" 2>/dev/null)"
results=$(grep -c '"definition": "usercopy-suite"' "$work/lava.log" || true)
echo "lava-run: $results results of the usercopy-suite monitor"
[ "$rc" = 0 ] || { tail -n 20 "$work/lava.log"; die "lava-run failed"; }
python3 -m uckit lava --console-of "$work/lava.log" >"$work/console.log"
python3 -m uckit ktap --serial /dev/null --console "$work/console.log" \
	--out "$work/report.ktap" >/dev/null
python3 -m uckit verdicts --expect-tsv "$dir/expect.tsv" \
	--report "$work/report.ktap" --console "$work/console.log" \
	--arch "$arch" --hardened "$hardened" --qemu-rc 0 | tee "$work/verdicts.ktap" | tail -n 3
[ "$results" -gt 0 ] || die "the monitor recorded no result"
