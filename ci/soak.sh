#!/bin/bash
# One soak cell: a distro-class kernel under a real userspace.
#
#   ci/soak.sh [--config FILE] [--bench] KERNEL ARCH HARDENED
#
# The tree (hardened as for the boot test, ci/lib.sh source_to_build) is
# built from the arch's defconfig, or from FILE (a maintainer's own
# .config), with ci/configs/soak.config (virtio, ext4, networking,
# namespaces...), soak-ARCH.config where there is one, and the boot
# test's base, arch, allocator (the arch's "soak =" profile) and hardening
# fragments.  It boots in QEMU (TCG, the arch's soak_qemu) on the Debian 12
# image of ci/rootfs.sh (snapshot: never written) with a payload disk:
# tests/soak/soak.sh, uc_selftest.ko and the guest init built against the
# kernel, and 32-bit programs (tests/soak/compat.c) where the arch has a
# soak_compat.  The guest writes its report to the payload disk; the
# verdict (python3 -m uckit soak-verdict) reads it and the console.
#
# Pass: no usercopy: line and no oops during the workload, every stressor
# ran (or stress-ng said why it could not), every program succeeded, and
# the final violation was caught (HARDENED=y) or not (HARDENED=n, the
# control).  Record: RESULTS/soak-CELL/soak.txt, for the matrix.
# Knobs (python3 -m uckit knobs): UC_SOAK_OPS, UC_SOAK_TIMEOUT (seconds a
# stressor batch may run), UC_SOAK_BATCH, UC_SOAK_CLASSES,
# UC_SOAK_WALL (seconds the whole guest may run).
#
# --bench (make bench-work): the same kernel and image under the whole
# workloads of tests/soak/bench.sh (git status and diff, hackbench, a C
# build) instead, on one CPU under -icount shift=0 so that the figures are
# instructions; HARDENED=y boots twice, as built and with
# hardened_usercopy=off.  Record: RESULTS/bench/VERSION-ARCH-soak.tsv (the
# bench's format: hardened, off from a HARDENED=n run of this cell where
# there is one, boot_off), for make matrix-record.
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
config=
bench=
while :; do
	case "${1:-}" in
	--config) config=${2:?--config FILE}; shift 2 ;;
	--bench) bench=1; shift ;;
	*) break ;;
	esac
done
kernel=${1:?usage: ci/soak.sh [--config FILE] [--bench] KERNEL ARCH HARDENED}
arch=${2:?ARCH}
hardened=${3:?HARDENED}

die() { echo "soak: error: $*" >&2; exit 1; }

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
arch_setup "$arch" || exit 1
[ -n "$ARCH_SOAK" ] || die "no soak on ARCH=$arch (arches with one: $(uckit arch --list --soak))"
case "$hardened" in y|n) ;; *) die "HARDENED must be y or n, not '$hardened'" ;; esac
if [ -n "$config" ]; then
	[ -f "$config" ] || die "CONFIG=$config: no such file"
	config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
fi
for tool in debugfs mkfs.ext4; do
	command -v "$tool" >/dev/null || die "$tool not found: apt-get install e2fsprogs"
done
command -v "$ARCH_QEMU" >/dev/null || die "$ARCH_QEMU not found: apt-get install $ARCH_QEMU_PKG"
knobs=$(uckit knobs --shell UC_SOAK_OPS UC_SOAK_TIMEOUT UC_SOAK_BATCH \
	UC_SOAK_CLASSES UC_SOAK_WALL) || exit 1
eval "$knobs"

kernel_info "$kernel" || exit 1
code=$(uckit matrix --code)
why=$(uckit na --kernel "$tree" --arch "$arch") || exit 1
[ -z "$why" ] || die "Linux $version has no $arch soak: $why"

# The image first: without Debian's archive there is nothing to boot.
rootfs=$(bash "$top/ci/rootfs.sh" "$arch") || exit 1

rc=0
source_to_build "$tree" "$state" "$key" || rc=$?
[ "$rc" = 0 ] || die "cannot harden $tree${apply_reason:+: $apply_reason}"

# A cell: KEY-ARCH-soak[-cCONFIGHASH]-hHARDENED.
cell="$key-$arch-soak"
[ -z "$config" ] || cell+="-c$(sha256sum "$config" | cut -c1-8)"
cell+="-h$hardened"
build="$cache/build/$cell"
results=${RESULTS:-$cache/results}/$cell
# The bench leaves the soak's record alone: its own go to RESULTS/bench.
[ -z "$bench" ] || results=${RESULTS:-$cache/results}/bench/$cell
mkdir -p "$results" "$cache/build"
[ -n "$bench" ] || rm -f "$results/soak.txt" "$results/console.log"
exec 8>"$build.lock"
flock 8

echo "soak: Linux $version ($label) ARCH=$arch HARDENED=$hardened${config:+ CONFIG=$config}"
frags=(--fragment "$top/ci/configs/soak.config")
[ ! -f "$top/ci/configs/soak-$arch.config" ] ||
	frags+=(--fragment "$top/ci/configs/soak-$arch.config")
t0=$(date +%s)
if ! bash "$top/ci/kbuild.sh" --src "$src" --build "$build" --arch "$arch" \
	--alloc "$ARCH_SOAK" --hardened "$hardened" --base "${config:-defconfig}" \
	"${frags[@]}" 2>&1 | tee "$results/kbuild.log"; then
	[ -z "$bench" ] || die "the build failed (see $results/kbuild.log)"
	# A build that fails is a record too (build-failed, the first
	# complaint), so the matrix shows the soak that never booted.
	first=$(grep -m1 -E '(: (fatal )?error: |: Error: |^kconfig: |kbuild: error)' \
		"$build/uc-build.log" "$results/kbuild.log" 2>/dev/null | sed "s|$src/||" || true)
	uckit soak-verdict --console /dev/null --report /dev/null --hardened "$hardened" \
		--failed "the build failed${first:+: ${first#*:}}" \
		--facts "kernel=$version state=$label arch=$arch alloc=$ARCH_SOAK hardened=$hardened config=${config:+$(basename "$config")}" \
		--facts "build_s=$(($(date +%s) - t0)) soak_s=0 date=$(date -u +%Y-%m-%d) code=$code" \
		>"$results/soak.txt.new" || true
	mv "$results/soak.txt.new" "$results/soak.txt"
	die "the build failed (see $results/kbuild.log)"
fi
t1=$(date +%s)

work=$(mktemp -d -t uc-soak.XXXXXX)
trap 'rm -rf "$work"' EXIT
payload="$work/payload"
mkdir -p "$payload/out" "$payload/compat"

# payload_and_disks SIZE: the payload directory as an ext4 image of SIZE,
# and QEMU's view of the run: machine (the arch's soak machine; the last
# -m wins), disks (both on virtio, in the order that makes root vda and
# the payload vdb: ARCH_SOAK_DISKS; the root image is never written) and
# console (kernel arguments).
payload_and_disks() {
	local d
	truncate -s "$1" "$work/payload.img"
	mkfs.ext4 -q -L uc-payload -O ^metadata_csum,^64bit,^orphan_file,^metadata_csum_seed \
		-d "$payload" "$work/payload.img" || die "mkfs.ext4 of the payload failed (disk full?)"
	read -r -a machine <<<"$ARCH_SOAK_QEMU"
	disks=()
	for d in $ARCH_SOAK_DISKS; do
		case "$d" in
		root) disks+=(-drive "if=none,id=root,format=raw,snapshot=on,file=$rootfs"
			-device "$ARCH_SOAK_DISK,drive=root") ;;
		payload) disks+=(-drive "if=none,id=payload,format=raw,file=$work/payload.img"
			-device "$ARCH_SOAK_DISK,drive=payload") ;;
		*) die "soak_disks: '$d' is neither root nor payload" ;;
		esac
	done
	console=
	for d in $ARCH_CONSOLE; do console+="console=$d "; done
}

if [ -n "$bench" ]; then
	# shellcheck source=ci/bench-work.sh
	. "$top/ci/bench-work.sh"
	exit 0
fi

# The module and the guest init, as the boot test builds them.
guest="$top/tests/guest"
mkdir "$work/mod"
cp "$guest/Kbuild" "$guest/uc_selftest.c" "$guest/uc_selftest.h" "$work/mod/"
make -C "$build" M="$work/mod" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
	${ARCH_KCFLAGS:+KCFLAGS="$ARCH_KCFLAGS"} modules >"$results/module-build.log" 2>&1 ||
	die "the module build failed (see $results/module-build.log)"
cp "$work/mod/uc_selftest.ko" "$payload/"
"${CROSS_COMPILE}gcc" -static -Os -Wall -I"$guest" -o "$payload/uc-init" \
	"$guest/init.c" >"$results/init-build.log" 2>&1 ||
	die "the guest init build failed (see $results/init-build.log)"
if [ -n "$ARCH_SOAK_COMPAT" ]; then
	compat_cc=$(arch_setup "$ARCH_SOAK_COMPAT" && echo "${CROSS_COMPILE}gcc")
	"$compat_cc" -static -O2 -Wall -o "$payload/compat/compat-$ARCH_SOAK_COMPAT" \
		"$top/tests/soak/compat.c" >>"$results/init-build.log" 2>&1 ||
		die "the $ARCH_SOAK_COMPAT compat program build failed (see $results/init-build.log)"
fi
cp "$top/tests/soak/soak.sh" "$payload/"
{
	echo "SOAK_OPS=$UC_SOAK_OPS"
	echo "SOAK_TIMEOUT=$UC_SOAK_TIMEOUT"
	echo "SOAK_BATCH=$UC_SOAK_BATCH"
	echo "SOAK_CLASSES='$UC_SOAK_CLASSES'"
} >"$payload/params"
payload_and_disks 256M
echo "soak: booting on $ARCH_QEMU (TCG, at most ${UC_SOAK_WALL}s)"
t2=$(date +%s)
qrc=0
timeout --foreground -k 10 "$UC_SOAK_WALL" "$ARCH_QEMU" -accel tcg,thread=multi \
	"${machine[@]}" -nographic -no-reboot -kernel "$build/$ARCH_IMAGE" \
	-append "${console}root=/dev/vda rw rootfstype=ext4 init=/sbin/uc-soak-init panic=-1" \
	"${disks[@]}" -serial mon:stdio </dev/null >"$results/console.log" 2>&1 || qrc=$?
t3=$(date +%s)
echo "soak: QEMU exited with $qrc after $((t3 - t2)) s"

# The guest's results, read off its disk without mounting it.
rm -rf "$results/out"
debugfs -R "rdump /out $results" "$work/payload.img" >/dev/null 2>&1 || true
[ -d "$results/out" ] || mkdir -p "$results/out"
vrc=0
uckit soak-verdict --console "$results/console.log" --report "$results/out/report" \
	--hardened "$hardened" --timed-out "$([ "$qrc" = 124 ] && echo yes || echo no)" \
	--facts "kernel=$version state=$label arch=$arch alloc=$ARCH_SOAK hardened=$hardened config=${config:+$(basename "$config")}" \
	--facts "build_s=$((t1 - t0)) soak_s=$((t3 - t2)) date=$(date -u +%Y-%m-%d) code=$code" \
	>"$results/soak.txt.new" || vrc=$?
mv "$results/soak.txt.new" "$results/soak.txt"
cat "$results/soak.txt"
echo "soak: $cell: $([ "$vrc" = 0 ] && echo PASS || echo FAIL) (results in $results)"
exit "$vrc"
