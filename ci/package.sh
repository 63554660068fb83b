#!/bin/bash
# Build distro packages of a hardened kernel: a Debian source package and
# its .deb, or an SRPM and its .rpm.
#
#   ci/package.sh [--config-only] KERNEL ARCH FORMAT OUT [CONFIG]
#
# KERNEL  as everywhere (4.4.220, 4.4, a tree, a tarball, debian)
# ARCH    an arch whose uckit/arches/ARCH.ini says packaged = yes (x86_64,
#         arm64); cross-built where the build machine is another arch (no
#         headers package then, its host programs would be the build
#         machine's)
# FORMAT  deb | rpm
# OUT     directory for the results (created; earlier results of the same
#         kernel and format in it are replaced)
# CONFIG  a full .config to start from (a distro config); default: the
#         minimal test config (tinyconfig + ci/configs/ fragments)
# --config-only  stop after resolving and checking the config: it is left
#         in OUT/config-KVER, nothing is packaged
#
# The packages carry the pristine upstream tarball plus the exported quilt
# series (debian/patches, or the series and its patches among the SRPM's
# sources) and the resolved config; the kernel is built from them by
# dpkg-buildpackage or rpmbuild, never by the kernel's own deb-pkg/rpm-pkg
# targets.  The config is made by ci/kconfig.sh's kconfig_resolve (the
# configure step of ci/kbuild.sh too): packaging/config/*.config and
# ci/configs/hardened.config merged over the base, then olddefconfig; a
# symbol the fragments set that comes out otherwise is an error,
# CONFIG_HARDENED_USERCOPY=y above all.  A tree with the feature natively
# (KERNEL=debian) is packaged as it is.  docs/packaging.md has the layout.
#
# Environment: UC_PKG_REVISION (default 1): the package revision N, giving
# version UPSTREAM-1ucN (so N+1 upgrades N); DEBEMAIL/DEBFULLNAME (default:
# the project's address); UC_JOBS (default: nproc).
#
# Results in OUT: the packages (the kernel image package and, in native
# builds, the headers package: linux-headers-KVER / kernel-hardened-devel),
# OUT/package.env (what was built, where the kernel build tree is, for
# tests that build modules against it).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)

die() { echo "package: error: $*" >&2; exit 1; }
log() { echo "package: $*" >&2; }

usage="usage: ci/package.sh [--config-only] KERNEL ARCH FORMAT OUT [CONFIG]"
config_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--config-only) config_only=1; shift ;;
	--) shift; break ;;
	-*) die "unknown option $1 ($usage)" ;;
	*) break ;;
	esac
done
if [ $# -lt 4 ] || [ $# -gt 5 ]; then
	die "$usage"
fi
kernel=$1 arch=$2 format=$3 out=$4 config=${5:-}

# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
# shellcheck source=ci/kconfig.sh
. "$top/ci/kconfig.sh"
arch_setup "$arch" || exit 1
require_packaged "$arch" || exit 1
# Cross-built when the build machine is another arch (uname -m names
# arches as rpm does).
cross=""
if [ "$(uname -m)" != "$ARCH_RPMARCH" ]; then
	cross=$CROSS_COMPILE
	command -v "${cross}gcc" >/dev/null ||
		die "${cross}gcc not found: apt-get install $ARCH_GCC_PKG"
fi
case "$format" in
deb) need=(dpkg-buildpackage:dpkg-dev dh:debhelper) ;;
rpm) need=(rpmbuild:rpm) ;;
*) die "FORMAT must be deb or rpm, not '$format'" ;;
esac
for t in "${need[@]}" quilt:quilt gcc:gcc make:make bc:bc flex:flex bison:bison; do
	command -v "${t%%:*}" >/dev/null ||
		die "${t%%:*} not found: apt-get install ${t#*:}"
done
if [ -n "$config" ]; then
	[ -f "$config" ] || die "CONFIG $config is not a file"
	config=$(cd "$(dirname "$config")" && pwd)/$(basename "$config")
fi
rev=${UC_PKG_REVISION:-1}
case "$rev" in
'' | *[!0-9]*) die "UC_PKG_REVISION must be a number, not '$rev'" ;;
esac
jobs=${UC_JOBS:-$(nproc)}
export DEBEMAIL=${DEBEMAIL:-usercopy-backports@users.noreply.invalid}
export DEBFULLNAME=${DEBFULLNAME:-usercopy-backports}
maintainer="$DEBFULLNAME <$DEBEMAIL>"

# Our make variables (KERNEL=, OUT=...) must not reach the kernel's make.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES

info=$(uckit info --kernel "$kernel") || exit 1
tree=$(sed -n 's/^tree=//p' <<<"$info")
upstream=$(sed -n 's/^version=//p' <<<"$info")
branch=$(sed -n 's/^branch=//p' <<<"$info")
state=$(sed -n 's/^state=//p' <<<"$info")
# The kernel release: the version and packaging/config/package.config's
# CONFIG_LOCALVERSION (-hardened), which the config check holds it to.
localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$top/packaging/config/package.config")
[ -n "$localversion" ] ||
	die "packaging/config/package.config sets no CONFIG_LOCALVERSION (the release suffix, -hardened)"
kver=$upstream$localversion
release=1uc$rev
version=$upstream-$release

mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$out/work
rm -rf "$work"
mkdir -p "$work"
# The arch's extra compiler flags for kernel and modules, one line (empty
# for most arches): debian/rules and the spec both read this file.
printf '%s\n' "$ARCH_KCFLAGS" >"$work/kernel.kcflags"

if [ -x /usr/lib/ccache/gcc ]; then
	export PATH=/usr/lib/ccache:$PATH
	# Paths under OUT hash the same whatever OUT is.
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$out}
else
	log "ccache not installed (apt-get install ccache): building without it"
fi

# --- the series ---------------------------------------------------------------
npatches=0
# (One line, under 72 characters: it goes into changelogs and descriptions.)
case "$state" in
none)
	uckit export --kernel "$tree" --out "$work/series" >&2
	npatches=$(grep -c '^[^#]' "$work/series/series")
	origin="Backported by usercopy-backports: series/$branch, $npatches patches."
	;;
native)
	origin="Native in this Linux release: built unpatched, the option enabled."
	;;
backport)
	origin="Tree hardened earlier by usercopy-backports apply: packaged as is."
	;;
*)
	die "tree $tree is partially hardened (state=$state): start from a pristine tree"
	;;
esac
if [ "$npatches" = 0 ]; then
	# The spec reads a series in every case: an empty one here.
	mkdir -p "$work/series"
	echo "# Linux $upstream: no patches ($state)" >"$work/series/series"
fi

# Patches in series order, one a line, relative to the series directory.
series_patches() {
	[ "$npatches" -gt 0 ] || return 0
	grep '^[^#]' "$work/series/series" | awk '{print $1}'
}

# --- the upstream tarball -------------------------------------------------------
# Reproducible: sorted names, no owners, fixed times, gzip without a name.
# A tree in the kernel cache never changes, so its tarball is made once and
# kept beside it (6.1's is 220 MB: a minute of gzip each time otherwise).
tarball=$out/linux-$upstream.tar.gz
t0=$(date +%s)
make_tarball() {
	log "tarball linux-$upstream.tar.gz from $tree"
	tar -C "$(dirname "$tree")" --sort=name --owner=0 --group=0 \
		--numeric-owner --mtime=@0 \
		--transform="s,^$(basename "$tree"),linux-$upstream," \
		-cf - "$(basename "$tree")" | gzip -n >"$1.tmp"
	mv "$1.tmp" "$1"
}
rm -f "$tarball" "$tarball.tree"
case "$tree" in
"$cache/trees/"*)
	kept=$cache/tarballs/$(basename "$tree").tar.gz
	mkdir -p "$cache/tarballs"
	[ -f "$kept" ] || make_tarball "$kept"
	ln "$kept" "$tarball" 2>/dev/null || cp "$kept" "$tarball"
	;;
*)
	make_tarball "$tarball"
	;;
esac

unpack() {
	mkdir -p "$1"
	tar -C "$1" --strip-components=1 -xzf "$tarball"
}

# patched_tree DIR: the tarball unpacked in DIR with the series applied.
patched_tree() {
	local p
	unpack "$1"
	while read -r p; do
		(cd "$1" && patch -p1 -s --no-backup-if-mismatch <"$work/series/$p") ||
			die "patch $p does not apply"
	done < <(series_patches)
}

# --- the config -------------------------------------------------------------------
# resolve_config SRC: writes $work/config from the base and the fragments
# against the (patched) tree SRC (ci/kconfig.sh), and checks it.
resolve_config() {
	local src=$1 cb=$work/config-build base=tinyconfig frags f got rc=0 bad=0
	rm -rf "$cb"
	mkdir -p "$cb"
	cfgmake() {
		make -s -C "$src" O="$cb" ARCH="$KARCH" ${cross:+CROSS_COMPILE="$cross"} \
			LOCALVERSION= "$@"
	}
	if [ -z "$config" ]; then
		frags=("$top/ci/configs/base.config")
		for f in $ARCH_FRAGMENTS; do
			frags+=("$top/ci/configs/$f.config")
		done
		frags+=("$top/ci/configs/slub.config")
	else
		base=$config
		frags=("$top/packaging/config/distro.config")
	fi
	frags+=("$top/ci/configs/hardened.config" "$top/packaging/config/package.config")
	kconfig_resolve cfgmake "$src" "$ARCH_SRCARCH" "$cb" "$base" "${frags[@]}" || rc=$?
	[ "$rc" -le 1 ] || die "cannot configure $src (see above)"
	[ "$rc" = 0 ] || bad=1
	grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$cb/.config" || {
		log "CONFIG_HARDENED_USERCOPY=y is not in the resolved config"; bad=1; }
	[ "$bad" = 0 ] || die "the resolved config does not match the fragments (see above)"
	# 4.18+ read CONFIG_LOCALVERSION for kernelrelease from auto.conf,
	# which only syncconfig writes.
	if grep -qw syncconfig "$src/scripts/kconfig/Makefile"; then
		cfgmake syncconfig >/dev/null
	fi
	got=$(cfgmake kernelrelease | tail -n1)
	[ "$got" = "$kver" ] || die "kernel release is '$got', expected '$kver'"
	cp "$cb/.config" "$work/config"
	rm -rf "$cb"
	log "config: ${config:-minimal test config} + fragments, CONFIG_HARDENED_USERCOPY=y, release $kver"
}

if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -R -u -d "@$SOURCE_DATE_EPOCH")
	rpmdate=$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a %b %d %Y')
else
	date=$(date -R)
	rpmdate=$(LC_ALL=C date '+%a %b %d %Y')
fi

# --- deb ------------------------------------------------------------------------------
# The .in files of debian/ are control and changelog, which name the
# package, its version and the arch; rules reads the rest from the files
# written beside them.
# subst FILE: FILE with its @NAMES@ filled in, on stdout.
subst() {
	local pair v args=()
	for pair in "KVER=$kver" "UPSTREAM=$upstream" "VERSION=$version" \
		"MAINTAINER=$maintainer" "DATE=$date" "ORIGIN=$origin" \
		"DEBARCH=$ARCH_DEBARCH"; do
		v=$(printf '%s' "${pair#*=}" | sed 's/[\\|&]/\\&/g')
		args+=(-e "s|@${pair%%=*}@|$v|g")
	done
	sed "${args[@]}" "$1"
}

build_deb() {
	local src=$out/linux-hardened-$upstream f
	rm -rf "$src" "$out"/linux-hardened_"$upstream"* \
		"$out"/linux-image-"$kver"_* "$out"/linux-headers-"$kver"_*
	unpack "$src"
	ln "$tarball" "$out/linux-hardened_$upstream.orig.tar.gz"
	cp -r "$top/packaging/deb/debian" "$src/debian"
	cp "$top/packaging/install-headers" "$src/debian/install-headers"
	cp "$work/kernel.kcflags" "$src/debian/kernel.kcflags"
	{
		echo "# The arch of this source package, from uckit/arches/$arch.ini"
		echo "KARCH := $KARCH"
		echo "SRCARCH := $ARCH_SRCARCH"
		echo "IMAGE := $ARCH_IMAGE"
	} >"$src/debian/kernel.arch"
	for f in control changelog; do
		subst "$src/debian/$f.in" >"$src/debian/$f"
		rm "$src/debian/$f.in"
	done
	if [ "$npatches" -gt 0 ]; then
		mkdir -p "$src/debian/patches"
		cp -r "$work/series/." "$src/debian/patches/"
		# dpkg-source applies them, recording what it did in .pc/
		dpkg-source --before-build "$src" >&2
	fi
	resolve_config "$src"
	cp "$work/config" "$src/debian/kernel.config"

	log "dpkg-buildpackage (source and binary) in $src"
	t1=$(date +%s)
	# Cross: the cross profile drops the headers package.
	(cd "$src" && DEB_BUILD_OPTIONS="parallel=$jobs" \
		dpkg-buildpackage -us -uc -d -a "$ARCH_DEBARCH" ${cross:+-Pcross} \
		>"$work/build.log" 2>&1) || {
		tail -n 40 "$work/build.log" >&2
		die "dpkg-buildpackage failed (full log: $work/build.log)"
	}
	# dpkg-source unapplied the series after the build; the tree stays
	# beside its build directory for module builds, so patch it again.
	if [ "$npatches" -gt 0 ]; then
		dpkg-source --before-build "$src" >/dev/null
	fi
	kbuild=$src/debian/build
	results=$(cd "$out" && ls linux-hardened_"$version"* \
		linux-hardened_"$upstream".orig.tar.gz linux-*-"$kver"_*.deb)
}

# --- rpm ------------------------------------------------------------------------------
# The spec is static (packaging/rpm/kernel-hardened.spec); what differs
# between builds is in its sources: kernel-hardened.macros (the facts),
# series and its patches, kernel.kcflags, the config.
build_rpm() {
	local topdir=$out/rpmbuild src=$work/config-src p
	rm -rf "$topdir" "$out"/kernel-hardened-"$upstream"-*.rpm \
		"$out"/kernel-hardened-devel-"$upstream"-*.rpm
	mkdir -p "$topdir/SOURCES" "$topdir/SPECS"
	# The spec names each patch by its file name: they sit flat here.
	cp "$work/series/series" "$topdir/SOURCES/series"
	while read -r p; do
		[ ! -e "$topdir/SOURCES/${p##*/}" ] ||
			die "two patches of the series are named ${p##*/}: the SRPM holds them flat"
		cp "$work/series/$p" "$topdir/SOURCES/"
	done < <(series_patches)
	patched_tree "$src"
	resolve_config "$src"
	rm -rf "$src"
	ln "$tarball" "$topdir/SOURCES/linux-$upstream.tar.gz"
	cp "$work/config" "$topdir/SOURCES/config-$kver"
	cp "$top/packaging/install-headers" "$topdir/SOURCES/install-headers"
	cp "$work/kernel.kcflags" "$topdir/SOURCES/kernel.kcflags"
	# macro NAME VALUE: one line of an rpm macro file (% doubled).
	macro() { printf '%%%s %s\n' "$1" "${2//'%'/'%%'}"; }
	{
		echo "# kernel-hardened's facts for this build, written by ci/package.sh:"
		echo "# the spec loads them (rpmbuild --define NAME VALUE overrides one)."
		macro upstream "$upstream"
		macro kver "$kver"
		macro pkgrelease "$release"
		macro karch "$KARCH"
		macro srcarch "$ARCH_SRCARCH"
		macro image "$ARCH_IMAGE"
		macro rpmarch "$ARCH_RPMARCH"
		macro packager "$maintainer"
		macro changelog_date "$rpmdate"
		macro origin "$origin"
	} >"$topdir/SOURCES/kernel-hardened.macros"
	cp "$top/packaging/rpm/kernel-hardened.spec" "$topdir/SPECS/kernel-hardened.spec"

	log "rpmbuild -ba in $topdir"
	t1=$(date +%s)
	# --nodeps: BuildRequires name Fedora packages, not in this rpm database.
	# --noclean: keep BUILD/ (the patched tree and build dir) for modules.
	# Cross: the compiler prefix, and no -devel (see the spec).
	rpmbuild -ba --nodeps --noclean --target "$ARCH_RPMARCH" \
		--define "_topdir $topdir" --define "_smp_mflags -j$jobs" \
		${cross:+--define "cross_compile $cross" --without devel} \
		"$topdir/SPECS/kernel-hardened.spec" >"$work/build.log" 2>&1 || {
		tail -n 40 "$work/build.log" >&2
		die "rpmbuild failed (full log: $work/build.log)"
	}
	for p in "$topdir"/SRPMS/*.rpm "$topdir"/RPMS/*/*.rpm; do
		ln "$p" "$out/"
	done
	kbuild=$topdir/BUILD/linux-$upstream/build
	results=$(cd "$out" && for p in kernel-hardened-"$upstream"-*.rpm \
		kernel-hardened-devel-"$upstream"-*.rpm; do
		[ ! -e "$p" ] || echo "$p"
	done)
}

# --config-only: resolve and check the config, build nothing.
if [ "$config_only" = 1 ]; then
	patched_tree "$work/config-src"
	resolve_config "$work/config-src"
	rm -rf "$work/config-src"
	cp "$work/config" "$out/config-$kver"
	log "config only: $out/config-$kver"
	exit 0
fi

"build_$format"
t2=$(date +%s)
{
	echo "kernel=$upstream"
	echo "kver=$kver"
	echo "version=$version"
	echo "state=$state"
	echo "arch=$arch"
	echo "format=$format"
	echo "config=${config:-minimal}"
	echo "patches=$npatches"
	echo "kbuild=$kbuild"
	echo "image=$kbuild/$ARCH_IMAGE"
	echo "build_s=$((t2 - t1))"
	echo "total_s=$((t2 - t0))"
	echo "files=$(echo "$results" | tr '\n' ' ' | sed 's/ $//')"
} >"$out/package.env"
log "Linux $upstream ($state) $format $arch, version $version, build $((t2 - t1)) s, all $((t2 - t0)) s:"
while read -r f; do
	log "  $out/$f"
done <<<"$results"
