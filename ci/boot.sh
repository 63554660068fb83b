#!/bin/bash
# Boot a kernel under QEMU (TCG) with the hardened-usercopy self-test suite
# and check every case against the expectation tables.
#
#   ci/boot.sh --arch ARCH --kbuild KBUILD_DIR --image BZIMAGE \
#       --hardened y|n --out RESULT_DIR [--expect FILE ...] [--timeout SEC] \
#       [--make-var VAR=VAL ...] [--busybox PATH|none] [--append ARGS] \
#       [--module UC_SELFTEST_KO] [--verbose] [--keep]
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
# Expectations: tests/guest/expect/default, then the files ci/arch.sh names
# for ARCH (ARCH_EXPECT), then since-X.Y for every X.Y up to the kernel's
# release, branch-X.Y and branch-X.Y-ARCH where they exist, then each
# --expect FILE; a file with "requires CONFIG_X" lines only where the
# build's .config sets them.  See the default file for the format.
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
out=
timeout=600
busybox=
append=
verbose=0
keep=0
print_expect=0
module=
expects=()
make_vars=()

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
	--out) need_arg "$1" $#; out=$2; shift 2 ;;
	--expect) need_arg "$1" $#; expects+=("$2"); shift 2 ;;
	--timeout) need_arg "$1" $#; timeout=$2; shift 2 ;;
	--make-var) need_arg "$1" $#; make_vars+=("$2"); shift 2 ;;
	--busybox) need_arg "$1" $#; busybox=$2; shift 2 ;;
	--append) need_arg "$1" $#; append=$2; shift 2 ;;
	--module) need_arg "$1" $#; module=$2; shift 2 ;;
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
arch_setup "$arch" 2>/dev/null || die "unsupported --arch $arch (supported: $UC_ARCHES)"
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
y) column=2 ;;
n) column=3 ;;
*) die "--hardened takes y or n" ;;
esac

case "$timeout" in
''|*[!0-9]*) die "--timeout takes a number of seconds" ;;
esac

[ -d "$kbuild" ] || die "no kernel build directory $kbuild"
[ -f "$kbuild/Makefile" ] || die "$kbuild has no Makefile (not a kernel build directory)"
for f in ${expects[@]+"${expects[@]}"}; do
	[ -f "$f" ] || die "no expectation file $f"
done

# The branch's own differences (expect/since-X.Y for every X.Y up to the
# kernel's, then branch-X.Y, then branch-X.Y-ARCH) follow the arch's,
# whoever calls: boot-test, or the package tests with an image from a
# package.
release=$(cat "$kbuild/include/config/kernel.release" 2>/dev/null || true)
kbranch=$(sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p' <<<"$release")
# kernel_since X.Y: the kernel's branch is X.Y or later.
kernel_since() {
	[ "$(printf '%s\n' "$1" "$kbranch" | sort -V | head -n 1)" = "$1" ]
}
# since-X.Y: what changed upstream at X.Y and holds for every later branch.
since=()
if [ -n "$kbranch" ]; then
	while IFS= read -r f; do
		v=${f#since-}
		kernel_since "$v" && since+=("$f")
	done < <(for f in "$guest"/expect/since-*; do
		[ -f "$f" ] && echo "${f##*/}"
	done | sort -t- -k2,2V)
fi
# A file that holds only where the kernel has a feature says so with
# "requires CONFIG_X" lines: it is used when the build's .config sets each
# to y (since-5.19's stack-depth check needs the arch's stack pointer).
requires_met() {
	local sym
	while read -r sym; do
		[ -f "$kbuild/.config" ] ||
			die "${1##*/} requires $sym, but $kbuild has no .config to tell"
		grep -qx "$sym=y" "$kbuild/.config" || return 1
	done < <(sed -n 's/^requires[[:space:]]\{1,\}//p' "$1")
}
# ARCH_EXPECT's NAME@X.Y: the file holds from kernel X.Y on.
arch_expect=()
for f in $ARCH_EXPECT; do
	case "$f" in
	*@*)
		[ -n "$kbranch" ] || die "$f holds from ${f#*@} on, but $kbuild has no kernel.release to tell"
		kernel_since "${f#*@}" || continue
		f=${f%@*} ;;
	esac
	arch_expect+=("$f")
done
expect_files=("$guest/expect/default")
for f in ${arch_expect[@]+"${arch_expect[@]}"} ${since[@]+"${since[@]}"} ${kbranch:+"branch-$kbranch" "branch-$kbranch-$arch"}; do
	[ -f "$guest/expect/$f" ] || case "$f" in branch-*) continue ;; esac
	requires_met "$guest/expect/$f" || continue
	expect_files+=("$guest/expect/$f")
done
for f in ${expects[@]+"${expects[@]}"}; do
	requires_met "$f" && expect_files+=("$f")
done

# --- expectations, checked before anything is built ------------------------
# Expectation tables, merged: "case<TAB>hardened<TAB>not hardened<TAB>note".
merge_expectations() {
	awk -F'|' '
	function trim(s) {
		gsub(/^[ \t]+|[ \t]+$/, "", s)
		gsub(/[ \t]+/, " ", s)
		return s
	}
	/^requires[ \t]/ { next }
	{
		line = $0
		note = ""
		i = index(line, "#")
		if (i) {
			note = trim(substr(line, i + 1))
			line = substr(line, 1, i - 1)
		}
		if (trim(line) == "")
			next
		n = split(line, f, "|")
		if (n != 3) {
			printf "%s:%d: expected CASE | HARDENED | NOT HARDENED\n", \
				FILENAME, FNR > "/dev/stderr"
			bad = 1
			next
		}
		c = trim(f[1])
		if (!(c in h)) {
			order[++count] = c
			h[c] = ""; u[c] = ""
		}
		v = trim(f[2]); if (v != "=") h[c] = v
		v = trim(f[3]); if (v != "=") u[c] = v
		if (note != "") notes[c] = note
	}
	END {
		for (k = 1; k <= count; k++) {
			c = order[k]
			printf "%s\t%s\t%s\t%s\n", c, h[c], u[c], notes[c]
		}
		exit bad
	}' "$@"
}

expect_tsv=$(merge_expectations "${expect_files[@]}") || die "bad expectation file"
if [ "$print_expect" = 1 ]; then
	echo "# expectations: $(printf '%s ' "${expect_files[@]##*/}")"
	printf '%s\n' "$expect_tsv"
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
printf '%s\n' "$expect_tsv" >"$work/expect.tsv"
log "expectations: $(printf '%s ' "${expect_files[@]##*/}")"

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

# --- initramfs, without root: gen_init_cpio writes device nodes itself --------
gen=
if [ -x "$kbuild/usr/gen_init_cpio" ]; then
	gen="$kbuild/usr/gen_init_cpio"
else
	for src in "$kbuild/source/usr/gen_init_cpio.c" "$kbuild/usr/gen_init_cpio.c"; do
		if [ -f "$src" ]; then
			gcc -O2 -o "$work/gen_init_cpio" "$src" ||
				die "cannot build $src"
			gen="$work/gen_init_cpio"
			break
		fi
	done
fi
[ -n "$gen" ] || die "no usr/gen_init_cpio in $kbuild and no source to build it from"

{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "dir /proc 0755 0 0"
	echo "dir /sys 0755 0 0"
	echo "dir /tmp 1777 0 0"
	echo "dir /bin 0755 0 0"
	echo "file /init $work/init 0755 0 0"
	echo "file /uc_selftest.ko $work/mod/uc_selftest.ko 0644 0 0"
	if [ -n "$use_busybox" ]; then
		echo "file /bin/busybox $use_busybox 0755 0 0"
	fi
} >"$work/initramfs.list"
"$gen" "$work/initramfs.list" | gzip -9 >"$work/initramfs.cpio.gz"

# --- boot ---------------------------------------------------------------------
log "booting $image on $qemu (TCG, timeout ${timeout}s, hardened=$hardened)"
: >"$work/ktap.out"
qemu_cmd=("$qemu" -accel tcg "${qemu_machine[@]}" -smp 1 -nographic -no-reboot
	-kernel "$image" -initrd "$work/initramfs.cpio.gz"
	-append "${console_args}panic=-1 $append" -serial mon:stdio)
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
# Some guests cannot power off (arm64 before 3.12 halts in a loop): once the
# suite's end marker (or its Bail out!) is out, QEMU gets a grace period,
# then is stopped.
done_at=0 stopped=0
while kill -0 "$qemu_pid" 2>/dev/null; do
	if [ "$done_at" = 0 ] && grep -qaE 'UC-SUITE-DONE|^Bail out!' "$work/ktap.out" "$out/console.log"; then
		done_at=$(date +%s)
	fi
	if [ "$done_at" != 0 ] && [ $(($(date +%s) - done_at)) -ge 15 ]; then
		log "the guest did not power off 15 s after the suite ended: stopping QEMU"
		kill "$qemu_pid" 2>/dev/null || true
		stopped=1
		break
	fi
	sleep 1
done
wait "$qemu_pid" || qemu_rc=$?
[ "$stopped" = 0 ] || qemu_rc=0
log "qemu exited with $qemu_rc after $(($(date +%s) - start))s"

# The guest's report: from its own serial port, else from the console.  Only
# KTAP lines are kept, from the header on: a console also carries the kernel's.
extract_ktap() {
	tr -d '\r' <"$1" |
		sed -n '/^KTAP version 1/,$p' |
		grep -E '^(KTAP version|[0-9]+\.\.[0-9]+|ok |not ok |# |Bail out!)' || true
}

extract_ktap "$work/ktap.out" >"$out/result.ktap"
if ! grep -q '^# UC-SUITE-DONE' "$out/result.ktap"; then
	extract_ktap "$out/console.log" >"$work/console.ktap"
	if grep -q '^# UC-SUITE-DONE' "$work/console.ktap"; then
		log "no report on the second serial port, using the console's"
		cp "$work/console.ktap" "$out/result.ktap"
	fi
fi

# --- verdicts -----------------------------------------------------------------
# Observations: "case<TAB>observation" from "# obs: CASE OBSERVATION".
sed -n 's/^# obs: \([^ ]*\) \(.*\)$/\1\t\2/p' "$out/result.ktap" |
	sed 's/[ \t]*$//' >"$work/obs.tsv"

done_ok=0
grep -q '^# UC-SUITE-DONE' "$out/result.ktap" && done_ok=1

# Where a guest that never finished stopped: its console's last line.
last_line=$(tr -d '\r' <"$out/console.log" 2>/dev/null |
	sed 's/qemu-system-[a-z0-9_]*: .*$//; s/[[:space:]]\+/ /g; s/^ //; s/ $//' | grep . | tail -n 1 | cut -c1-60 | tr -d '"\134' || true)

awk -F'\t' -v col="$column" -v done_ok="$done_ok" -v qemu_rc="$qemu_rc" \
	-v arch="$arch" -v hardened="$hardened" -v last_line="$last_line" '
	FILENAME == ARGV[1] {
		if (!($1 in obs))
			obs[$1] = $2
		if (!($1 in seen_order)) {
			seen_order[$1] = ++nseen
			seen[nseen] = $1
		}
		next
	}
	{
		cases[++n] = $1
		want[$1] = $col
		note[$1] = $4
		known[$1] = 1
	}
	END {
		extra = 0
		for (k = 1; k <= nseen; k++)
			if (!(seen[k] in known))
				extra++
		total = n + extra + 1
		print "KTAP version 1"
		printf "# uc_selftest on %s, hardened=%s\n", arch, hardened
		printf "1..%d\n", total
		failed = 0
		t = 1
		if (done_ok) {
			printf "ok %d guest_suite_completed\n", t
		} else {
			reason = qemu_rc == 124 ? "timed out" : "qemu exited with " qemu_rc
			if (last_line != "")
				reason = reason ", console ended: \"" last_line "\""
			printf "not ok %d guest_suite_completed # no UC-SUITE-DONE marker (%s)\n", t, reason
			failed++
		}
		for (k = 1; k <= n; k++) {
			c = cases[k]
			t++
			if (want[c] == "skip") {
				printf "ok %d %s # SKIP %s\n", t, c, note[c]
				continue
			}
			if (!(c in obs)) {
				printf "not ok %d %s # expected \"%s\", not observed\n", t, c, want[c]
				failed++
				continue
			}
			if (obs[c] == want[c]) {
				printf "ok %d %s # %s\n", t, c, obs[c]
			} else {
				printf "not ok %d %s # expected \"%s\", observed \"%s\"\n", t, c, want[c], obs[c]
				failed++
			}
		}
		for (k = 1; k <= nseen; k++) {
			c = seen[k]
			if (c in known)
				continue
			t++
			printf "not ok %d %s # no expectation, observed \"%s\"\n", t, c, obs[c]
			failed++
		}
		printf "# %d of %d failed\n", failed, total
		exit failed ? 1 : 0
	}' "$work/obs.tsv" "$work/expect.tsv" >"$out/verdicts.ktap" && verdict=0 || verdict=$?

cat "$out/verdicts.ktap"
if [ "$done_ok" != 1 ]; then
	echo "# boot.sh: the guest did not finish; last console lines:"
	tail -n 40 "$out/console.log" | tr -d '\r' | sed 's/^/#   /'
fi
[ "$verdict" = 0 ] && [ "$done_ok" = 1 ] || exit 1
exit 0
