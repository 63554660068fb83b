#!/bin/bash
# One boot-test cell: KERNEL x ARCH x ALLOC x HARDENED.
#
#   ci/boot-test.sh [--build-only|--boot-only] KERNEL ARCH ALLOC HARDENED
#
# Backport trees are applied once per series fingerprint (cached), native
# trees are used as they are; both are built out of tree (ci/kbuild.sh) and
# booted in QEMU with the in-guest suite (ci/boot.sh).  Exit 0 only if the
# guest ran the suite and every verdict matched its expectation. Exit 77: no
# such cell (n/a, recorded with the reason).
# Results land in $RESULTS (default: the cache's results/ directory).
# --build-only stops after the build and prints "build=DIR" (ci/bench.sh,
# the pipeline's build jobs); --boot-only boots what an earlier
# --build-only of the same cell built (the pipeline's boot jobs).
# How long a cell is expected to take: python3 -m uckit estimate.
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_only=0 boot_only=0
case "${1:-}" in
--build-only) build_only=1; shift ;;
--boot-only) boot_only=1; shift ;;
esac
kernel=${1:?KERNEL}
arch=${2:?ARCH}
alloc=${3:?ALLOC}
hardened=${4:?HARDENED}

die() { echo "boot-test: error: $*" >&2; exit 1; }

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
arch_setup "$arch" || exit 1

# tree, version, state and key (ci/lib.sh): the pristine tree's hardened
# copy is work/KEY, a cell's build and results are KEY-ARCH-ALLOC-hHARDENED.
kernel_info "$kernel" || exit 1

# The code this cell tests (the project's commit, "+" if its cell inputs
# have uncommitted changes): the matrix tells current records from old.
code=$(uckit matrix --code)

# A cell's record, for the matrix: key=value words and a "reason:" line.
# How far it got: applied (yes; already, a tree hardened before; native;
# failed), built, booted (the guest's init ran and reported), suite
# (verdicts that matched / all verdicts).
# write_cell DIR RESULT BUILD_S BOOT_S APPLIED BUILT BOOTED SUITE [REASON]
write_cell() {
	mkdir -p "$1"
	{
		echo "kernel=$version"
		echo "state=$([ "$state" = none ] && echo backport || echo "$state")"
		echo "arch=$arch alloc=$alloc hardened=$hardened"
		echo "build_s=$3 boot_s=$4"
		echo "applied=$5 built=$6 booted=$7 suite=$8"
		echo "date=$(date -u +%Y-%m-%d) code=$code"
		echo "result=$2"
		[ -z "${9:-}" ] || echo "reason: $9"
	} >"$1/cell.txt"
}
applied_word() {
	case "$state" in none) echo yes ;; backport) echo already ;; *) echo "$state" ;; esac
}

# An arch the tree does not have (arm64 before 3.7), or a boot target it
# cannot build (needs = in uckit/arches: QEMU's arm virt board before 3.9),
# is no cell (uckit na says why): recorded as n/a with the reason, for the
# matrix; exit 77 (skipped), so no caller mistakes it for a pass.
na_cell() {
	local na="$key-$arch-$alloc-h$hardened"
	write_cell "${RESULTS:-$cache/results}/$na" n/a 0 0 - - - - "$1"
	echo "boot-test: $na: N/A ($1)"
	exit 77
}
why=$(uckit na --kernel "$tree" --arch "$arch") || exit 1
[ -z "$why" ] || na_cell "$why"
# The source to build (ci/lib.sh): the hardened copy of a pristine tree,
# or a hardened or native tree as it is.
rc=0
source_to_build "$tree" "$state" "$key" || rc=$?
[ "$rc" != 2 ] || exit 1
if [ "$rc" = 1 ]; then
	write_cell "${RESULTS:-$cache/results}/$key-$arch-$alloc-h$hardened" \
		apply-failed 0 0 failed - - - "$apply_reason"
	die "apply of $tree failed (the cell is recorded as apply-failed)"
fi

cell="$key-$arch-$alloc-h$hardened"
build="$cache/build/$cell"
results=${RESULTS:-$cache/results}/$cell
mkdir -p "$results"

echo "boot-test: Linux $version ($label) ARCH=$arch ALLOC=$alloc HARDENED=$hardened"
# One build at a time per build directory (a bench and a boot test of the
# same cell, say); the lock is released when this script exits.
mkdir -p "$cache/build"
exec 8>"$build.lock"
flock 8
t0=$(date +%s)
rc=0
if [ "$boot_only" = 1 ]; then
	# The build's seconds, from the --build-only run that made it.
	if [ ! -f "$results/build_s" ] || [ ! -f "$build/uc-built" ]; then
		die "no build of $cell to boot (run ci/boot-test.sh --build-only $kernel $arch $alloc $hardened first)"
	fi
	t0=$((t0 - $(cat "$results/build_s")))
else
	rm -f "$build/uc-built"
	bash "$top/ci/kbuild.sh" --src "$src" --build "$build" --arch "$arch" \
		--alloc "$alloc" --hardened "$hardened" 2>&1 | tee "$results/kbuild.log" ||
		rc=$?
	t1=$(date +%s)
	if [ "$rc" != 0 ]; then
		# The first line that says what broke: a link or Kconfig complaint
		# before a generic "error".
		# The full build log has the compiler's or assembler's own first
		# complaint, which the short one may have scrolled past.
		reason=$(awk '/multiple definition|undefined reference|^ERROR: .* undefined!|^kconfig: CONFIG_/ { print; exit }' \
			"$results/kbuild.log" "$build/uc-build.log" 2>/dev/null || true)
		[ -n "$reason" ] ||
			reason=$(grep -m1 -E '(: (fatal )?error: |: Error: )' "$build/uc-build.log" 2>/dev/null || true)
		[ -n "$reason" ] ||
			reason=$(grep -E 'error|Error|kbuild:' "$results/kbuild.log" | grep -v -e '^kbuild: error: build failed' -e 'collect2' | head -n 1 || true)
		reason=${reason#"$src/"}
		write_cell "$results" build-failed "$((t1 - t0))" 0 "$(applied_word)" no - - "${reason:-see kbuild.log}"
		echo "boot-test: $cell: BUILD FAILED (results in $results)"
		exit 1
	fi
	echo "$((t1 - t0))" >"$results/build_s"
	touch "$build/uc-built"
fi
if [ "$build_only" = 1 ]; then
	echo "build=$build"
	exit 0
fi
t1=$(date +%s)

# boot.sh chooses the expectation files itself (uckit expect): the
# allocator changes no verdict; a config profile's differences are
# expectation files that require its CONFIG_ symbols.  A profile may add
# to the kernel command line and to QEMU's arguments.
profile_facts=$(uckit profile "$alloc") || exit 1
eval "$profile_facts"
rc=0
bash "$top/ci/boot.sh" --arch "$arch" --kbuild "$build" \
	--image "$build/$ARCH_IMAGE" --hardened "$hardened" --out "$results" \
	${PROFILE_APPEND:+--append "$PROFILE_APPEND"} \
	${PROFILE_QEMU:+--qemu-args "$PROFILE_QEMU"} --mode "$PROFILE_MODE" ||
	rc=$?
t2=$(date +%s)
# Booted: the guest's init ran and began its report.  Suite: the verdicts
# that matched, of all (the first one is the suite's completion).
booted=no
grep -q '^KTAP version' "$results/result.ktap" 2>/dev/null && booted=yes
suite=-
if [ -f "$results/verdicts.ktap" ]; then
	suite="$(grep -c '^ok ' "$results/verdicts.ktap" || true)/$(sed -n 's/^1\.\.//p' "$results/verdicts.ktap")"
fi
if [ "$rc" = 0 ]; then
	write_cell "$results" pass "$((t1 - t0))" "$((t2 - t1))" "$(applied_word)" yes "$booted" "$suite"
else
	reason=$(grep -m1 '^not ok' "$results/verdicts.ktap" 2>/dev/null || true)
	write_cell "$results" FAIL "$((t1 - t0))" "$((t2 - t1))" "$(applied_word)" yes "$booted" "$suite" \
		"${reason:-boot.sh failed before booting}"
fi
echo "boot-test: $cell: $([ "$rc" = 0 ] && echo PASS || echo FAIL) (build $((t1 - t0)) s, boot+suite $((t2 - t1)) s; results in $results)"
exit "$rc"
