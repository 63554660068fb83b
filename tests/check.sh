#!/bin/bash
# The test suite: `make check`.
#
#   tests/check.sh [--only unit|cocci|lint|trees|boot|soak|packages]
#
# unit and cocci always run; lint needs checkpatch.pl (from Debian's
# linux-source-6.1) and shellcheck; trees and boot run for every kernel in
# the cache and print a SKIP line with the reason for each one that is not.
# Ends with "N passed, N failed, N skipped".  UC_BOOT=0 skips the boots;
# python3 -m uckit knobs lists every UC_* variable and its default.
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
check_budget=$(uckit knobs --get UC_CHECK_BUDGET) || exit 2
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
		ktap < <(python3 "$top/tests/cocci_rules.py" 2>&1)
	else
		fail "cocci rule tests" "spatch not found: apt-get install coccinelle"
	fi
fi

if want lint; then
	echo "# lint: checkpatch on the kernel C, shellcheck on the scripts, pyflakes on the Python"
	cp_pl=$(bash "$top/tests/checkpatch.sh" --where 2>/dev/null)
	if [ -n "$cp_pl" ]; then
		# Kernel C that lands in trees: no waivers.
		while IFS= read -r f; do
			check "checkpatch ${f#"$top"/}" bash "$top/tests/checkpatch.sh" "$f"
		done < <(find "$top/patches/files" "$top/tests/bench" -name '*.[ch]' | sort)
		# The guest suite: an X-macro case table (BRACKET_SPACE,
		# COMPLEX_MACRO), version switches for what 3.2-6.1 have
		# (LINUX_VERSION_CODE), kmap() because kmap_local_page() is
		# 5.11+ (DEPRECATED_API), and a userspace init without the
		# kernel's __printf/ARRAY_SIZE helpers, which falls back to
		# init_module() when finit_module() is ENOSYS (before 3.8).
		while IFS= read -r f; do
			UC_CHECKPATCH_IGNORE=BRACKET_SPACE,COMPLEX_MACRO,LINUX_VERSION_CODE,CONSTANT_COMPARISON,SPLIT_STRING,PREFER_DEFINED_ATTRIBUTE_MACRO,ARRAY_SIZE,ENOSYS,DEPRECATED_API \
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
	if command -v pyflakes3 >/dev/null; then
		check "pyflakes uckit tests" pyflakes3 "$top/uckit" "$top"/tests/*.py
	else
		skip "pyflakes" "pyflakes3 not found: apt-get install pyflakes3"
	fi
fi

# Pristine trees in the cache: those the manifests name (newest branch
# first), then any other linux-X.Y.Z someone put there (a second sublevel
# proves robustness), newest first.
cached_trees() {
	local d defaults
	defaults=$(sed -n 's/^default: /linux-/p' "$top"/kernels/[0-9]*)
	for d in "$cache"/trees/linux-*/; do
		[ -f "$d/Makefile" ] || continue
		d=$(basename "$d")
		if grep -qx -- "$d" <<<"$defaults"; then echo "0 $d"; else echo "1 $d"; fi
	done | sort -k1,1 -k2,2Vr | cut -d' ' -f2
}

if want trees; then
	echo "# trees: apply, audit, idempotence and quilt export on cached trees"
	mapfile -t trees < <(cached_trees)
	[ "${#trees[@]}" -gt 0 ] || skip "real-tree apply" "no kernel tree in $cache/trees (see README: kernel cache)"
	# Every tree is worth a round trip, but a cache with every branch and
	# second sublevels would take half an hour: a tree starts only if it
	# fits in UC_TREES_BUDGET (make boot-all's machines run them all).
	trees_budget=$(uckit knobs --get UC_TREES_BUDGET) || exit 2
	tree_s=$(uckit knobs --get UC_TREE_S) || exit 2
	trees_start=$(date +%s)
	for t in ${trees[@]+"${trees[@]}"}; do
		v=${t#linux-}
		if why=$(over_budget "$tree_s" "$trees_start" "$trees_budget" UC_TREES_BUDGET "the trees section"); then
			skip "apply+audit+export $v" "$why"
			continue
		fi
		# What the tree is decides the test (uckit info's state: native
		# or hardened before, or a backport target with a series).
		if ! info=$(uckit info --kernel "$cache/trees/$t" 2>"$logdir/info.err"); then
			skip "apply $v" "$(sed -n '1s/^error: //p' "$logdir/info.err")"
			continue
		fi
		case "$(sed -n 's/^state=//p' <<<"$info")" in
		none) check "apply+audit+export $v" bash "$top/tests/tree-roundtrip.sh" "$cache/trees/$t" ;;
		native | backport) check "apply leaves hardened $v untouched" bash "$top/tests/native-noop.sh" "$cache/trees/$t" ;;
		*) fail "apply $v" "$cache/trees/$t is partly hardened: not a pristine tree" ;;
		esac
	done
fi

if want boot; then
	echo "# boot: QEMU boot tests with the in-guest suite"
	# The cells are make check's boot plan (python3 -m uckit plan --cells
	# ci: uckit/plan.py says which and why), each with its expected time
	# here (warm, built already: its last boot plus UC_BOOT_WARM_S; cold:
	# UC_BOOT_COLD_S).  A cell starts only if that fits in UC_BOOT_BUDGET
	# seconds of boot testing and in UC_CHECK_BUDGET seconds of the whole
	# run; the others are SKIP lines with the reason, so CI stays within
	# its time.  Cells already built are only re-checked (make finds
	# nothing to do).  make boot-all and boot-stale run their plans
	# without a budget (python3 -m uckit boot).
	boot_budget=$(uckit knobs --get UC_BOOT_BUDGET) || exit 2
	boot_on=$(uckit knobs --get UC_BOOT) || exit 2
	boot_start=$(date +%s)
	# boot_cell KERNEL ARCH ALLOC HARDENED ESTIMATE_S: one cell, as a test.
	boot_cell() {
		local name="boot-test $1 $2 $3 hardened=$4" why log rc=0
		if why=$(over_budget "$5" "$boot_start" "$boot_budget" UC_BOOT_BUDGET "boot testing") ||
			why=$(over_budget "$5" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
			skip "$name" "$why"
			return
		fi
		log="$logdir/boot-$1-$2-$3-$4.log"
		bash "$top/ci/boot-test.sh" "$1" "$2" "$3" "$4" >"$log" 2>&1 || rc=$?
		# Exit 77 is a cell that cannot exist (n/a): a skip, not a pass.
		case "$rc" in
		0) pass "$name" ;;
		77) skip "$name" "$(sed -n 's/^boot-test: .*: N\/A (\(.*\))$/n\/a: \1/p' "$log")" ;;
		# The verdicts that passed are left out so the failing ones show.
		*) fail "$name"; grep -v '^ok [0-9]' "$log" | sed 's/^/#   /' | tail -n 60 ;;
		esac
	}
	if [ "$boot_on" = 0 ]; then
		skip "boot tests" "UC_BOOT=0"
	elif ! plan=$(uckit plan --cells ci 2>"$logdir/plan.err"); then
		fail "boot plan" "python3 -m uckit plan --cells ci failed"
		sed 's/^/#   /' "$logdir/plan.err"
	else
		# Plan lines: "# SKIP NAME # REASON", other "# " notes, and
		# KERNEL ARCH ALLOC HARDENED ESTIMATE_S.
		mapfile -t lines <<<"$plan"
		for line in "${lines[@]}"; do
			case "$line" in
			"") ;;
			"# SKIP "*)
				line=${line#"# SKIP "}
				skip "${line%% # *}" "${line#* # }" ;;
			"#"*) echo "$line" ;;
			*)
				read -r k a al h est <<<"$line"
				boot_cell "$k" "$a" "$al" "$h" "$est" ;;
			esac
		done
	fi
fi

if want pipeline; then
	echo "# pipeline: the GitLab pipeline (.gitlab-ci.yml) run here by gitlab-ci-local for the newest backport on x86_64 and arm64, hardened (tree, apply, builds, boots, report), then the x86_64 cell's LAVA job run by lava-run (warm only)"
	pipeline_on=$(uckit knobs --get UC_PIPELINE) || exit 2
	newest=$(python3 -c 'from uckit import plan, source; print(plan.newest_backport(source.manifests()))')
	cell="$newest:x86_64:slub:y"
	# arm64 too where its cross compiler is here: the second distro arch.
	cells=("$cell")
	command -v aarch64-linux-gnu-gcc >/dev/null && cells+=("$newest:arm64:slub:y")
	if [ "$pipeline_on" = 0 ]; then
		skip "pipeline" "UC_PIPELINE=0"
	elif ! command -v gitlab-ci-local >/dev/null; then
		skip "pipeline" "npm install -g gitlab-ci-local@4.73.0 (make deps-package does it)"
	elif [ ! -f "$cache/trees/linux-$newest/Makefile" ]; then
		skip "pipeline $cell" "no linux-$newest in the kernel cache"
	elif ! est=$(uckit estimate --kernel "$newest" --arch x86_64 --alloc slub --hardened y); then
		fail "pipeline ${cells[*]}" "python3 -m uckit estimate failed"
	elif why=$(over_budget "$((est * ${#cells[@]} + 240))" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
		skip "pipeline ${cells[*]}" "$why"
	elif bash "$top/ci/pipeline.sh" -j 2 "${cells[@]}" >"$logdir/pipeline.log" 2>&1; then
		pass "pipeline ${cells[*]}: gitlab-ci-local ran tree, apply, builds, boots and report"
		art="$top/.gitlab-ci-local/artifacts"
		junit=$(find "$art" -path '*/report/junit.xml' | head -n 1)
		if [ -n "$junit" ] && grep -q '<testsuites [^>]*failures="0"' "$junit" &&
			[ -f "$(dirname "$(dirname "$junit")")/docs/matrix.md" ]; then
			pass "pipeline report: JUnit and the matrix page from the pipeline's artifacts"
		else
			fail "pipeline report: JUnit and the matrix page from the pipeline's artifacts"
		fi
		lava=$(find "$art" -path "*/lava/${cell//:/-}/cmdline.txt" | head -n 1)
		if ! command -v lava-run >/dev/null; then
			skip "lava-run $cell" "apt-get install lava-dispatcher (make deps-package)"
		elif [ "$(id -u)" != 0 ]; then
			skip "lava-run $cell" "lava-run needs root"
		elif [ -z "$lava" ]; then
			fail "lava-run $cell" "the boot job left no lava/ artifacts"
		elif bash "$top/tests/lava-run.sh" "$cell" "$(dirname "$lava")" >"$logdir/lava.log" 2>&1; then
			pass "lava-run $cell: the cell's LAVA job booted in lava-dispatcher and every verdict matched"
		else
			fail "lava-run $cell"
			sed 's/^/#   /' "$logdir/lava.log" | tail -n 40
		fi
	else
		fail "pipeline ${cells[*]}"
		grep -E 'PASS|FAIL|WARN|error|not ok' "$logdir/pipeline.log" | sed 's/^/#   /' | tail -n 40
	fi
fi

if want soak; then
	echo "# soak: the newest backport, hardened, on the host arch: a distro-class kernel on Debian 12 under stress-ng and real programs (warm only: a machine that soaked it before)"
	# The soak plan (python3 -m uckit plan --cells soak): a line
	# KERNEL ARCH HARDENED ESTIMATE_S, or a SKIP line with the reason.
	soak_on=$(uckit knobs --get UC_SOAK) || exit 2
	if [ "$soak_on" = 0 ]; then
		skip "soak" "UC_SOAK=0"
	elif ! splan=$(uckit plan --cells soak); then
		fail "soak plan" "python3 -m uckit plan --cells soak failed"
	else
		while IFS= read -r line; do
			case "$line" in
			"") ;;
			"# SKIP "*)
				line=${line#"# SKIP "}
				skip "${line%% # *}" "${line#* # }" ;;
			*)
				read -r k a h est <<<"$line"
				name="soak $k $a hardened=$h"
				if why=$(over_budget "$est" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
					skip "$name" "$why"
				elif bash "$top/ci/soak.sh" "$k" "$a" "$h" >"$logdir/soak.log" 2>&1; then
					pass "$name"
				else
					fail "$name"
					# The record without its lists of skipped and idle stressors.
					grep -v -e '^skipped: ' -e '^idle: ' "$logdir/soak.log" | sed 's/^/#   /' | tail -n 40
				fi ;;
			esac
		done <<<"$splan"
	fi
fi

if want packages; then
	echo "# packages: .deb and .rpm of the newest backport and of KERNEL=debian (6.1, native): image and headers on the host arch (build, lint, install, upgrade, module build, boot, removal), the other distro arches cross-built (build, lint, contents, install, boot)"
	packages_on=$(uckit knobs --get UC_PACKAGES) || exit 2
	packages_debian=$(uckit knobs --get UC_PACKAGES_DEBIAN) || exit 2
	packages_arm64=$(uckit knobs --get UC_PACKAGES_ARM64) || exit 2
	package_cold=$(uckit knobs --get UC_PACKAGE_COLD_S) || exit 2
	# The package plan (python3 -m uckit plan --cells packages): the newest
	# backport's default version and Debian's 6.1, on every arch distros
	# ship (uckit/arches: packaged = yes), the host's natively.
	plines=()
	if [ "$packages_on" = 0 ]; then
		skip "package tests" "UC_PACKAGES=0"
	elif ! pplan=$(uckit plan --cells packages); then
		fail "package plan" "python3 -m uckit plan --cells packages failed"
	else
		mapfile -t plines <<<"$pplan"
	fi
	# Each package test builds whole distro kernels: minutes with a warm
	# ccache, an hour and more on a machine that has built nothing yet.
	# A test starts only if make check, with what it is expected to take
	# (its last duration on this machine, kept in the cache, else
	# UC_PACKAGE_COLD_S), stays within UC_CHECK_BUDGET seconds, so a cold
	# machine's CI run still ends in time; the rest are SKIP lines with the
	# reason.  python3 -m uckit knobs gives the defaults.
	timings="$cache/timings"
	package_test() {
		local id expect t0 why
		id=$(printf '%s' "$*" | tr -c 'A-Za-z0-9.' _)
		expect=$(cat "$timings/package-$id.s" 2>/dev/null || echo "$package_cold")
		if why=$(over_budget "$expect" "$run_start" "$check_budget" UC_CHECK_BUDGET "make check"); then
			skip "package tests $*" "$why"
			return
		fi
		t0=$(date +%s)
		ktap < <(bash "$top/tests/package-test.sh" "$@" 2>&1)
		mkdir -p "$timings"
		echo $(( $(date +%s) - t0 )) >"$timings/package-$id.s"
	}
	for line in ${plines[@]+"${plines[@]}"}; do
		case "$line" in
		"# SKIP "*)
			line=${line#"# SKIP "}
			skip "${line%% # *}" "${line#* # }"
			continue ;;
		esac
		read -r k a how <<<"$line"
		if [ "$k" = debian ] && [ "$packages_debian" = 0 ]; then
			skip "package tests debian $a" "UC_PACKAGES_DEBIAN=0"
			continue
		fi
		if [ "$how" = cross ] && [ "$packages_arm64" = 0 ]; then
			skip "$a package tests $k" "UC_PACKAGES_ARM64=0"
			continue
		fi
		for format in deb rpm; do
			if [ "$how" = native ]; then
				package_test --kernel "$k" --format "$format"
			else
				package_test --kernel "$k" --arch "$a" --format "$format"
			fi
		done
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
