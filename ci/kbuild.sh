#!/bin/bash
# Configure and build a kernel out of tree for the boot test.
#
#   ci/kbuild.sh --src TREE --build DIR --arch ARCH --alloc slub|slab \
#                --hardened y|n [--fragment FILE ...]
#
# Config: tinyconfig (allnoconfig where a tree has no tinyconfig), then the
# fragments from ci/configs/ (base, arch, allocator, hardening, extra ones),
# then olddefconfig.  Every symbol a fragment sets that the tree's Kconfig
# defines must come out as asked: Kconfig dropping one silently is an error.
# The source tree is never written to (O= build).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src="" build="" arch="" alloc="" hardened=""
extra=()

die() { echo "kbuild: error: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case "$1" in
	--src) src=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--alloc) alloc=$2; shift 2 ;;
	--hardened) hardened=$2; shift 2 ;;
	--fragment) extra+=("$2"); shift 2 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -f "$src/Makefile" ] || die "--src $src is not a kernel tree"
[ -n "$build" ] || die "--build DIR is required"
case "$alloc" in slub|slab) ;; *) die "ALLOC must be slub or slab, not '$alloc'" ;; esac
case "$hardened" in y|n) ;; *) die "HARDENED must be y or n, not '$hardened'" ;; esac

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
# shellcheck source=ci/kconfig-check.sh
. "$top/ci/kconfig-check.sh"
arch_setup "$arch" || exit 1

mkdir -p "$build"
build=$(cd "$build" && pwd)
cc="$CROSS_COMPILE"gcc
command -v "$cc" >/dev/null || die "$cc not found: apt-get install $ARCH_GCC_PKG"
cc="ccache $cc"
command -v ccache >/dev/null || { cc="${CROSS_COMPILE}gcc"; echo "kbuild: ccache not installed (apt-get install ccache): building without it" >&2; }

# Variables given to our own make (KERNEL=, ARCH=, OUT=...) must not leak
# into the kernel's make through MAKEFLAGS.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
kmake() {
	make -s -C "$src" O="$build" ARCH="$KARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="$cc" HOSTCC=gcc KBUILD_BUILD_USER=uc KBUILD_BUILD_HOST=usercopy-backports \
		KBUILD_BUILD_TIMESTAMP="$(date -u -d @0)" \
		${ARCH_KCFLAGS:+KCFLAGS="$ARCH_KCFLAGS"} "$@"
}

frags=("$top/ci/configs/base.config")
for f in $ARCH_FRAGMENTS; do
	frags+=("$top/ci/configs/$f.config")
done
frags+=("$top/ci/configs/$alloc.config")
if [ "$hardened" = y ]; then
	frags+=("$top/ci/configs/hardened.config")
else
	frags+=("$top/ci/configs/nohardened.config")
fi
frags+=(${extra[@]+"${extra[@]}"})
for f in "${frags[@]}"; do
	[ -f "$f" ] || die "config fragment $f is missing"
done

if grep -q '^tinyconfig:' "$src/scripts/kconfig/Makefile"; then
	kmake tinyconfig >/dev/null
else
	kmake allnoconfig >/dev/null
fi
cat "${frags[@]}" > "$build/uc-fragments.config"
# merge_config.sh -m merges without running Kconfig; olddefconfig then
# resolves dependencies (oldnoconfig in trees that predate olddefconfig).
# 3.4's merge_config.sh has no -O and 3.2 has none: merge the same way
# here (a fragment's line for a symbol replaces the base's).
if grep -q -- '"-O")' "$src/scripts/kconfig/merge_config.sh" 2>/dev/null; then
	(cd "$build" && "$src/scripts/kconfig/merge_config.sh" -m -O "$build" \
		"$build/.config" "$build/uc-fragments.config" >/dev/null)
else
	awk 'function sym(l) { sub(/^# /, "", l); sub(/[= ].*/, "", l); return l }
	FNR == NR { if ($0 ~ /^(# )?CONFIG_/) set[sym($0)] = 1; next }
	!(sym($0) in set)' "$build/uc-fragments.config" "$build/.config" \
		> "$build/.config.uc-merged"
	cat "$build/uc-fragments.config" >> "$build/.config.uc-merged"
	mv "$build/.config.uc-merged" "$build/.config"
fi
if grep -q 'olddefconfig' "$src/scripts/kconfig/Makefile"; then
	kmake olddefconfig >/dev/null
else
	kmake oldnoconfig >/dev/null
fi

# Every symbol the fragments ask for and the tree defines must be set so.
kconfig_check "$src" "$ARCH_SRCARCH" "$build/uc-fragments.config" "$build/.config" ||
	die "configuration does not match the fragments (see above)"

start=$(date +%s)
read -r -a targets <<<"$ARCH_TARGETS"
kmake -j"$(nproc)" "${targets[@]}" >"$build/uc-build.log" 2>&1 || {
	tail -n 40 "$build/uc-build.log" >&2
	die "build failed (full log: $build/uc-build.log)"
}
echo "kbuild: built Linux $(kmake -s kernelversion 2>/dev/null) $arch $alloc hardened=$hardened in $(( $(date +%s) - start )) s: $build/$ARCH_IMAGE"
