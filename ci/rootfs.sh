#!/bin/bash
# The soak's root filesystem: a Debian 12 (bookworm) image built with
# mmdebstrap from Debian's archive, ext4, cached.
#
#   ci/rootfs.sh ARCH      prints the image's path (building it if needed)
#
# The image holds what the soak runs (tests/soak/packages: stress-ng, git,
# gcc, python3, iproute2, ...), a local apt repository (/srv/uc-repo, a
# few small packages that are not installed, for apt-get install and
# remove with no network) and /sbin/uc-soak-init (tests/soak/stub-init):
# mount the basics, mount the soak's payload disk (the second virtio disk)
# on /uc and run /uc/soak.sh from it.  So the image does not change when
# the workload does; it is keyed by the hash of the package
# list, the stub and the format below, and QEMU only ever opens it with
# snapshot=on.
#
# ext4 without metadata_csum, 64bit and orphan_file: 3.2 mounts it.
# Built in a temporary directory next to the image and renamed into
# place: an interrupted build leaves nothing behind that a later run
# would take for an image.  Two runs for one arch: one builds, one waits.
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:?usage: ci/rootfs.sh ARCH}
die() { echo "rootfs: error: $*" >&2; exit 1; }

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
arch_setup "$arch" || exit 1
[ -n "$ARCH_DEBARCH" ] || die "ARCH=$arch has no Debian architecture"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found: apt-get install mmdebstrap"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 not found: apt-get install e2fsprogs"
command -v dpkg-scanpackages >/dev/null || die "dpkg-scanpackages not found: apt-get install dpkg-dev"
# mmdebstrap runs the image's maintainer scripts: the host must run the
# arch's programs, natively or through qemu-user (binfmt_misc).  A static
# program from the arch's compiler says whether it can.
probe=$(mktemp)
if ! printf 'int main(void) { return 0; }\n' |
	"${CROSS_COMPILE}gcc" -static -x c -o "$probe" - 2>/dev/null; then
	rm -f "$probe"
	die "${CROSS_COMPILE}gcc cannot build a static program: apt-get install $ARCH_GCC_PKG"
fi
if ! "$probe" 2>/dev/null; then
	rm -f "$probe"
	die "this host cannot run $ARCH_DEBARCH programs, which mmdebstrap needs: apt-get install qemu-user-static binfmt-support (where binfmt_misc is not mounted: mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable; i386 on an x86_64 kernel without IA32 emulation: register qemu-i386-static by hand, docs/testing.md)"
fi
rm -f "$probe"

soak="$top/tests/soak"
mapfile -t pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$soak/packages")
mapfile -t repo_pkgs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$soak/repo-packages")
# The image's identity: what goes into it, and the version of how it is
# made (raise it when a step below changes the result).
format=1
hash=$( (echo "format $format"; cat "$soak/packages" "$soak/repo-packages" "$soak/stub-init") |
	sha256sum | cut -c1-8)
dir="$cache/rootfs"
img="$dir/debian-12-$ARCH_DEBARCH-$hash.img"
mkdir -p "$dir"
exec 9>"$dir/$ARCH_DEBARCH.lock"
flock 9
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

tmp=$(mktemp -d "$dir/.build-$ARCH_DEBARCH.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "rootfs: building the Debian 12 $ARCH_DEBARCH image (${#pkgs[@]} packages)" >&2
# The local repository's packages are only downloaded (apt-get download
# runs in the new root, with its own sources).
incl=$(IFS=,; echo "${pkgs[*]}")
# shellcheck disable=SC2016 # the hooks' $1 is mmdebstrap's, not ours
mmdebstrap --quiet --variant=apt --architectures="$ARCH_DEBARCH" \
	--include="$incl" \
	--customize-hook='mkdir -p "$1/srv/uc-repo"' \
	--customize-hook="chroot \"\$1\" sh -c 'cd /srv/uc-repo && apt-get download ${repo_pkgs[*]}'" \
	--customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
	bookworm "$tmp/root" http://deb.debian.org/debian >"$tmp/mmdebstrap.log" 2>&1 || {
	tail -n 20 "$tmp/mmdebstrap.log" >&2
	die "mmdebstrap failed (Debian's archive unreachable, or a package in tests/soak/packages missing)"
}
(cd "$tmp/root/srv/uc-repo" && dpkg-scanpackages --multiversion . /dev/null >Packages 2>/dev/null)
[ -s "$tmp/root/srv/uc-repo/Packages" ] || die "the local repository has no packages"
echo "deb [trusted=yes] file:/srv/uc-repo ./" >"$tmp/root/etc/apt/sources.list"
rm -f "$tmp/root/etc/apt/sources.list.d/"*
install -m 0755 "$soak/stub-init" "$tmp/root/sbin/uc-soak-init"
mkdir -p "$tmp/root/uc"
echo "uc-soak" >"$tmp/root/etc/hostname"
# Size: what is there plus room for the workload (git, gcc, apt).
used=$(du -sm "$tmp/root" | cut -f1)
truncate -s "$((used + 1536))M" "$tmp/image"
mkfs.ext4 -q -L uc-root -O ^metadata_csum,^64bit,^orphan_file,^metadata_csum_seed \
	-d "$tmp/root" "$tmp/image" || die "mkfs.ext4 failed (disk full?)"
mv "$tmp/image" "$img"
# Images of this arch from older inputs are stale.
find "$dir" -maxdepth 1 -name "debian-12-$ARCH_DEBARCH-*.img" ! -name "${img##*/}" -delete
echo "rootfs: $img ($((used + 1536)) MiB, ${used} MiB used)" >&2
echo "$img"
