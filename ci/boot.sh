#!/bin/bash
# Boot a kernel under QEMU (TCG) with the hardened-usercopy self-test suite
# and check every case against the expectation tables.
#
#   ci/boot.sh --arch ARCH --kbuild KBUILD_DIR --image BZIMAGE \
#       --hardened y|n --out RESULT_DIR [--expect FILE ...] [--timeout SEC] \
#       [--make-var VAR=VAL ...] [--busybox PATH|none] [--append ARGS] \
#       [--module KO_FILE] [--qemu-args ARGS] [--mode on|off|warn] [--verbose] [--keep]
#   ci/boot.sh --print-expectations --arch ARCH --kbuild KBUILD_DIR \
#       --hardened y|n [--expect FILE ...]
#
# Builds tests/guest/uc_selftest.ko against KBUILD_DIR (or takes the one
# --module names, built elsewhere against the same kernel) and a static
# tests/guest/init.c, packs them (and a static busybox of the right
# architecture, if there is one) into an initramfs, boots it, and writes
# under RESULT_DIR: console.log (serial console), result.ktap (the guest's
# report), verdicts.ktap (the comparison, also printed) and build logs.
#
# Expectations: tests/guest/expect/default, then the files
# uckit/arches/ARCH.ini names ("expect ="), then since-X.Y for every X.Y up
# to the kernel's release, branch-X.Y and branch-X.Y-ARCH where they exist,
# then each --expect FILE; a file with "requires CONFIG_X" lines only where
# the build's .config sets them.  See the default file for the format.
# The choice, the merge, the report's extraction and the verdicts are
# uckit's (python3 -m uckit expect, ktap, verdicts: uckit/expect.py).
# --print-expectations prints the files chosen and the merged table
# (case, hardened, not hardened, note) and exits: nothing is built.
# UC_QEMU_ARGS: extra QEMU arguments, for debugging a guest that stops
# (e.g. "-s" for QEMU's gdbstub on tcp::1234; attach gdb-multiarch to the
# build's vmlinux).
# Exit status: 0 only if the guest finished the suite and every case matched;
# 1 on a mismatch or a guest that did not finish; 2 on a usage or build error.
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
guest="$top/tests/guest"

arch=
kbuild=
image=
hardened=
mode=on
out=
timeout=600
busybox=
append=
verbose=0
keep=0
print_expect=0
module=
expect_args=()
make_vars=()
qemu_extra=()

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed -e '/^set -eu/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

die() {
	echo "boot.sh: $*" >&2
	exit 2
}

need_arg() {
	[ "$2" -ge 2 ] || die "$1 needs an argument"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--arch) need_arg "$1" $#; arch=$2; shift 2 ;;
	--kbuild) need_arg "$1" $#; kbuild=$2; shift 2 ;;
	--image) need_arg "$1" $#; image=$2; shift 2 ;;
	--hardened) need_arg "$1" $#; hardened=$2; shift 2 ;;
	--mode) need_arg "$1" $#; mode=$2; shift 2 ;;
	--out) need_arg "$1" $#; out=$2; shift 2 ;;
	--expect) need_arg "$1" $#; expect_args+=(--expect "$2"); shift 2 ;;
	--timeout) need_arg "$1" $#; timeout=$2; shift 2 ;;
	--make-var) need_arg "$1" $#; make_vars+=("$2"); shift 2 ;;
	--busybox) need_arg "$1" $#; busybox=$2; shift 2 ;;
	--append) need_arg "$1" $#; append=$2; shift 2 ;;
	--module) need_arg "$1" $#; module=$2; shift 2 ;;
	--qemu-args) need_arg "$1" $#; read -r -a qemu_extra <<<"$2"; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--keep) keep=1; shift ;;
	--print-expectations) print_expect=1; shift ;;
	-h|--help) usage ;;
	*) die "unknown argument: $1 (see --help)" ;;
	esac
done

if [ "$print_expect" = 1 ]; then
	if [ -z "$arch" ] || [ -z "$kbuild" ] || [ -z "$hardened" ]; then
		die "--print-expectations needs --arch, --kbuild and --hardened"
	fi
elif [ -z "$arch" ] || [ -z "$kbuild" ] || [ -z "$image" ] ||
	[ -z "$hardened" ] || [ -z "$out" ]; then
	die "--arch, --kbuild, --image, --hardened and --out are required"
fi

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
arch_setup "$arch" 2>/dev/null || die "unsupported --arch $arch (supported: $uc_arches)"
qemu=$ARCH_QEMU
read -r -a qemu_machine <<<"$ARCH_QEMU_MACHINE"
# ARCH_CONSOLE may name several: one console= each, the last preferred
# (a name the kernel does not know is ignored).
console_args=""
for c in $ARCH_CONSOLE; do
	console_args+="console=$c "
done
init_cc=${UC_INIT_CC:-${CROSS_COMPILE}gcc}
arch_make_vars=("ARCH=$KARCH" "CROSS_COMPILE=$CROSS_COMPILE")
[ -n "$ARCH_KCFLAGS" ] && arch_make_vars+=("KCFLAGS=$ARCH_KCFLAGS")

case "$hardened" in
y|n) ;;
*) die "--hardened takes y or n" ;;
esac
# --mode: the hardened_usercopy= boot mode the command line gives a
# hardened kernel (a config profile's "mode:"): off is judged by the
# control's column, warn by the reports without the kills.
case "$mode" in
on|off|warn) ;;
*) die "--mode takes on, off or warn" ;;
esac

case "$timeout" in
''|*[!0-9]*) die "--timeout takes a number of seconds" ;;
esac

[ -d "$kbuild" ] || die "no kernel build directory $kbuild"
[ -f "$kbuild/Makefile" ] || die "$kbuild has no Makefile (not a kernel build directory)"

# --- expectations, checked before anything is built ------------------------
# "# expectations: FILE ... ", then one line a case: "case<TAB>hardened<TAB>
# not hardened<TAB>note".  Where uckit fails it has said what to fix.
expectations=$(uckit expect --arch "$arch" --kbuild "$kbuild" \
	${expect_args[@]+"${expect_args[@]}"}) || exit 2
if [ "$print_expect" = 1 ]; then
	printf '%s\n' "$expectations"
	exit 0
fi

[ -f "$image" ] || die "no kernel image $image"
[ -z "$module" ] || [ -f "$module" ] || die "no module $module"
command -v "$qemu" >/dev/null || die "$qemu not found: apt-get install $ARCH_QEMU_PKG"
command -v "$init_cc" >/dev/null || die "$init_cc not found: apt-get install $ARCH_GCC_PKG"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/console.log" "$out/result.ktap" "$out/verdicts.ktap" \
	"$out/module-build.log" "$out/init-build.log"

work=$(mktemp -d -t uc-boot.XXXXXX)
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ "$keep" = 1 ]; then
		echo "boot.sh: kept work directory $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

log() {
	echo "# boot.sh: $*"
}
printf '%s\n' "$expectations" >"$work/expect.tsv"
files=${expectations%%$'\n'*}
log "${files#"# "}"

# --- the module, built against the kernel under test -------------------------
mkdir "$work/mod"
if [ -n "$module" ]; then
	log "using the prebuilt $module"
	cp "$module" "$work/mod/uc_selftest.ko"
else
	cp "$guest/Kbuild" "$guest/uc_selftest.c" "$guest/uc_selftest.h" "$work/mod/"
	log "building uc_selftest.ko against $kbuild"
	if ! make -C "$kbuild" M="$work/mod" "${arch_make_vars[@]}" \
		"${make_vars[@]}" modules >"$out/module-build.log" 2>&1; then
		tail -n 30 "$out/module-build.log" >&2
		die "module build failed (see $out/module-build.log)"
	fi
fi
[ -f "$work/mod/uc_selftest.ko" ] || die "module build produced no uc_selftest.ko"

# --- the static init ----------------------------------------------------------
log "building init with $init_cc"
if ! "$init_cc" -static -Os -Wall -I"$guest" -o "$work/init" \
	"$guest/init.c" >"$out/init-build.log" 2>&1; then
	cat "$out/init-build.log" >&2
	die "init build failed"
fi

# --- busybox, only if it runs on the guest ------------------------------------
# The ELF identity of a file: class, byte order and machine (the header's
# bytes 4, 5, 18 and 19), compared with the init just built for the guest.
elf_id() {
	od -An -tx1 -j4 -N2 "$1" 2>/dev/null | tr -d ' \n'
	od -An -tx1 -j18 -N2 "$1" 2>/dev/null | tr -d ' \n'
}

if [ -z "$busybox" ]; then
	busybox=$(command -v busybox || true)
fi
use_busybox=
if [ -n "$busybox" ] && [ "$busybox" != none ]; then
	[ -f "$busybox" ] || die "no busybox at $busybox"
	if [ "$(elf_id "$busybox")" = "$(elf_id "$work/init")" ] &&
		! readelf -l "$busybox" 2>/dev/null | grep -q 'program interpreter'; then
		use_busybox=$busybox
	else
		log "busybox $busybox is not a static $arch binary: workload without it"
	fi
fi

# --- an XFS image, where the build has XFS (config profile realbugs) -----------
# init.c's bug_xfs_attrmulti_leak mounts /xfs.img on a loop device.  A
# 16 MiB version 4 filesystem without the later features, so 3.2 mounts it
# too; xfsprogs makes one under 300 MB only for fstests (the three
# variables), and gzip makes it 17 KB.
xfs_image=
if grep -q '^CONFIG_XFS_FS=y' "$kbuild/.config" 2>/dev/null; then
	command -v mkfs.xfs >/dev/null ||
		die "the build has XFS and mkfs.xfs is missing: apt-get install xfsprogs"
	xfs_image=$work/xfs.img
	truncate -s 16M "$xfs_image"
	TEST_DIR=/tmp TEST_DEV="$xfs_image" QA_CHECK_FS=1 mkfs.xfs -q -f \
		-m crc=0,finobt=0,reflink=0,rmapbt=0 -n ftype=0 -i sparse=0 \
		"$xfs_image" >"$out/mkfs-xfs.log" 2>&1 ||
		die "mkfs.xfs failed (see $out/mkfs-xfs.log)"
fi

# --- initramfs, without root (ci/initramfs.sh, shared with the bench) ----------
initramfs_files=(--file "/uc_selftest.ko=$work/mod/uc_selftest.ko:0644")
[ -z "$use_busybox" ] || initramfs_files+=(--file "/bin/busybox=$use_busybox")
[ -z "$xfs_image" ] || initramfs_files+=(--file "/xfs.img=$xfs_image:0644")
bash "$top/ci/initramfs.sh" --kbuild "$kbuild" --out "$work/initramfs.cpio.gz" \
	--init "$work/init" "${initramfs_files[@]}" || die "initramfs failed"

# UC_BOOT_ARTIFACTS=DIR: a copy of what this boot runs (the image, the
# initramfs, the kernel command line) and the expectation table, for a
# LAVA job of the same cell
# (python3 -m uckit lava; the pipeline's boot jobs keep them).
if [ -n "${UC_BOOT_ARTIFACTS:-}" ]; then
	mkdir -p "$UC_BOOT_ARTIFACTS"
	cp "$image" "$work/initramfs.cpio.gz" "$UC_BOOT_ARTIFACTS/"
	printf '%s\n' "${console_args}panic=-1 $append" >"$UC_BOOT_ARTIFACTS/cmdline.txt"
	# The merged expectations: a lab's log is judged without the build.
	printf '%s\n' "$expectations" >"$UC_BOOT_ARTIFACTS/expect.tsv"
fi

# --- boot ---------------------------------------------------------------------
log "booting $image on $qemu (TCG, timeout ${timeout}s, hardened=$hardened)"
: >"$work/ktap.out"
qemu_cmd=("$qemu" -accel tcg "${qemu_machine[@]}" -smp 1 -nographic -no-reboot
	-kernel "$image" -initrd "$work/initramfs.cpio.gz"
	-append "${console_args}panic=-1 $append" -serial mon:stdio
	${qemu_extra[@]+"${qemu_extra[@]}"})
# A second serial port carries the guest's report alone where the machine
# has one; elsewhere the report is read from the console.
[ "$ARCH_SERIAL2" = 1 ] && qemu_cmd+=(-serial "file:$work/ktap.out")
if [ -n "${UC_QEMU_ARGS:-}" ]; then
	read -r -a extra <<<"$UC_QEMU_ARGS"
	qemu_cmd+=("${extra[@]}")
fi
start=$(date +%s)
qemu_rc=0
# --foreground keeps QEMU in this script's process group, so stopping a
# boot test (kill -- -PGID) stops its guest too.
timeout --foreground -k 10 "$timeout" "${qemu_cmd[@]}" </dev/null \
	>"$out/console.log" 2>&1 &
qemu_pid=$!
if [ "$verbose" = 1 ]; then
	tail -n +1 -f --pid="$qemu_pid" "$out/console.log" &
fi
# Some guests cannot power off (arm64 before 3.12 halts in a loop) and some
# do not reset after a panic (malta waited out the whole timeout): once the
# suite's end marker, its Bail out! or a kernel panic is out, QEMU gets a
# grace period, then is stopped.
done_at=0 stopped=0
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ "$done_at" = 0 ] && grep -qaE 'UC-SUITE-DONE|^Bail out!|Kernel panic - not syncing' "$work/ktap.out" "$out/console.log"; then
		done_at=$(date +%s)
	fi
	if [ "$done_at" != 0 ] && [ $(($(date +%s) - done_at)) -ge 15 ]; then
		log "the guest did not power off 15 s after the suite ended (or the kernel panicked): stopping QEMU"
		kill "$qemu_pid" 2>/dev/null || true
		stopped=1
		break
	fi
	sleep 1
done
wait "$qemu_pid" || qemu_rc=$?
[ "$stopped" = 0 ] || qemu_rc=0
log "qemu exited with $qemu_rc after $(($(date +%s) - start))s"

# The guest's report: from its own serial port, else from the console.
report_from=$(uckit ktap --serial "$work/ktap.out" --console "$out/console.log" \
	--out "$out/result.ktap") || die "cannot write $out/result.ktap"
if [ "$report_from" = console ]; then
	log "no report on the second serial port, using the console's"
fi

# --- verdicts -----------------------------------------------------------------
uckit verdicts --expect-tsv "$work/expect.tsv" --report "$out/result.ktap" \
	--console "$out/console.log" --arch "$arch" --hardened "$hardened" \
	--qemu-rc "$qemu_rc" --mode "$mode" >"$out/verdicts.ktap" && verdict=0 || verdict=$?
done_ok=0
grep -q '^# UC-SUITE-DONE' "$out/result.ktap" && done_ok=1

cat "$out/verdicts.ktap"
if [ "$done_ok" != 1 ]; then
	echo "# boot.sh: the guest did not finish; last console lines:"
	tail -n 40 "$out/console.log" | tr -d '\r' | sed 's/^/#   /'
fi
[ "$verdict" = 0 ] && [ "$done_ok" = 1 ] || exit 1
exit 0
