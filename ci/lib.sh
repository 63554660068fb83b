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
#                     (uckit/arch.py documents each); an unknown or
#                     unbuildable arch prints why and returns 1
#   require_packaged ARCH   returns 1, saying which arches are, unless ARCH
#                     is packaged as .deb/.rpm (packaged = yes)
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
		ARCH_DEBARCH ARCH_RPMARCH
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
