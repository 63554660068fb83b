#!/bin/bash
# Configure and build a kernel out of tree for the boot test.
#
#   ci/kbuild.sh --src TREE --build DIR --arch ARCH --alloc ALLOC \
#                --hardened y|n [--base tinyconfig|defconfig|FILE]
#                [--fragment FILE ...]
#
# ALLOC is slub, slab or a config profile (uckit/profile.py: a
# ci/configs/NAME.config with a "# profile:" header, built over the
# allocator its "# include:" names).
#
# Config (ci/kconfig.sh, shared with ci/package.sh): the base, tinyconfig
# by default (allnoconfig where a tree has no tinyconfig), the arch's
# defconfig (the soak's distro-class kernel) or a .config file (a
# maintainer's own), then the fragments from
# ci/configs/ (base, arch, allocator, hardening, extra ones), then
# olddefconfig.  Every symbol a fragment sets that the tree's Kconfig
# defines must come out as asked: Kconfig dropping one silently is an error.
# The source tree is never written to (O= build).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src="" build="" arch="" alloc="" hardened="" base=tinyconfig
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
	--base) base=$2; shift 2 ;;
	*) die "unknown argument $1" ;;
	esac
done
[ -f "$src/Makefile" ] || die "--src $src is not a kernel tree"
[ -n "$build" ] || die "--build DIR is required"
case "$hardened" in y|n) ;; *) die "HARDENED must be y or n, not '$hardened'" ;; esac

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
# shellcheck source=ci/kconfig.sh
. "$top/ci/kconfig.sh"
arch_setup "$arch" || exit 1
profile_facts=$(uckit profile "$alloc") || exit 1
eval "$profile_facts"

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
frags+=("$top/ci/configs/$PROFILE_ALLOC.config")
[ -z "$PROFILE_FRAGMENT" ] || frags+=("$PROFILE_FRAGMENT")
if [ "$hardened" = y ]; then
	frags+=("$top/ci/configs/hardened.config")
else
	frags+=("$top/ci/configs/nohardened.config")
fi
frags+=(${extra[@]+"${extra[@]}"})

# The shared configure step (ci/kconfig.sh): tinyconfig, the fragments,
# olddefconfig, and every symbol the fragments ask for and the tree
# defines set so.
case "$base" in
tinyconfig) ;;
defconfig)
	# The arch's defconfig, kept beside the result as the base.
	kmake defconfig >/dev/null || die "make defconfig failed in $src"
	cp "$build/.config" "$build/uc-base.config"
	base="$build/uc-base.config"
	;;
*)
	[ -f "$base" ] || die "--base $base: no such config file"
	base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
	;;
esac
rc=0
kconfig_resolve kmake "$src" "$ARCH_SRCARCH" "$build" "$base" "${frags[@]}" || rc=$?
case "$rc" in
0) ;;
1) die "configuration does not match the fragments (see above)" ;;
*) die "cannot configure $src (see above)" ;;
esac

start=$(date +%s)
read -r -a targets <<<"$ARCH_TARGETS"
if ! kmake -j"$(nproc)" "${targets[@]}" >"$build/uc-build.log" 2>&1; then
	# A vendor tree may force on modules of its own (obj-m in its
	# Makefiles, whatever the config) that do not build here.  The boot
	# test needs the image and what the self-test module builds against,
	# not those: where only the in-tree modules failed, the image and
	# modules_prepare are built again on their own and the build goes on,
	# saying so.  Anything else fails as before.
	image_targets=()
	for t in "${targets[@]}"; do
		[ "$t" = modules ] || image_targets+=("$t")
	done
	first=$(grep -m1 -E '(: (fatal )?error: |: Error: |\*\*\* )' "$build/uc-build.log" || true)
	if [ "${#image_targets[@]}" != "${#targets[@]}" ] &&
		kmake -j"$(nproc)" "${image_targets[@]}" modules_prepare >"$build/uc-build-image.log" 2>&1; then
		echo "kbuild: the tree's own modules do not build (${first:-see $build/uc-build.log}); built ${image_targets[*]} and modules_prepare only" >&2
	else
		tail -n 40 "$build/uc-build.log" >&2
		die "build failed (full log: $build/uc-build.log)"
	fi
fi
echo "kbuild: built Linux $(kmake -s kernelversion 2>/dev/null) $arch $alloc hardened=$hardened in $(( $(date +%s) - start )) s: $build/$ARCH_IMAGE"
