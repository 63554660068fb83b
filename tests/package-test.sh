#!/bin/bash
# Distro package tests: build, lint, repository, install, upgrade, boot the
# installed kernel, remove.  KTAP-style output, one line a case.
#
#   tests/package-test.sh [--kernel K] [--arch x86_64] [--format deb|rpm]...
#                         [--dir DIR] [--reuse]
#
# For each format: packages of revision 1 and 2 (ci/package.sh), the linter
# (lintian / rpmlint), a local repository (apt-ftparchive / createrepo_c),
# install of revision 1 into a fresh root (a Debian 12 root from
# mmdebstrap with apt / an empty root with dnf --installroot), upgrade to
# revision 2, boot of the vmlinuz taken from that root in QEMU with the
# self-test suite (ci/boot.sh), then purge/remove, which must leave the
# root as it was.  Install steps need root (chroot, bind mounts); without
# it, or without a tool, the case says SKIP and why.
#
# --dir DIR keeps everything there (default: a temporary directory, removed
# at the end); --reuse takes packages already built in DIR.
# The Debian root is made once and kept as a tarball in the cache.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/usercopy-backports
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

# boot_installed FORMAT ROOT ENV: the image from ROOT, the module built
# against the package's own build tree (the same kernel).
boot_installed() {
	local format=$1 root=$2 env=$3 kver t0 res=$dir/$1-boot
	kver=$(val kver "$env")
	if ! command -v qemu-system-x86_64 >/dev/null; then
		skip "$format: boot installed kernel" "qemu-system-x86_64 not installed"
		return 0
	fi
	mkdir -p "$res"
	cp "$root/boot/vmlinuz-$kver" "$res/vmlinuz-$kver"
	t0=$(date +%s)
	if bash "$top/ci/boot.sh" --arch "$arch" --kbuild "$(val kbuild "$env")" \
		--image "$res/vmlinuz-$kver" --hardened y --out "$res" \
		>"$res/boot.log" 2>&1; then
		ok "$format: boot /boot/vmlinuz-$kver from the installed root, suite passes ($(($(date +%s) - t0)) s)"
	else
		tail -n 20 "$res/boot.log" | diag
		notok "$format: boot /boot/vmlinuz-$kver from the installed root" "suite failed, see $res"
	fi
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
test_deb() {
	local env1 env2 kver root repo t0 lint what lfiles
	build deb 1 || return 0
	env1=$env
	build deb 2 || return 0
	env2=$env
	kver=$(val kver "$env1")

	if command -v lintian >/dev/null; then
		# The source checks read the whole kernel tree (over 15 minutes
		# here): only with UC_LINTIAN_SOURCE=1.
		what="binary" lfiles=("$dir"/deb-1/*.deb)
		if [ "${UC_LINTIAN_SOURCE:-0}" = 1 ]; then
			what="source and binary" lfiles=("$dir"/deb-1/*.changes)
		fi
		lint=$(lintian --pedantic -I "${lfiles[@]}" 2>&1 |
			grep -v 'running with root privileges' || true)
		[ -z "$lint" ] || diag <<<"$lint"
		if grep -q '^E:' <<<"$lint"; then
			notok "deb: lintian ($what)" "errors, see above"
		else
			ok "deb: lintian ($what): no errors, $(grep -c '^[WI]:' <<<"$lint" || true) warnings/infos"
		fi
	else
		skip "deb: lintian" "lintian not installed (apt-get install lintian)"
	fi

	if ! is_root; then
		skip "deb: install, upgrade, boot, purge" "needs root (chroot, bind mounts)"
		return 0
	fi
	for t in mmdebstrap:mmdebstrap apt-ftparchive:apt-utils; do
		command -v "${t%%:*}" >/dev/null || {
			skip "deb: install, upgrade, boot, purge" "${t%%:*} not installed (apt-get install ${t#*:})"
			return 0
		}
	done

	# The Debian 12 root, made once from Debian's archive.
	mkdir -p "$cache/pkgroots"
	if [ ! -f "$cache/pkgroots/bookworm-apt.tar" ]; then
		t0=$(date +%s)
		if ! mmdebstrap --variant=apt bookworm "$cache/pkgroots/bookworm-apt.tar.tmp" \
			>"$dir/mmdebstrap.log" 2>&1; then
			tail -n 10 "$dir/mmdebstrap.log" | diag
			notok "deb: Debian 12 root (mmdebstrap)" "mmdebstrap failed (network to the archive?)"
			return 0
		fi
		mv "$cache/pkgroots/bookworm-apt.tar.tmp" "$cache/pkgroots/bookworm-apt.tar"
		echo "# mmdebstrap --variant=apt bookworm: $(($(date +%s) - t0)) s"
	fi
	root=$dir/deb-root
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$cache/pkgroots/bookworm-apt.tar"
	repo=$dir/deb-repo
	mkdir -p "$repo" "$root/srv/repo"
	mount --bind "$repo" "$root/srv/repo"
	mounts+=("$root/srv/repo")
	echo 'deb [trusted=yes] file:/srv/repo ./' >"$root/etc/apt/sources.list.d/uc.list"
	# shellcheck disable=SC2016 # ${Version} is dpkg-query's, not ours
	dver() { chroot "$root" dpkg-query -W -f '${Version}' "linux-image-$kver"; }
	chr() { chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

	# publish FILE.deb: the flat repository holds that one package.
	publish() {
		find "$repo" -mindepth 1 -delete
		cp "$1" "$repo/"
		(cd "$repo" && apt-ftparchive packages . >Packages &&
			apt-ftparchive release . >Release)
	}

	publish "$(ls "$dir"/deb-1/linux-image-*.deb)"
	# kmod comes from Debian first, so the snapshot is the root the kernel
	# package alone is judged against.
	if ! chr apt-get update -qq >"$dir/deb-apt.log" 2>&1 ||
		! chr apt-get install -y -qq kmod >>"$dir/deb-apt.log" 2>&1; then
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt repository and root" "apt-get update/install kmod failed"
		return 0
	fi
	snapshot "$root" >"$dir/deb-before.txt"
	t0=$(date +%s)
	if chr apt-get install -y -qq "linux-image-$kver" >>"$dir/deb-apt.log" 2>&1 &&
		[ "$(dver)" = "$(val version "$env1")" ] &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$root/boot/config-$kver" &&
		[ -f "$root/boot/vmlinuz-$kver" ] && [ -f "$root/lib/modules/$kver/modules.dep" ]; then
		ok "deb: apt-get install linux-image-$kver $(val version "$env1") from the local repo ($(($(date +%s) - t0)) s)"
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get install linux-image-$kver" "install or file check failed"
		return 0
	fi

	publish "$(ls "$dir"/deb-2/linux-image-*.deb)"
	if chr apt-get update -qq >>"$dir/deb-apt.log" 2>&1 &&
		chr apt-get upgrade -y -qq >>"$dir/deb-apt.log" 2>&1 &&
		[ "$(dver)" = "$(val version "$env2")" ]; then
		ok "deb: apt-get upgrade $(val version "$env1") -> $(val version "$env2")"
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get upgrade to $(val version "$env2")" "upgrade failed"
	fi

	boot_installed deb "$root" "$env2"

	if chr apt-get purge -y -qq "linux-image-$kver" >>"$dir/deb-apt.log" 2>&1; then
		snapshot "$root" >"$dir/deb-after.txt"
		if diff "$dir/deb-before.txt" "$dir/deb-after.txt" >"$dir/deb-purge.diff"; then
			ok "deb: apt-get purge leaves the root as before the install"
		else
			diag <"$dir/deb-purge.diff"
			notok "deb: apt-get purge" "files left behind (above)"
		fi
	else
		tail -n 10 "$dir/deb-apt.log" | diag
		notok "deb: apt-get purge" "purge failed"
	fi
}

# ------------------------------------------------------------------ rpm
# A package providing /bin/sh (static busybox), for the scriptlets in a
# root that has nothing else.
make_sh_rpm() {
	local top2=$dir/rpm-sh busybox
	busybox=$(command -v busybox) || return 1
	mkdir -p "$top2/SPECS" "$top2/SOURCES"
	cp "$busybox" "$top2/SOURCES/busybox"
	cat >"$top2/SPECS/uc-test-sh.spec" <<-'EOF'
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
	EOF
	rpmbuild -bb --nodeps --define "_topdir $top2" \
		"$top2/SPECS/uc-test-sh.spec" >"$top2/build.log" 2>&1 || return 1
	cp "$top2"/RPMS/*/uc-test-sh-*.rpm "$dir/rpm-repo/"
}

test_rpm() {
	local env1 env2 kver root repo t0 lint
	build rpm 1 || return 0
	env1=$env
	build rpm 2 || return 0
	env2=$env
	kver=$(val kver "$env1")

	if command -v rpmlint >/dev/null; then
		lint=$(rpmlint -r "$top/packaging/rpm/kernel-hardened.rpmlintrc" \
			"$dir/rpm-1/rpmbuild/SPECS/kernel-hardened.spec" \
			"$dir"/rpm-1/kernel-hardened-*.rpm 2>&1 || true)
		diag <<<"$lint"
		if grep -qE '^[^ ]+: E: ' <<<"$lint"; then
			notok "rpm: rpmlint (spec, SRPM, RPM)" "errors, see above"
		else
			ok "rpm: rpmlint (spec, SRPM, RPM): no errors"
		fi
	else
		skip "rpm: rpmlint" "rpmlint not installed (apt-get install rpmlint)"
	fi

	if ! is_root; then
		skip "rpm: install, upgrade, boot, remove" "needs root (dnf --installroot)"
		return 0
	fi
	for t in dnf:dnf createrepo_c:createrepo-c busybox:busybox-static; do
		command -v "${t%%:*}" >/dev/null || {
			skip "rpm: install, upgrade, boot, remove" "${t%%:*} not installed (apt-get install ${t#*:})"
			return 0
		}
	done

	repo=$dir/rpm-repo root=$dir/rpm-root
	rm -rf "$repo" "$root"
	mkdir -p "$repo" "$root" "$dir/rpm-repos.d"
	make_sh_rpm || { notok "rpm: /bin/sh package for the empty root" "rpmbuild failed"; return 0; }
	cat >"$dir/rpm-repos.d/uc.repo" <<-EOF
	[uc]
	name=usercopy-backports local
	baseurl=file://$repo
	enabled=1
	gpgcheck=0
	EOF
	dnfc() {
		dnf -y -q --installroot="$root" --releasever=9 \
			--setopt=reposdir="$dir/rpm-repos.d" --setopt=cachedir="$dir/rpm-dnfcache" \
			--nogpgcheck --refresh "$@"
	}
	rpmv() { rpm --root "$root" -q --qf '%{VERSION}-%{RELEASE}\n' kernel-hardened; }
	# publish FILE.rpm: the repository holds /bin/sh and that one kernel.
	publish() {
		find "$repo" -name 'kernel-hardened-*' -delete
		cp "$1" "$repo/"
		createrepo_c -q "$repo"
	}

	publish "$(ls "$dir"/rpm-1/kernel-hardened-*.x86_64.rpm)"
	dnfc install uc-test-sh >"$dir/rpm-dnf.log" 2>&1 || true
	# What a distro's filesystem package owns, so removal is judged on
	# the kernel's own files only.
	mkdir -p "$root/boot" "$root/lib/modules" "$root/var/tmp"
	snapshot "$root" >"$dir/rpm-before.txt"
	t0=$(date +%s)
	if dnfc install kernel-hardened >>"$dir/rpm-dnf.log" 2>&1 &&
		[ "$(rpmv)" = "$(val version "$env1")" ] &&
		grep -qx 'CONFIG_HARDENED_USERCOPY=y' "$root/boot/config-$kver" &&
		[ -f "$root/boot/vmlinuz-$kver" ] && [ -d "$root/lib/modules/$kver" ]; then
		ok "rpm: dnf --installroot install kernel-hardened $(val version "$env1") ($(($(date +%s) - t0)) s)"
	else
		tail -n 10 "$dir/rpm-dnf.log" | diag
		notok "rpm: dnf install kernel-hardened" "install or file check failed"
		return 0
	fi

	publish "$(ls "$dir"/rpm-2/kernel-hardened-*.x86_64.rpm)"
	if dnfc upgrade kernel-hardened >>"$dir/rpm-dnf.log" 2>&1 &&
		[ "$(rpmv)" = "$(val version "$env2")" ]; then
		ok "rpm: dnf upgrade $(val version "$env1") -> $(val version "$env2") (one kernel-hardened installed)"
	else
		tail -n 10 "$dir/rpm-dnf.log" | diag
		rpmv | diag
		notok "rpm: dnf upgrade to $(val version "$env2")" "upgrade failed"
	fi

	boot_installed rpm "$root" "$env2"

	if dnfc remove kernel-hardened >>"$dir/rpm-dnf.log" 2>&1; then
		snapshot "$root" >"$dir/rpm-after.txt"
		if diff "$dir/rpm-before.txt" "$dir/rpm-after.txt" >"$dir/rpm-remove.diff"; then
			ok "rpm: dnf remove leaves the root as before the install"
		else
			diag <"$dir/rpm-remove.diff"
			notok "rpm: dnf remove" "files left behind (above)"
		fi
	else
		tail -n 10 "$dir/rpm-dnf.log" | diag
		notok "rpm: dnf remove" "remove failed"
	fi
}

echo "KTAP version 1"
echo "# package tests: KERNEL=$kernel ARCH=$arch formats: ${formats[*]}; work dir $dir"
for f in "${formats[@]}"; do
	case "$f" in
	deb)
		if command -v dpkg-buildpackage >/dev/null; then
			test_deb
		else
			skip "deb" "dpkg-buildpackage not installed (apt-get install dpkg-dev debhelper)"
		fi ;;
	rpm)
		if command -v rpmbuild >/dev/null; then
			test_rpm
		else
			skip "rpm" "rpmbuild not installed (apt-get install rpm)"
		fi ;;
	*) notok "$f" "unknown format (deb or rpm)" ;;
	esac
done
echo "1..$n"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
