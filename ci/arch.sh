# shellcheck shell=bash
# Per-architecture facts for building and booting: one table, sourced by
# the build and boot scripts.  arch_setup ARCH sets:
#   KARCH          the kernel's ARCH=
#   CROSS_COMPILE  toolchain prefix ("" for the host)
#   ARCH_GCC_PKG   the Debian package with that gcc
#   ARCH_IMAGE     the boot image, relative to the build dir
#   ARCH_TARGETS   make targets for the boot test
#   ARCH_KCFLAGS   extra KCFLAGS for kernel and modules ("" for none)
arch_setup() {
	case "$1" in
	x86_64)
		KARCH=x86_64 CROSS_COMPILE="" ARCH_GCC_PKG=gcc
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules" ;;
	i386)
		KARCH=i386 CROSS_COMPILE=i686-linux-gnu- ARCH_GCC_PKG=gcc-i686-linux-gnu
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules" ;;
	arm64)
		# 4.x's module loader mishandles the PREL32 relocations that
		# unwind tables add (build-notes): build without them.
		KARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- ARCH_GCC_PKG=gcc-aarch64-linux-gnu
		ARCH_IMAGE=arch/arm64/boot/Image ARCH_TARGETS="Image modules"
		export KARCH CROSS_COMPILE ARCH_GCC_PKG ARCH_IMAGE ARCH_TARGETS
		ARCH_KCFLAGS="-fno-asynchronous-unwind-tables -fno-unwind-tables"
		export ARCH_KCFLAGS
		return 0 ;;
	"")
		echo "error: ARCH is empty (supported: x86_64 i386 arm64)" >&2; return 1 ;;
	*)
		echo "error: unsupported ARCH=$1 (supported: x86_64 i386 arm64)" >&2; return 1 ;;
	esac
	ARCH_KCFLAGS=""
	export KARCH CROSS_COMPILE ARCH_GCC_PKG ARCH_IMAGE ARCH_TARGETS ARCH_KCFLAGS
}
