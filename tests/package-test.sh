#!/bin/bash
# Distro package tests: build, lint, repository, install, upgrade, boot the
# installed kernel, remove.  KTAP-style output, one line a case.
#
#   tests/package-test.sh [--kernel K] [--arch x86_64|arm64] [--format deb|rpm]...
#                         [--dir DIR] [--reuse]
#
# x86_64 (the build machine's arch), for each format: packages of revision
# 1 and 2 (ci/package.sh: image and headers), the linter (lintian /
# rpmlint), a local repository (apt-ftparchive / createrepo_c), install of
# revision 1, image and headers, into a fresh root (a Debian 12 root from
# mmdebstrap with apt / an empty root with dnf --installroot), upgrade to
# revision 2, tests/guest's uc_selftest.ko built against the installed
# /lib/modules/VER/build (in the Debian root with its own gcc; for the
# dnf root, which has no compiler, with the host's), boot of the vmlinuz
# taken from that root in QEMU with the self-test suite and that module
# (ci/boot.sh --module), then purge/remove, which must leave the root as
# it was.
#
# arm64 (cross-built): revision 1 only, the linter, the package's
# architecture and contents, install of the .deb into the Debian root with
# arm64 as a foreign architecture (dpkg --add-architecture; its scripts run
# on the host) and of the .rpm with dnf --forcearch=aarch64, removal, and
# boot of the image taken from the package in qemu-system-aarch64.
#
# Install steps need root (chroot, bind mounts); without it, or without a
# tool, the case says SKIP and why.
#
# --dir DIR keeps everything there (default: a temporary directory, removed
# at the end); --reuse takes packages already built in DIR.
# The Debian root (with kmod, gcc and make) is made once and kept as a
# tarball in the cache.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=ci/lib.sh
. "$top/ci/lib.sh"
kernel=4.4.220 arch=x86_64 dir="" reuse=0
formats=()

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--arch) arch=$2; shift 2 ;;
	--format) formats+=("$2"); shift 2 ;;
	--dir) dir=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	*) echo "package-test: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ ${#formats[@]} -gt 0 ] || formats=(deb rpm)
# The arch's facts (uckit/arches/ARCH.ini): only a packaged one.
arch_setup "$arch" || exit 2
require_packaged "$arch" || exit 2
qemu=$ARCH_QEMU debarch=$ARCH_DEBARCH rpmarch=$ARCH_RPMARCH
# Packages for another arch than the machine's are built, checked,
# installed without running their code, and booted; no upgrade, no headers.
# (uname -m names arches as rpm does.)
native=0
[ "$(uname -m)" = "$rpmarch" ] && native=1

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1 # $2"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

tmpdir=0
if [ -n "$dir" ]; then
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
else
	dir=$(mktemp -d -t uc-pkgtest.XXXXXX)
	tmpdir=1
fi

mounts=()
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local m
	for m in ${mounts[@]+"${mounts[@]}"}; do
		umount "$m" 2>/dev/null || true
	done
	if [ "$tmpdir" = 1 ]; then
		rm -rf "$dir"
	fi
}
trap cleanup EXIT

is_root() { [ "$(id -u)" = 0 ]; }

# build FORMAT REV: packages in $dir/FORMAT-REV; prints nothing, sets $env.
build() {
	local format=$1 rev=$2 out=$dir/$1-$2 t0
	env=$out/package.env
	if [ "$reuse" = 1 ] && [ -f "$env" ]; then
		ok "$format: revision $rev (reused, $(sed -n 's/^version=//p' "$env"))"
		return 0
	fi
	t0=$(date +%s)
	if UC_PKG_REVISION=$rev bash "$top/ci/package.sh" "$kernel" "$arch" \
		"$format" "$out" >"$dir/$format-$rev.log" 2>&1; then
		ok "$format: build revision $rev ($(sed -n 's/^version=//p' "$env"), $(($(date +%s) - t0)) s)"
	else
		tail -n 20 "$dir/$format-$rev.log" | diag
		notok "$format: build revision $rev" "ci/package.sh failed, log $dir/$format-$rev.log"
		return 1
	fi
}

val() { sed -n "s/^$1=//p" "$2"; }

# boot_installed FORMAT ROOT FROM ENV [MODULE]: the image from ROOT (FROM:
# an installed root or an unpacked package); the module given (built against
# the installed headers), else built by boot.sh against the package's own
# build tree (the same kernel).
boot_installed() {
	local format=$1 root=$2 from=$3 env=$4 module=${5:-} kver t0 res=$dir/$1-$arch-boot what
	kver=$(val kver "$env")
	if ! command -v "$qemu" >/dev/null; then
		skip "$format: boot installed kernel" "$qemu not installed"
		return 0
	fi
	mkdir -p "$res"
	cp "$root/boot/vmlinuz-$kver" "$res/vmlinuz-$kver"
	what="uc_selftest.ko built against the package's build tree"
	[ -z "$module" ] || what="the uc_selftest.ko built against the installed headers"
	t0=$(date +%s)
	if bash "$top/ci/boot.sh" --arch "$arch" --kbuild "$(val kbuild "$env")" \
		--image "$res/vmlinuz-$kver" --hardened y --out "$res" \
		${module:+--module "$module"} >"$res/boot.log" 2>&1; then
		ok "$format: boot /boot/vmlinuz-$kver from the $from, $what, suite passes ($(($(date +%s) - t0)) s)"
	else
		tail -n 20 "$res/boot.log" | diag
		notok "$format: boot /boot/vmlinuz-$kver from the $from" "suite failed, see $res"
	fi
}

# check_module FORMAT KO KVER: the module a headers build made is for KVER.
check_module() {
	local vermagic
	vermagic=$(modinfo -F vermagic "$2" 2>/dev/null || true)
	case "$vermagic" in
	"$3 "*) return 0 ;;
	*) echo "vermagic of $2 is '$vermagic', not for $3" | diag; return 1 ;;
	esac
}

# module_src DIR: the test module's sources in DIR (fresh).
module_src() {
	rm -rf "$1"
	mkdir -p "$1"
	cp "$top/tests/guest/Kbuild" "$top/tests/guest/uc_selftest.c" \
		"$top/tests/guest/uc_selftest.h" "$1/"
}

# Files of a root, minus the package managers' own state.
snapshot() {
	(cd "$1" && find . -xdev \( -path ./var/lib/apt -o -path ./var/cache \
		-o -path ./var/lib/dpkg -o -path ./var/log -o -path ./var/lib/dnf \
		-o -path ./var/lib/rpm -o -path ./usr/lib/sysimage -o -path ./proc \
		-o -path ./srv/repo -o -path ./etc/ld.so.cache \) -prune -o -print |
		sort)
}

# ------------------------------------------------------------------ deb
# lint_deb DIR: lintian on the binary packages of DIR (the source checks
# read the whole kernel tree, over 15 minutes here: only with
# UC_LINTIAN_SOURCE=1).
lint_deb() {
	local what="binary" lfiles lint
	lfiles=("$1"/*.deb)
	if ! command -v lintian >/dev/null; then
		skip "deb: lintian" "lintian not installed (apt-get install lintian)"
		return 0
	fi
	if [ "${UC_LINTIAN_SOURCE:-0}" = 1 ]; then
		what="source and binary" lfiles=("$1"/*.changes)
	fi
	lint=$(lintian --pedantic -I "${lfiles[@]}" 2>&1 |
		grep -v 'running with root privileges' || true)
	[ -z "$lint" ] || diag <<<"$lint"
	if grep -q '^E:' <<<"$lint"; then
		notok "deb: lintian ($what, ${#lfiles[@]} files)" "errors, see above"
	else
		ok "deb: lintian ($what, ${#lfiles[@]} files): no errors, $(grep -c '^[WI]:' <<<"$lint" || true) warnings/infos"
	fi
}

# deb_root: a fresh Debian 12 root in $root with kmod, gcc, make and libelf1 (made
# once from Debian's archive, kept in the cache) and the local repository
# $repo bind-mounted at /srv/repo.  Fails with a case if it cannot.
deb_root() {
	# libelf1: objtool in 6.1's headers package links it.
	local t0 include=kmod,gcc,make,libelf1 tarball=$cache/pkgroots/bookworm-kbuild-elf.tar
	for t in mmdebstrap:mmdebstrap apt-ftparchive:apt-utils; do
		command -v "${t%%:*}" >/dev/null || {
			skip "deb: install, upgrade, boot, purge" "${t%%:*} not installed (apt-get install ${t#*:})"
			return 1
		}
	done
	mkdir -p "$cache/pkgroots"
	if [ ! -f "$tarball" ]; then
		t0=$(date +%s)
		# --format: the .tmp name would otherwise make it a directory.
		if ! mmdebstrap --variant=apt --format=tar --include="$include" bookworm \
			"$tarball.tmp" >"$dir/mmdebstrap.log" 2>&1; then
			tail -n 10 "$dir/mmdebstrap.log" | diag
			rm -rf "$tarball.tmp"
			notok "deb: Debian 12 root (mmdebstrap)" "mmdebstrap failed (network to the archive?)"
			return 1
		fi
		mv "$tarball.tmp" "$tarball"
		echo "# mmdebstrap --variant=apt --include=$include bookworm: $(($(date +%s) - t0)) s"
	fi
	root=$dir/deb-$arch-root repo=$dir/deb-$arch-repo
	rm -rf "$root" "$repo"
	mkdir -p "$root" "$repo"
	tar -C "$root" -xf "$tarball"
	mkdir -p "$root/srv/repo"
	mount --bind "$repo" "$root/srv/repo"
	mounts+=("$root/srv/repo")
	# Only the local repository: what the kernel packages need (kmod, gcc,
	# make) is in the root already, and no arm64 index is fetched.
	rm -f "$root/etc/apt/sources.list"
	echo 'deb [trusted=yes] file:/srv/repo ./' >"$root/etc/apt/sources.list.d/uc.list"
}

chr() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
# shellcheck disable=SC2016 # ${Version} is dpkg-query's, not ours
dver() { chroot "$root" dpkg-query -W -f '${Version}' "$1"; }

# publish_deb DIR: the flat repository holds the binary packages of DIR.
publish_deb() {
	find "$repo" -mindepth 1 -delete
	cp "$1"/*.deb "$repo/"
	(cd "$repo" && apt-ftparchive packages . >Packages &&
		apt-ftparchive release . >Release)
}

test_deb() {
	local env1 env2 kver t0 pkgs ko gccv
	build deb 1 || return 0
	env1=$env
	build deb 2 || return 0
	env2=$env
	kver=$(val kver "$env1")
	pkgs=("linux-image-$kver" "linux-headers-$kver")

	lint_deb "$dir/deb-1"

	if ! is_root; then
		skip "deb: install, upgrade, module build, boot, purge" "needs root (chroot, bind mounts)"
		return 0
	fi
	deb_root || return 0
	publish_deb "$dir/deb-1"
	if ! chr apt-get update -qq >"$dir/deb-apt.log" 2>&1; then
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt repository and root" "apt-get update failed"
		return 0
	fi
	snapshot "$root" >"$dir/deb-before.txt"
	t0=$(date +%s)
	if chr apt-get install -y -qq "${pkgs[@]}" >>"$dir/deb-apt.log" 2>&1 &&
		[ "$(dver "${pkgs[0]}")" = "$(val version "$env1")" ] &&
		[ "$(dver "${pkgs[1]}")" = "$(val version "$env1")" ] &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$root/boot/config-$kver" &&
		[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/lib/modules/$kver/modules.dep" ] &&
		[ "$(readlink "$root/lib/modules/$kver/build")" = "/usr/src/linux-headers-$kver" ] &&
		[ -f "$root/usr/src/linux-headers-$kver/Module.symvers" ]; then
		ok "deb: apt-get install ${pkgs[*]} $(val version "$env1") from the local repo ($(($(date +%s) - t0)) s)"
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get install ${pkgs[*]}" "install or file check failed"
		return 0
	fi

	publish_deb "$dir/deb-2"
	if chr apt-get update -qq >>"$dir/deb-apt.log" 2>&1 &&
		chr apt-get upgrade -y -qq >>"$dir/deb-apt.log" 2>&1 &&
		[ "$(dver "${pkgs[0]}")" = "$(val version "$env2")" ] &&
		[ "$(dver "${pkgs[1]}")" = "$(val version "$env2")" ]; then
		ok "deb: apt-get upgrade $(val version "$env1") -> $(val version "$env2") (image and headers)"
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get upgrade to $(val version "$env2")" "upgrade failed"
	fi

	# The module, built inside the root with its own gcc and make against
	# the installed headers, as a user of the packages would.
	module_src "$root/tmp/uc_selftest"
	ko=$dir/deb-uc_selftest.ko
	rm -f "$ko"
	gccv=$(chr gcc -dumpfullversion 2>/dev/null || true)
	t0=$(date +%s)
	if chr make -C "/lib/modules/$kver/build" M=/tmp/uc_selftest modules \
		>"$dir/deb-module.log" 2>&1 &&
		cp "$root/tmp/uc_selftest/uc_selftest.ko" "$ko" &&
		check_module deb "$ko" "$kver"; then
		ok "deb: uc_selftest.ko built in the root (gcc $gccv) against /lib/modules/$kver/build ($(($(date +%s) - t0)) s)"
	else
		tail -n 20 "$dir/deb-module.log" | diag
		notok "deb: module build against /lib/modules/$kver/build" "make failed or wrong vermagic, log $dir/deb-module.log"
		ko=""
	fi
	rm -rf "$root/tmp/uc_selftest"

	boot_installed deb "$root" "installed root" "$env2" "$ko"

	if chr apt-get purge -y -qq "${pkgs[@]}" >>"$dir/deb-apt.log" 2>&1; then
		snapshot "$root" >"$dir/deb-after.txt"
		if diff "$dir/deb-before.txt" "$dir/deb-after.txt" >"$dir/deb-purge.diff"; then
			ok "deb: apt-get purge (image and headers) leaves the root as before the install"
		else
			diag <"$dir/deb-purge.diff"
			notok "deb: apt-get purge" "files left behind (above)"
		fi
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get purge" "purge failed"
	fi
}

# Cross-built .deb: contents, install into the amd64 root with arm64 as a
# foreign architecture (the maintainer scripts and depmod are the
# host's: kmod is Multi-Arch: foreign), purge, boot of the packaged image.
test_deb_foreign() {
	local env1 kver deb t0 unpacked
	build deb 1 || return 0
	env1=$env
	kver=$(val kver "$env1")
	lint_deb "$dir/deb-1"

	deb=$(ls "$dir"/deb-1/linux-image-"$kver"_*_"$debarch".deb 2>/dev/null || true)
	unpacked=$dir/deb-$arch-unpacked
	rm -rf "$unpacked"
	if [ -n "$deb" ] && [ "$(dpkg-deb -f "$deb" Architecture)" = "$debarch" ] &&
		dpkg-deb -x "$deb" "$unpacked" &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$unpacked/boot/config-$kver" &&
		[ -f "$unpacked/boot/vmlinuz-$kver" ] &&
		[ -f "$unpacked/lib/modules/$kver/modules.builtin" ] &&
		! ls "$dir"/deb-1/linux-headers-* >/dev/null 2>&1; then
		ok "deb: linux-image-${kver}_$(val version "$env1")_$debarch.deb: Architecture $debarch, image, config, /lib/modules (no headers package: cross build)"
	else
		notok "deb: $debarch package contents" "missing package, wrong Architecture or files"
		return 0
	fi

	if ! is_root; then
		skip "deb: install as a foreign architecture, purge" "needs root (chroot, bind mounts)"
	elif deb_root; then
		publish_deb "$dir/deb-1"
		chr dpkg --add-architecture "$debarch"
		snapshot "$root" >"$dir/deb-$arch-before.txt"
		t0=$(date +%s)
		if chr apt-get update -qq >"$dir/deb-$arch-apt.log" 2>&1 &&
			chr apt-get install -y -qq "linux-image-$kver:$debarch" >>"$dir/deb-$arch-apt.log" 2>&1 &&
			[ "$(dver "linux-image-$kver:$debarch")" = "$(val version "$env1")" ] &&
			[ -f "$root/lib/modules/$kver/modules.dep" ]; then
			ok "deb: apt-get install linux-image-$kver:$debarch into the amd64 root (foreign arch, depmod ran) ($(($(date +%s) - t0)) s)"
			if chr apt-get purge -y -qq "linux-image-$kver:$debarch" >>"$dir/deb-$arch-apt.log" 2>&1 &&
				snapshot "$root" >"$dir/deb-$arch-after.txt" &&
				diff "$dir/deb-$arch-before.txt" "$dir/deb-$arch-after.txt" | diag &&
				cmp -s "$dir/deb-$arch-before.txt" "$dir/deb-$arch-after.txt"; then
				ok "deb: apt-get purge linux-image-$kver:$debarch leaves the root as before"
			else
				notok "deb: apt-get purge linux-image-$kver:$debarch" "purge failed or files left behind"
			fi
		else
			tail -n 10 "$dir/deb-$arch-apt.log" | diag
			notok "deb: apt-get install linux-image-$kver:$debarch" "install failed, log $dir/deb-$arch-apt.log"
		fi
	fi

	boot_installed deb "$unpacked" "package" "$env1"
}

# ------------------------------------------------------------------ rpm
# A package providing /bin/sh (static busybox), for the scriptlets in a
# root that has nothing else.
make_sh_rpm() {
	local top2=$dir/rpm-sh busybox
	busybox=$(command -v busybox) || return 1
	mkdir -p "$top2/SPECS" "$top2/SOURCES"
	cp "$busybox" "$top2/SOURCES/busybox"
	cat >"$top2/SPECS/uc-test-sh.spec" <<-'EOS'
	Name: uc-test-sh
	Version: 1
	Release: 1
	Summary: static busybox as /bin/sh, for package tests in empty roots
	License: GPL-2.0-only
	Source0: busybox
	%global debug_package %{nil}
	%global __strip /bin/true
	%description
	Static busybox as /bin/sh and the few commands kernel scriptlets use.
	%install
	install -D -m 755 %{SOURCE0} %{buildroot}/bin/busybox
	for c in sh rm rmdir cat; do ln -s busybox %{buildroot}/bin/$c; done
	%files
	/bin/*
	EOS
	rpmbuild -bb --nodeps --define "_topdir $top2" \
		"$top2/SPECS/uc-test-sh.spec" >"$top2/build.log" 2>&1 || return 1
	cp "$top2"/RPMS/*/uc-test-sh-*.rpm "$repo/"
}

lint_rpm() {
	local lint
	if ! command -v rpmlint >/dev/null; then
		skip "rpm: rpmlint" "rpmlint not installed (apt-get install rpmlint)"
		return 0
	fi
	# One rpmlintrc serves every kernel; each trips only some of its
	# filters (no -devel in a cross build; 6.1's -devel has objtool, an
	# ELF program, and no duplicated files), so unused ones are no error.
	# The spec is linted inside the SRPM, next to the sources it reads
	# (kernel-hardened.macros, series): alone it has no facts.
	lint=$(rpmlint -r "$top/packaging/rpm/kernel-hardened.rpmlintrc" --ignore-unused-rpmlintrc \
		"$1"/kernel-hardened-*.rpm 2>&1 || true)
	diag <<<"$lint"
	if grep -qE '^[^ ]+: E: ' <<<"$lint"; then
		notok "rpm: rpmlint (SRPM with its spec, RPMs)" "errors, see above"
	else
		ok "rpm: rpmlint (SRPM with its spec, $(find "$1" -maxdepth 1 -name "kernel-hardened-*.$rpmarch.rpm" | wc -l) RPMs): no errors"
	fi
}

# rpm_root: an empty root in $root, a dnf repository $repo with the /bin/sh
# package, installed; defines dnfc.  Fails with a case if it cannot.
rpm_root() {
	for t in dnf:dnf createrepo_c:createrepo-c busybox:busybox-static; do
		command -v "${t%%:*}" >/dev/null || {
			skip "rpm: install, upgrade, boot, remove" "${t%%:*} not installed (apt-get install ${t#*:})"
			return 1
		}
	done
	repo=$dir/rpm-$arch-repo root=$dir/rpm-$arch-root
	rm -rf "$repo" "$root"
	mkdir -p "$repo" "$root" "$dir/rpm-repos.d"
	make_sh_rpm || { notok "rpm: /bin/sh package for the empty root" "rpmbuild failed"; return 1; }
	cat >"$dir/rpm-repos.d/uc.repo" <<-EOF2
	[uc]
	name=usercopy-backports local
	baseurl=file://$repo
	enabled=1
	gpgcheck=0
	EOF2
	createrepo_c -q "$repo"
	dnfc install uc-test-sh >"$dir/rpm-$arch-dnf.log" 2>&1 || true
	# What a distro's filesystem package owns, so removal is judged on
	# the kernel's own files only.
	mkdir -p "$root/boot" "$root/lib/modules" "$root/usr/src/kernels" "$root/var/tmp"
}

dnfc() {
	dnf -y -q --installroot="$root" --releasever=9 \
		--setopt=reposdir="$dir/rpm-repos.d" --setopt=cachedir="$dir/rpm-dnfcache" \
		--nogpgcheck --refresh "$@"
}
rpmv() { rpm --root "$root" -q --qf '%{VERSION}-%{RELEASE}\n' "$1"; }

# publish_rpm DIR: the repository holds /bin/sh and the binary RPMs of DIR.
publish_rpm() {
	find "$repo" -name 'kernel-hardened-*' -delete
	cp "$1"/kernel-hardened-*."$rpmarch".rpm "$repo/"
	createrepo_c -q "$repo"
}

test_rpm() {
	local env1 env2 kver t0 pkgs ko kbuild
	build rpm 1 || return 0
	env1=$env
	build rpm 2 || return 0
	env2=$env
	kver=$(val kver "$env1")
	pkgs=(kernel-hardened kernel-hardened-devel)

	lint_rpm "$dir/rpm-1"

	if ! is_root; then
		skip "rpm: install, upgrade, module build, boot, remove" "needs root (dnf --installroot)"
		return 0
	fi
	rpm_root || return 0
	snapshot "$root" >"$dir/rpm-before.txt"
	publish_rpm "$dir/rpm-1"
	t0=$(date +%s)
	if dnfc install "${pkgs[@]}" >>"$dir/rpm-$arch-dnf.log" 2>&1 &&
		[ "$(rpmv "${pkgs[0]}")" = "$(val version "$env1")" ] &&
		[ "$(rpmv "${pkgs[1]}")" = "$(val version "$env1")" ] &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$root/boot/config-$kver" &&
		[ -f "$root/boot/vmlinuz-$kver" ] && [ -d "$root/lib/modules/$kver" ] &&
		[ "$(readlink "$root/lib/modules/$kver/build")" = "/usr/src/kernels/$kver" ] &&
		[ -f "$root/usr/src/kernels/$kver/Module.symvers" ]; then
		ok "rpm: dnf --installroot install ${pkgs[*]} $(val version "$env1") ($(($(date +%s) - t0)) s)"
	else
		tail -n 10 "$dir/rpm-$arch-dnf.log" | diag
		notok "rpm: dnf install ${pkgs[*]}" "install or file check failed"
		return 0
	fi

	publish_rpm "$dir/rpm-2"
	if dnfc upgrade "${pkgs[@]}" >>"$dir/rpm-$arch-dnf.log" 2>&1 &&
		[ "$(rpmv "${pkgs[0]}")" = "$(val version "$env2")" ] &&
		[ "$(rpmv "${pkgs[1]}")" = "$(val version "$env2")" ]; then
		ok "rpm: dnf upgrade $(val version "$env1") -> $(val version "$env2") (one kernel-hardened and one -devel installed)"
	else
		tail -n 10 "$dir/rpm-$arch-dnf.log" | diag
		rpmv "${pkgs[0]}" | diag
		notok "rpm: dnf upgrade to $(val version "$env2")" "upgrade failed"
	fi

	# The dnf root has no compiler: the module is built by the host's gcc
	# against the headers installed in the root, through its build link.
	kbuild=$root$(readlink "$root/lib/modules/$kver/build")
	module_src "$dir/rpm-module"
	ko=$dir/rpm-uc_selftest.ko
	rm -f "$ko"
	t0=$(date +%s)
	if make -C "$kbuild" M="$dir/rpm-module" modules >"$dir/rpm-module.log" 2>&1 &&
		cp "$dir/rpm-module/uc_selftest.ko" "$ko" &&
		check_module rpm "$ko" "$kver"; then
		ok "rpm: uc_selftest.ko built by the host's gcc $(gcc -dumpfullversion) against the installed /usr/src/kernels/$kver ($(($(date +%s) - t0)) s)"
	else
		tail -n 20 "$dir/rpm-module.log" | diag
		notok "rpm: module build against /usr/src/kernels/$kver" "make failed or wrong vermagic, log $dir/rpm-module.log"
		ko=""
	fi

	boot_installed rpm "$root" "installed root" "$env2" "$ko"

	if dnfc remove "${pkgs[@]}" >>"$dir/rpm-$arch-dnf.log" 2>&1; then
		snapshot "$root" >"$dir/rpm-after.txt"
		if diff "$dir/rpm-before.txt" "$dir/rpm-after.txt" >"$dir/rpm-remove.diff"; then
			ok "rpm: dnf remove (kernel and -devel) leaves the root as before the install"
		else
			diag <"$dir/rpm-remove.diff"
			notok "rpm: dnf remove" "files left behind (above)"
		fi
	else
		tail -n 10 "$dir/rpm-$arch-dnf.log" | diag
		notok "rpm: dnf remove" "remove failed"
	fi
}

# Cross-built .rpm: contents, install with dnf --forcearch into the empty
# root (scriptlets run by the host's busybox), removal, boot of its image.
test_rpm_foreign() {
	local env1 kver rpmf t0 unpacked
	build rpm 1 || return 0
	env1=$env
	kver=$(val kver "$env1")
	lint_rpm "$dir/rpm-1"

	rpmf=$(ls "$dir"/rpm-1/kernel-hardened-"$(val version "$env1")"."$rpmarch".rpm 2>/dev/null || true)
	unpacked=$dir/rpm-$arch-unpacked
	rm -rf "$unpacked"
	mkdir -p "$unpacked"
	if [ -n "$rpmf" ] && [ "$(rpm -qp --qf '%{ARCH}' "$rpmf" 2>/dev/null)" = "$rpmarch" ] &&
		(cd "$unpacked" && rpm2cpio "$rpmf" | cpio -id --quiet) &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$unpacked/boot/config-$kver" &&
		[ -f "$unpacked/boot/vmlinuz-$kver" ] &&
		[ -f "$unpacked/lib/modules/$kver/modules.builtin" ] &&
		! ls "$dir"/rpm-1/kernel-hardened-devel-* >/dev/null 2>&1; then
		ok "rpm: ${rpmf##*/}: arch $rpmarch, image, config, /lib/modules (no -devel: cross build)"
	else
		notok "rpm: $rpmarch package contents" "missing package, wrong arch or files"
		return 0
	fi

	if ! is_root; then
		skip "rpm: install with --forcearch, remove" "needs root (dnf --installroot)"
	elif rpm_root; then
		snapshot "$root" >"$dir/rpm-$arch-before.txt"
		publish_rpm "$dir/rpm-1"
		t0=$(date +%s)
		if dnfc --forcearch="$rpmarch" install kernel-hardened >>"$dir/rpm-$arch-dnf.log" 2>&1 &&
			[ "$(rpmv kernel-hardened)" = "$(val version "$env1")" ] &&
			[ -f "$root/boot/vmlinuz-$kver" ]; then
			ok "rpm: dnf --forcearch=$rpmarch install kernel-hardened into the empty root ($(($(date +%s) - t0)) s)"
			if dnfc --forcearch="$rpmarch" remove kernel-hardened >>"$dir/rpm-$arch-dnf.log" 2>&1 &&
				snapshot "$root" >"$dir/rpm-$arch-after.txt" &&
				diff "$dir/rpm-$arch-before.txt" "$dir/rpm-$arch-after.txt" | diag &&
				cmp -s "$dir/rpm-$arch-before.txt" "$dir/rpm-$arch-after.txt"; then
				ok "rpm: dnf remove kernel-hardened ($rpmarch) leaves the root as before"
			else
				notok "rpm: dnf remove kernel-hardened ($rpmarch)" "remove failed or files left behind"
			fi
		else
			tail -n 10 "$dir/rpm-$arch-dnf.log" | diag
			notok "rpm: dnf --forcearch=$rpmarch install kernel-hardened" "install failed, log $dir/rpm-$arch-dnf.log"
		fi
	fi

	boot_installed rpm "$unpacked" "package" "$env1"
}

echo "KTAP version 1"
echo "# package tests: KERNEL=$kernel ARCH=$arch formats: ${formats[*]}; work dir $dir"
if [ "$native" = 0 ] && ! command -v "${CROSS_COMPILE}gcc" >/dev/null; then
	for f in ${formats[@]+"${formats[@]}"}; do
		skip "$f $arch" "${CROSS_COMPILE}gcc not installed (apt-get install $ARCH_GCC_PKG)"
	done
	formats=()
fi
for f in ${formats[@]+"${formats[@]}"}; do
	case "$f" in
	deb)
		if command -v dpkg-buildpackage >/dev/null; then
			if [ "$native" = 1 ]; then test_deb; else test_deb_foreign; fi
		else
			skip "deb" "dpkg-buildpackage not installed (apt-get install dpkg-dev debhelper)"
		fi ;;
	rpm)
		if command -v rpmbuild >/dev/null; then
			if [ "$native" = 1 ]; then test_rpm; else test_rpm_foreign; fi
		else
			skip "rpm" "rpmbuild not installed (apt-get install rpm)"
		fi ;;
	*) notok "$f" "unknown format (deb or rpm)" ;;
	esac
done
echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
