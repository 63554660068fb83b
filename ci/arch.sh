# shellcheck shell=bash
# Per-architecture facts for building and booting: one table, sourced by
# the build, boot and packaging scripts.  Facts come from measured runs
# (see the README's matrix); the QEMU lines are those that booted.
#
# arch_setup ARCH sets and exports:
#   KARCH             the kernel's ARCH=
#   ARCH_SRCARCH      the directory under arch/ (for Kconfig probes)
#   CROSS_COMPILE     toolchain prefix ("" for the host)
#   ARCH_GCC_PKG      Debian packages with that gcc and its static libc
#   ARCH_IMAGE        the boot image, relative to the build dir
#   ARCH_TARGETS      make targets for the boot test
#   ARCH_KCFLAGS      extra KCFLAGS for kernel and modules ("" for none)
#   ARCH_FRAGMENTS    ci/configs/NAME.config fragments, after base.config
#   ARCH_QEMU         the QEMU binary, ARCH_QEMU_PKG its Debian package
#   ARCH_QEMU_MACHINE machine, CPU and memory arguments
#   ARCH_CONSOLE      the kernel console device(s), the last preferred
#   ARCH_SERIAL2      1 if the machine takes a second -serial for the report
#   ARCH_EXPECT       tests/guest/expect/NAME files for intended differences;
#                     NAME@X.Y: only for kernels X.Y and later
#   ARCH_NEEDS        "SYMBOL=what it is" words: Kconfig symbols a tree must
#                     define under arch/ (or, with a "/", files it must
#                     have) for the boot target to exist at all (a tree
#                     without one is an n/a cell, not a failure)
UC_ARCHES="x86_64 i386 arm64 arm ppc64le ppc64 s390x sparc64"

arch_setup() {
	ARCH_KCFLAGS=""
	ARCH_SERIAL2=1
	ARCH_EXPECT=""
	ARCH_NEEDS=""
	case "$1" in
	x86_64)
		KARCH=x86_64 ARCH_SRCARCH=x86 CROSS_COMPILE=""
		ARCH_GCC_PKG=gcc
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules"
		ARCH_FRAGMENTS="x86_64"
		ARCH_QEMU=qemu-system-x86_64 ARCH_QEMU_PKG=qemu-system-x86
		ARCH_QEMU_MACHINE="-M pc -m 256" ARCH_CONSOLE=ttyS0 ;;
	i386)
		# i386 also checks constant sizes where copy_to_user() stays
		# out of line (expect/const-size-out-of-line).
		KARCH=i386 ARCH_SRCARCH=x86 CROSS_COMPILE=i686-linux-gnu-
		ARCH_GCC_PKG="gcc-i686-linux-gnu libc6-dev-i386-cross"
		ARCH_IMAGE=arch/x86/boot/bzImage ARCH_TARGETS="bzImage modules"
		ARCH_FRAGMENTS="i386"
		ARCH_QEMU=qemu-system-i386 ARCH_QEMU_PKG=qemu-system-x86
		ARCH_QEMU_MACHINE="-M pc -m 256" ARCH_CONSOLE=ttyS0
		ARCH_EXPECT="const-size-out-of-line" ;;
	arm64)
		# 4.x's module loader mishandles the PREL32 relocations that
		# unwind tables add (build-notes): build without them.
		KARCH=arm64 ARCH_SRCARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
		ARCH_GCC_PKG="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
		ARCH_IMAGE=arch/arm64/boot/Image ARCH_TARGETS="Image modules"
		ARCH_KCFLAGS="-fno-asynchronous-unwind-tables -fno-unwind-tables"
		ARCH_FRAGMENTS="arm64"
		ARCH_QEMU=qemu-system-aarch64 ARCH_QEMU_PKG=qemu-system-arm
		# dtb-randomness=off: QEMU 7.2 puts rng-seed into /chosen and
		# 4.19.255 then nops that property in the FDT, which arm64
		# maps read-only: an oops before the console (fixed upstream
		# by mapping it writable, not in 4.19.255).  Same DT for all.
		ARCH_QEMU_MACHINE="-M virt,dtb-randomness=off -cpu cortex-a57 -m 512"
		ARCH_CONSOLE=ttyAMA0
		ARCH_EXPECT="no-frame-walker kernel-fault-oopses" ;;
	arm)
		# The soft-float toolchain: armhf's gcc rejects -march=armv7-a
		# in the kernel's cc-option probes (build-notes).
		KARCH=arm ARCH_SRCARCH=arm CROSS_COMPILE=arm-linux-gnueabi-
		ARCH_GCC_PKG="gcc-arm-linux-gnueabi libc6-dev-armel-cross"
		ARCH_IMAGE=arch/arm/boot/zImage ARCH_TARGETS="zImage modules"
		ARCH_FRAGMENTS="arm"
		ARCH_QEMU=qemu-system-arm ARCH_QEMU_PKG=qemu-system-arm
		ARCH_QEMU_MACHINE="-M virt,dtb-randomness=off -cpu cortex-a15 -m 256"
		ARCH_NEEDS="ARCH_VIRT=QEMU's_virt_board_(3.9+)"
		ARCH_CONSOLE=ttyAMA0
		ARCH_EXPECT="no-frame-walker kernel-fault-oopses" ;;
	ppc64le|ppc64)
		# gcc 11/12 clone call_prom_ret() into an empty constprop copy
		# in prom_init.c and the boot hangs: no IPA constant
		# propagation (build-notes).
		if [ "$1" = ppc64le ]; then
			ARCH_NEEDS="CPU_LITTLE_ENDIAN=little-endian_ppc64_(3.13+)"
			CROSS_COMPILE=powerpc64le-linux-gnu-
			ARCH_GCC_PKG="gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross"
		else
			CROSS_COMPILE=powerpc64-linux-gnu-
			ARCH_GCC_PKG="gcc-powerpc64-linux-gnu libc6-dev-ppc64-cross"
		fi
		KARCH=powerpc ARCH_SRCARCH=powerpc
		ARCH_IMAGE=vmlinux ARCH_TARGETS="vmlinux modules"
		# drivers/misc/cxl builds with -Werror, and 4.4.178's
		# module_init() alias lacks __copy: gcc 9+'s
		# missing-attributes warning stopped the build (a diagnostic
		# only: the code is the same).
		ARCH_KCFLAGS="-fno-ipa-cp -Wno-error=missing-attributes"
		ARCH_FRAGMENTS="powerpc64 $1"
		ARCH_QEMU=qemu-system-ppc64 ARCH_QEMU_PKG=qemu-system-ppc
		ARCH_QEMU_MACHINE="-M pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off -cpu POWER8 -m 1024"
		ARCH_CONSOLE=hvc0
		ARCH_EXPECT="no-frame-walker const-size-out-of-line" ;;
	s390x)
		# The SCLP console is the only terminal: the report comes
		# from the console.
		KARCH=s390 ARCH_SRCARCH=s390 CROSS_COMPILE=s390x-linux-gnu-
		ARCH_GCC_PKG="gcc-s390x-linux-gnu libc6-dev-s390x-cross"
		ARCH_IMAGE=arch/s390/boot/bzImage ARCH_TARGETS="bzImage modules"
		ARCH_FRAGMENTS="s390x"
		ARCH_QEMU=qemu-system-s390x ARCH_QEMU_PKG=qemu-system-misc
		ARCH_QEMU_MACHINE="-M s390-ccw-virtio -cpu qemu -m 512"
		# The VT220 console registers as ttyS1 (its tty is
		# ttysclp0); 3.10.108 and later also take console=ttysclp0,
		# 3.4.113 printed nothing with it.
		ARCH_CONSOLE="ttyS1 ttysclp0" ARCH_SERIAL2=0
		# Before 3.15 the copy routines are inline (asm/uaccess.h):
		# a constant size stays constant, as on x86.
		ARCH_EXPECT="no-frame-walker const-size-out-of-line@3.15" ;;
	sparc64)
		# arch/sparc builds with -Werror; gcc 12 adds warnings 3.x/4.x
		# never saw (build-notes; attributes and format-overflow: 3.16's
		# log2.h noreturn+const and traps_64.c).
		KARCH=sparc64 ARCH_SRCARCH=sparc CROSS_COMPILE=sparc64-linux-gnu-
		ARCH_GCC_PKG="gcc-sparc64-linux-gnu libc6-dev-sparc64-cross"
		ARCH_IMAGE=vmlinux ARCH_TARGETS="vmlinux modules"
		ARCH_KCFLAGS="-Wno-error=stringop-overread -Wno-error=array-bounds -Wno-error=attributes -Wno-error=format-overflow"
		ARCH_FRAGMENTS="sparc64"
		ARCH_QEMU=qemu-system-sparc64 ARCH_QEMU_PKG=qemu-system-sparc
		ARCH_QEMU_MACHINE="-M sun4u -m 512"
		ARCH_CONSOLE=ttyS0
		ARCH_EXPECT="no-frame-walker kernel-fault-oopses" ;;
	"")
		echo "error: ARCH is empty (supported: $UC_ARCHES)" >&2; return 1 ;;
	ia64)
		echo "error: ARCH=ia64 is wired and audited (make audit) but cannot be built or booted here: Debian 12 has no ia64 cross compiler and QEMU no ia64 machine (supported: $UC_ARCHES)" >&2
		return 1 ;;
	*)
		echo "error: unsupported ARCH=$1 (supported: $UC_ARCHES)" >&2; return 1 ;;
	esac
	export KARCH ARCH_SRCARCH CROSS_COMPILE ARCH_GCC_PKG ARCH_IMAGE \
		ARCH_TARGETS ARCH_KCFLAGS ARCH_FRAGMENTS ARCH_QEMU ARCH_QEMU_PKG \
		ARCH_QEMU_MACHINE ARCH_CONSOLE ARCH_SERIAL2 ARCH_EXPECT ARCH_NEEDS
}
