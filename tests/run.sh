#!/bin/bash
# The test suite: `make check`.
#
#   tests/run.sh [--only unit|cocci|lint|trees|boot|packages]
#
# unit and cocci always run; lint needs checkpatch.pl (from Debian's
# linux-source-6.1) and shellcheck; trees and boot run for every kernel in
# the cache and print a SKIP line with the reason for each one that is not.
# Ends with "N passed, N failed, N skipped".  UC_BOOT=0 skips the boots.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
only=""
[ "${1:-}" = --only ] && only=${2:-}
passed=0 failed=0 skipped=0
run_start=$(date +%s)
# The whole run's time budget (boot cells and package tests start only if
# they fit; see below), and the one test of it.
check_budget=${UC_CHECK_BUDGET:-2700}
# over_budget EXPECT START LIMIT NAME WHAT: succeeds, printing why, if
# EXPECT more seconds would take WHAT (timed from START) past LIMIT.
over_budget() {
	local at=$(( $(date +%s) - $2 ))
	[ $((at + $1)) -gt "$3" ] || return 1
	echo "$5 is at ${at}s; this takes ~$1s here, over $4=$3s"
}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
pass() { passed=$((passed + 1)); echo "ok - $1"; }
fail() { failed=$((failed + 1)); echo "not ok - $1${2:+ # $2}"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $1 # $2"; }

# Run a command as one test; its output is shown only when it fails.
check() {
	local name=$1 log
	shift
	log="$logdir/$(printf %s "$name" | tr -c 'A-Za-z0-9' _).log"
	if "$@" > "$log" 2>&1; then
		pass "$name"
	else
		fail "$name"
		sed 's/^/#   /' "$log" | tail -n 60
	fi
}

# Fold a KTAP producer's lines into the totals.
ktap() {
	local line
	while IFS= read -r line; do
		case "$line" in
		"ok "*"# SKIP"*) skipped=$((skipped + 1)); echo "$line" ;;
		"ok "*) passed=$((passed + 1)); echo "$line" ;;
		"not ok "*) failed=$((failed + 1)); echo "$line" ;;
		*) echo "$line" ;;
		esac
	done
}

if want unit; then
	echo "# unit: toolkit behaviour and error messages"
	ktap < <(python3 "$top/tests/unit.py" 2>&1)
fi

if want cocci; then
	echo "# cocci: semantic patch rule tests"
	if command -v spatch >/dev/null; then
		ktap < <(bash "$top/tests/cocci-rules.sh" 2>&1)
	else
		fail "cocci rule tests" "spatch not found: apt-get install coccinelle"
	fi
fi

if want lint; then
	echo "# lint: checkpatch on the kernel C, shellcheck on the scripts"
	cp_pl=$(bash "$top/tests/checkpatch.sh" --where 2>/dev/null)
	if [ -n "$cp_pl" ]; then
		# Kernel C that lands in trees: no waivers.
		while IFS= read -r f; do
			check "checkpatch ${f#"$top"/}" bash "$top/tests/checkpatch.sh" "$f"
		done < <(find "$top/patches/files" "$top/tests/bench" -name '*.[ch]' | sort)
		# The guest suite: an X-macro case table (BRACKET_SPACE,
		# COMPLEX_MACRO), one header switch for 4.4 vs 6.1
		# (LINUX_VERSION_CODE), and a userspace init without the
		# kernel's __printf/ARRAY_SIZE helpers, which falls back to
		# init_module() when finit_module() is ENOSYS (before 3.8).
		while IFS= read -r f; do
			UC_CHECKPATCH_IGNORE=BRACKET_SPACE,COMPLEX_MACRO,LINUX_VERSION_CODE,CONSTANT_COMPARISON,SPLIT_STRING,PREFER_DEFINED_ATTRIBUTE_MACRO,ARRAY_SIZE,ENOSYS \
				check "checkpatch ${f#"$top"/}" bash "$top/tests/checkpatch.sh" "$f"
		done < <(find "$top/tests/guest" -name '*.[ch]' | sort)
	else
		skip "checkpatch" "no checkpatch.pl: apt-get install linux-source-6.1"
	fi
	if command -v shellcheck >/dev/null; then
		while IFS= read -r f; do
			check "shellcheck ${f#"$top"/}" shellcheck -x "$f"
		done < <(find "$top/ci" "$top/tests" "$top/.ci" -name '*.sh' -o -name run -path '*/.ci/*' | sort)
	else
		skip "shellcheck" "shellcheck not found: apt-get install shellcheck"
	fi
fi

# Pristine trees in the cache: those the manifests name, plus any other
# linux-X.Y.Z someone put there (a second sublevel proves robustness).
cached_trees() {
	local d
	for d in "$cache"/trees/linux-*/; do
		[ -f "$d/Makefile" ] && basename "$d"
	done
}

if want trees; then
	echo "# trees: apply, audit, idempotence and quilt export on cached trees"
	mapfile -t trees < <(cached_trees)
	[ "${#trees[@]}" -gt 0 ] || skip "real-tree apply" "no kernel tree in $cache/trees (see README: kernel cache)"
	for t in ${trees[@]+"${trees[@]}"}; do
		v=${t#linux-}
		b=${v%.*}
		if grep -q '^status: native' "$top/kernels/$b" 2>/dev/null; then
			check "apply leaves native $v untouched" bash "$top/tests/native-noop.sh" "$cache/trees/$t"
		elif [ -f "$top/series/$b" ]; then
			check "apply+audit+export $v" bash "$top/tests/tree-roundtrip.sh" "$cache/trees/$t"
		else
			skip "apply $v" "no series for branch $b yet (kernels/$b)"
		fi
	done
fi

if want boot; then
	echo "# boot: QEMU boot tests with the in-guest suite"
	# Every cached backport tree (the branch's default sublevel): SLUB and
	# SLAB hardened plus the unhardened control on x86_64, SLUB on arm64;
	# every native tree and Debian's 6.1 (the oracle): hardened and
	# control on x86_64; every other arch (ci/arch.sh) on 4.4.220,
	# hardened and control.  Cells already built are only re-checked
	# (make finds nothing to do).  A cell starts only if its expected
	# time (ci/boot-test.sh's UC_ESTIMATE: warm, its last boot plus a
	# minute; cold, UC_BOOT_COLD_S, 900 s) fits in UC_BOOT_BUDGET seconds
	# of boot testing (default 1500) and in UC_CHECK_BUDGET seconds of
	# the whole run (default 2700); the others are SKIP lines with the
	# reason, so CI stays within its time.  UC_BOOT_PLAN=1 prints the
	# cells and their estimates instead of running them.
	budget=${UC_BOOT_BUDGET:-1500}
	boot_start=$(date +%s)
	cells=()
	declare -A listed=()
	add_cell() {
		local c
		for c in "$@"; do
			[ -n "${listed[$c]:-}" ] && continue
			listed[$c]=1
			cells+=("$c")
		done
	}
	is_native() { grep -q '^status: native' "$top/kernels/$1" 2>/dev/null; }
	is_default() { [ "$1" = "$(sed -n 's/^default: //p' "$top/kernels/${1%.*}" 2>/dev/null)" ]; }
	if [ "${UC_BOOT:-1}" = 0 ]; then
		skip "boot tests" "UC_BOOT=0"
	else
		# Debian's 6.1 first: the kernel every machine can install
		# (make run's default), with the upstream implementation the
		# backport is measured against.
		if [ -f /usr/src/linux-source-6.1.tar.xz ]; then
			add_cell "debian x86_64 slub y" "debian x86_64 slub n"
		else
			skip "boot-test debian" "apt-get install linux-source-6.1"
		fi
		mapfile -t trees < <(cached_trees)
		for t in ${trees[@]+"${trees[@]}"}; do
			v=${t#linux-}
			if is_native "${v%.*}"; then
				# Native: the suite and its control.
				add_cell "$v x86_64 slub y" "$v x86_64 slub n"
				continue
			fi
			if [ ! -f "$top/series/${v%.*}" ]; then
				skip "boot-test $v" "no series for branch ${v%.*}"
				continue
			fi
			# Other sublevels of a branch: apply is enough here
			# (trees section); make boot-all boots them too.
			is_default "$v" || continue
			add_cell "$v x86_64 slub y" "$v x86_64 slab y" "$v x86_64 slub n"
			# arm64 too where the tree has it: the second arch
			# distros ship, and the one whose old trees needed
			# their own compat (dtc, module relocations, BUG()).
			if [ "$v" != 4.4.220 ] && [ -d "$cache/trees/$t/arch/arm64" ] &&
				command -v aarch64-linux-gnu-gcc >/dev/null; then
				add_cell "$v arm64 slub y"
			fi
		done
		# Every other arch on 4.4.220: the feature and its control.
		if [ -f "$cache/trees/linux-4.4.220/Makefile" ]; then
			for a in $UC_ARCHES; do
				[ "$a" = x86_64 ] && continue
				arch_setup "$a"
				if ! command -v "${CROSS_COMPILE}gcc" >/dev/null ||
					! command -v "$ARCH_QEMU" >/dev/null; then
					skip "boot-test 4.4.220 $a" "apt-get install $ARCH_GCC_PKG $ARCH_QEMU_PKG"
					continue
				fi
				add_cell "4.4.220 $a slub y" "4.4.220 $a slub n"
				# SLAB too where distros ship it (arm64, as x86_64).
				[ "$a" = arm64 ] && add_cell "4.4.220 $a slab y"
			done
		fi
		# UC_BOOT_CELLS=all (make boot-all): every arch of every cached
		# tree, every sublevel, and Debian's 6.1: SLUB hardened, SLAB
		# on x86_64 and arm64, the control on x86_64.  A cell that
		# cannot exist (an arch the tree lacks...) is recorded n/a by
		# boot-test and skipped here.
		# UC_BOOT_CELLS=stale (make boot-stale): the same cells, less
		# those whose newest record ran the cell inputs of this checkout
		# (ci/matrix.sh --current), so a grid too long for one sitting
		# is finished over several.
		if [ "${UC_BOOT_CELLS:-ci}" = all ] || [ "${UC_BOOT_CELLS:-ci}" = stale ]; then
			all=()
			for t in ${trees[@]+"${trees[@]}"}; do
				v=${t#linux-}
				is_native "${v%.*}" || [ -f "$top/series/${v%.*}" ] && all+=("$v")
			done
			[ -f /usr/src/linux-source-6.1.tar.xz ] && all+=(debian)
			for v in ${all[@]+"${all[@]}"}; do
				add_cell "$v x86_64 slub y" "$v x86_64 slab y" "$v x86_64 slub n"
				for a in $UC_ARCHES; do
					[ "$a" = x86_64 ] && continue
					add_cell "$v $a slub y"
					[ "$a" = arm64 ] && add_cell "$v $a slab y"
				done
			done
		fi
		if [ "${UC_BOOT_CELLS:-ci}" = stale ]; then
			declare -A fresh=()
			while read -r k a al h; do
				fresh["$k $a $al $h"]=1
			done < <(bash "$top/ci/matrix.sh" --current)
			debian=""
			[ -f /usr/src/linux-source-6.1.tar.xz ] &&
				debian=$(uckit info --kernel debian | sed -n 's/^version=//p')
			stale=()
			for cell in ${cells[@]+"${cells[@]}"}; do
				read -r k a al h <<<"$cell"
				[ "$k" = debian ] && k=$debian
				[ -n "${fresh["$k $a $al $h"]:-}" ] || stale+=("$cell")
			done
			echo "# boot-stale: ${#stale[@]} of ${#cells[@]} cells have no record of the current cell inputs"
			cells=(${stale[@]+"${stale[@]}"})
		fi
	fi
	for cell in ${cells[@]+"${cells[@]}"}; do
		read -r k a al h <<<"$cell"
		expect=$(UC_ESTIMATE=1 bash "$top/ci/boot-test.sh" "$k" "$a" "$al" "$h" 2>/dev/null) || expect=""
		[ -n "$expect" ] || expect=${UC_BOOT_COLD_S:-900}
		if [ "${UC_BOOT_PLAN:-0}" = 1 ]; then
			echo "# plan: boot-test $k $a $al hardened=$h (~${expect}s)"
			continue
		fi
		if why=$(over_budget "$expect" "$boot_start" "$budget" UC_BOOT_BUDGET "boot testing") ||
			why=$(over_budget "$expect" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
			skip "boot-test $k $a $al hardened=$h" "$why"
			continue
		fi
		# Exit 77 is a cell that cannot exist (n/a): a skip, not a pass.
		log="$logdir/boot-$k-$a-$al-$h.log"
		rc=0
		bash "$top/ci/boot-test.sh" "$k" "$a" "$al" "$h" >"$log" 2>&1 || rc=$?
		case "$rc" in
		0) pass "boot-test $k $a $al hardened=$h" ;;
		77) skip "boot-test $k $a $al hardened=$h" "$(sed -n 's/^boot-test: .*: N\/A (\(.*\))$/n\/a: \1/p' "$log")" ;;
		*) fail "boot-test $k $a $al hardened=$h"; sed 's/^/#   /' "$log" | tail -n 60 ;;
		esac
	done
fi

if want packages; then
	echo "# packages: .deb and .rpm of 4.4.220 (backport) and of KERNEL=debian (6.1, native): x86_64 image and headers (build, lint, install, upgrade, module build, boot, removal), arm64 cross-built (build, lint, contents, install, boot)"
	pkernels=()
	if [ "${UC_PACKAGES:-1}" = 0 ]; then
		skip "package tests" "UC_PACKAGES=0"
	else
		if [ -f "$cache/trees/linux-4.4.220/Makefile" ]; then
			pkernels+=(4.4.220)
		else
			skip "package tests 4.4.220" "linux-4.4.220 is not in the kernel cache"
		fi
		if [ "${UC_PACKAGES_DEBIAN:-1}" = 0 ]; then
			skip "package tests debian" "UC_PACKAGES_DEBIAN=0"
		elif [ -f /usr/src/linux-source-6.1.tar.xz ]; then
			pkernels+=(debian)
		else
			skip "package tests debian" "apt-get install linux-source-6.1"
		fi
	fi
	# Each package test builds whole distro kernels: minutes with a warm
	# ccache, an hour and more on a machine that has built nothing yet.
	# A test starts only if make check, with what it is expected to take
	# (its last duration on this machine, kept in the cache, else
	# UC_PACKAGE_COLD_S, default 2400 s), stays within UC_CHECK_BUDGET
	# seconds (default 2700), so a cold machine's CI run still ends in
	# time; the rest are SKIP lines with the reason.
	timings="$cache/timings"
	package_test() {
		local id expect t0 why
		id=$(printf '%s' "$*" | tr -c 'A-Za-z0-9.' _)
		expect=$(cat "$timings/package-$id.s" 2>/dev/null || echo "${UC_PACKAGE_COLD_S:-2400}")
		if why=$(over_budget "$expect" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
			skip "package tests $*" "$why"
			return
		fi
		t0=$(date +%s)
		ktap < <(bash "$top/tests/package-test.sh" "$@" 2>&1)
		mkdir -p "$timings"
		echo $(( $(date +%s) - t0 )) >"$timings/package-$id.s"
	}
	for k in ${pkernels[@]+"${pkernels[@]}"}; do
		for format in deb rpm; do
			package_test --kernel "$k" --format "$format"
		done
		if [ "${UC_PACKAGES_ARM64:-1}" = 0 ]; then
			skip "arm64 package tests $k" "UC_PACKAGES_ARM64=0"
			continue
		fi
		for format in deb rpm; do
			package_test --kernel "$k" --arch arm64 --format "$format"
		done
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
