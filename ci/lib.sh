# shellcheck shell=bash
# Sourced by the scripts of ci/ and tests/: the toolkit as a command, the
# kernel cache and the per-arch facts, all from the uckit package (the
# facts themselves are uckit/arches/NAME.ini).
#
#   uckit VERB ...    python3 -m uckit VERB ... from any directory
#   $cache            the kernel cache (uckit/cache.py says what is in it)
#   $uc_arches        the arches that build and boot, in table order
#   arch_setup ARCH   sets and exports KARCH ARCH_SRCARCH CROSS_COMPILE
#                     ARCH_GCC_PKG ARCH_IMAGE ARCH_TARGETS ARCH_KCFLAGS
#                     ARCH_FRAGMENTS ARCH_QEMU ARCH_QEMU_PKG
#                     ARCH_QEMU_MACHINE ARCH_CONSOLE ARCH_SERIAL2
#                     ARCH_EXPECT ARCH_NEEDS ARCH_DEBARCH ARCH_RPMARCH
#                     ARCH_SOAK ARCH_SOAK_QEMU ARCH_SOAK_DISK
#                     ARCH_SOAK_COMPAT ARCH_SOAK_DISKS
#                     (uckit/arch.py documents each); an unknown or
#                     unbuildable arch prints why and returns 1
#   require_packaged ARCH   returns 1, saying which arches are, unless ARCH
#                     is packaged as .deb/.rpm (packaged = yes)
#   kernel_info KERNEL   sets tree, version, state (none: a pristine tree
#                     to harden; backport; native) and key (the pristine
#                     tree's cache key, uckit/cache.py) from uckit info
#   source_to_build TREE STATE KEY   sets src (the tree to build) and label
#                     (backport, native) for a tree uckit info described;
#                     returns 1 with apply_reason set when the apply failed,
#                     2 (saying why) for a partially hardened tree
uc_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
uckit() {
	PYTHONPATH="$uc_top${PYTHONPATH:+:$PYTHONPATH}" python3 -m uckit "$@"
}
# shellcheck disable=SC2034 # used by the scripts that source this
cache=$(uckit cache)
# shellcheck disable=SC2034 # used by the scripts that source this
uc_arches=$(uckit arch --list)

arch_setup() {
	local facts
	facts=$(uckit arch "$1") || return 1
	eval "$facts"
	export KARCH ARCH_SRCARCH CROSS_COMPILE ARCH_GCC_PKG ARCH_IMAGE \
		ARCH_TARGETS ARCH_KCFLAGS ARCH_FRAGMENTS ARCH_QEMU ARCH_QEMU_PKG \
		ARCH_QEMU_MACHINE ARCH_CONSOLE ARCH_SERIAL2 ARCH_EXPECT ARCH_NEEDS \
		ARCH_DEBARCH ARCH_RPMARCH ARCH_SOAK ARCH_SOAK_QEMU ARCH_SOAK_DISK \
		ARCH_SOAK_COMPAT ARCH_SOAK_DISKS
}

require_packaged() {
	local packaged
	packaged=$(uckit arch --list --packaged)
	case " $packaged " in
	*" $1 "*) return 0 ;;
	esac
	echo "ARCH=$1 is not packaged (packaged arches: $packaged)" >&2
	return 1
}

# The hardened copy of a pristine tree ($cache/work/KEY) is stale when the
# series changed (its fingerprint) or anything in the tree changed after
# it was applied (uckit copy-stale, the rule the plan's estimate uses).
# Hardened and native trees are built as they are.
source_to_build() {
	local tree=$1 state=$2 key=$3 fp
	apply_reason=
	case "$state" in
	none)
		# One hardened copy per pristine tree, at a stable path: when
		# the series changes it is re-applied in place, so the
		# out-of-tree build and ccache see the same paths and only
		# rebuild what really changed.
		src="$cache/work/$key"
		mkdir -p "$cache/work"
		fp=$(uckit info --kernel "$tree" | sed -n 's/^fingerprint=//p')
		# Two cells of one tree may start together: one applies, one
		# waits.
		exec 9>"$src.lock"
		flock 9
		if uckit copy-stale --kernel "$tree"; then
			rm -rf "$src.new"
			if ! uckit apply --kernel "$tree" --out "$src.new" 2>&1 |
				tee "$cache/work/$key.apply.log"; then
				apply_reason=$(grep -m1 -E 'error|fail|UNWIRED|MISSING' "$cache/work/$key.apply.log" || true)
				apply_reason=${apply_reason:-see $key.apply.log}
				exec 9>&-
				return 1
			fi
			if [ -d "$src" ] && command -v rsync >/dev/null; then
				# Only files whose content changed get a new
				# mtime: a change to mm/usercopy.c rebuilds that
				# file, not everything that includes a
				# re-patched header.
				rm -f "$src.applied"
				rsync -rlD --checksum --delete "$src.new/" "$src/"
				rm -rf "$src.new"
			else
				rm -rf "$src" "$src.applied"
				mv "$src.new" "$src"
			fi
			echo "$fp" >"$src.applied"
		fi
		exec 9>&-
		# shellcheck disable=SC2034 # for the scripts that call this
		label=backport
		;;
	native|backport)
		src=$tree
		# shellcheck disable=SC2034 # for the scripts that call this
		label=$state
		;;
	*)
		echo "tree $tree is partially hardened (dirty): start from a pristine tree" >&2
		return 2 ;;
	esac
}

# shellcheck disable=SC2034 # tree version state key: for the callers
kernel_info() {
	local info
	info=$(uckit info --kernel "$1") || return 1
	tree=$(sed -n 's/^tree=//p' <<<"$info")
	version=$(sed -n 's/^version=//p' <<<"$info")
	state=$(sed -n 's/^state=//p' <<<"$info")
	key=$(sed -n 's/^key=//p' <<<"$info")
}
