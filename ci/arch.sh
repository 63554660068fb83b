# shellcheck shell=bash
# Per-architecture facts for building and booting: one table, sourced by
# the build and boot scripts.  arch_setup ARCH sets:
#   KARCH          the kernel's ARCH=
#   CROSS_COMPILE  toolchain prefix ("" for the host)
#   ARCH_GCC_PKG   the Debian package with that gcc
#   ARCH_IMAGE     the boot image, relative to the build dir
#   ARCH_TARGETS   make targets for the boot test
arch_setup() {
	case "$1" in
	x86_64)
		KARCH=x86_64 CROSS_COMPILE="" ARCH_GCC_PKG=gcc
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules" ;;
	i386)
		KARCH=i386 CROSS_COMPILE=i686-linux-gnu- ARCH_GCC_PKG=gcc-i686-linux-gnu
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules" ;;
	"")
		echo "error: ARCH is empty (supported: x86_64 i386)" >&2; return 1 ;;
	*)
		echo "error: unsupported ARCH=$1 (supported: x86_64 i386)" >&2; return 1 ;;
	esac
	ARCH_MAKE_FLAGS=""
	export KARCH CROSS_COMPILE ARCH_GCC_PKG ARCH_IMAGE ARCH_TARGETS ARCH_MAKE_FLAGS
}
