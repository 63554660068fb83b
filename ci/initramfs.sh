#!/bin/bash
# The initramfs of a test guest (boot tests and the bench): /init plus the
# files given, with /dev/console, written by the kernel's own
# gen_init_cpio, so no root is needed.
#
#   ci/initramfs.sh --kbuild DIR --out FILE.cpio.gz --init PROGRAM \
#       [--file /PATH=SOURCE[:MODE]] ...
#
# DIR is the kernel's build directory: its usr/gen_init_cpio, else the
# tree's usr/gen_init_cpio.c built here.  MODE defaults to 0755.
set -eu

die() { echo "initramfs: $*" >&2; exit 2; }

kbuild="" out="" init=""
files=()
while [ $# -gt 0 ]; do
	case "$1" in
	--kbuild) kbuild=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--init) init=${2:?}; shift 2 ;;
	--file) files+=("${2:?}"); shift 2 ;;
	*) die "unknown argument: $1" ;;
	esac
done
[ -d "$kbuild" ] || die "--kbuild $kbuild is not a directory"
[ -n "$out" ] || die "--out FILE is required"
[ -f "$init" ] || die "--init $init is not a file"

work=$(mktemp -d -t uc-initramfs.XXXXXX)
trap 'rm -rf "$work"' EXIT

gen=
if [ -x "$kbuild/usr/gen_init_cpio" ]; then
	gen="$kbuild/usr/gen_init_cpio"
else
	for src in "$kbuild/source/usr/gen_init_cpio.c" "$kbuild/usr/gen_init_cpio.c"; do
		if [ -f "$src" ]; then
			gcc -O2 -o "$work/gen_init_cpio" "$src" || die "cannot build $src"
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
	echo "file /init $init 0755 0 0"
	for f in ${files[@]+"${files[@]}"}; do
		dest=${f%%=*} src=${f#*=} mode=0755
		case "$src" in *:*) mode=${src##*:} src=${src%:*} ;; esac
		[ -f "$src" ] || die "no file $src for $dest"
		echo "file $dest $src $mode 0 0"
	done
} >"$work/list"
"$gen" "$work/list" | gzip -9 >"$out.tmp"
mv "$out.tmp" "$out"
