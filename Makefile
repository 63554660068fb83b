# usercopy-backports: hardened usercopy for LTS kernels that lack it.
# `make help` lists the verbs.  KERNEL is a version or branch from kernels/,
# a tarball, a source tree, or "debian" (Debian's linux-source package).

KERNEL   ?= debian
ARCH     ?= x86_64
ALLOC    ?= slub
HARDENED ?= y
OUT      ?=
FORMAT   ?= deb
CONFIG   ?=

PY := python3
DEBS := coccinelle quilt patch make gcc bc bison flex libelf-dev libssl-dev \
	cpio busybox-static ccache qemu-system-x86 gcc-i686-linux-gnu \
	libc6-dev-i386-cross linux-source-6.1 shellcheck xz-utils python3 \
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm \
	gcc-arm-linux-gnueabi libc6-dev-armel-cross \
	gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross \
	gcc-powerpc64-linux-gnu libc6-dev-ppc64-cross qemu-system-ppc \
	gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-system-misc \
	gcc-sparc64-linux-gnu libc6-dev-sparc64-cross qemu-system-sparc \
	util-linux kmod
PKG_DEBS := rpm rpmlint lintian createrepo-c dnf apt-utils mmdebstrap \
	debhelper dpkg-dev

.PHONY: help deps deps-package apply export audit boot-test boot-all boot-stale run package package-test matrix matrix-record bench check lint

help: ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

deps: ## install what the toolkit needs from Debian's archive (root)
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) >/dev/null

apply: ## hardened copy of KERNEL in OUT (atomic, audited, idempotent)
	@$(PY) ci/uckit.py apply '$(KERNEL)' '$(OUT)'

export: ## quilt series for KERNEL in OUT (patches with headers + series)
	@$(PY) ci/uckit.py export '$(KERNEL)' '$(OUT)'

audit: ## wiring audit of KERNEL (a tree): every insertion point, wired or not
	@$(PY) ci/uckit.py audit '$(KERNEL)'

boot-test: ## build KERNEL for ARCH/ALLOC/HARDENED, boot it in QEMU, run the suite
	@bash ci/boot-test.sh '$(KERNEL)' '$(ARCH)' '$(ALLOC)' '$(HARDENED)'

run: ## the main job on KERNEL (default: debian): apply, build, boot, summary
	@bash ci/run.sh '$(KERNEL)' '$(ARCH)'

package: ## distro packages of KERNEL: ARCH= FORMAT=deb|rpm OUT=DIR [CONFIG=.config]
	@bash ci/package.sh '$(KERNEL)' '$(ARCH)' '$(FORMAT)' '$(OUT)' '$(CONFIG)'

package-test: ## build, lint, install (apt/dnf), upgrade, boot and remove the packages
	@bash tests/package-test.sh --kernel '$(KERNEL)' --arch '$(ARCH)' --format '$(FORMAT)'

deps-package: ## the packaging tools as well (rpm, dnf, lintian, mmdebstrap...)
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBS) $(PKG_DEBS) >/dev/null

boot-all: ## every feasible kernel x arch cell of the cache (hours when cold), then make matrix
	@UC_BOOT_CELLS=all UC_BOOT_BUDGET=1000000 bash tests/run.sh --only boot; bash ci/matrix.sh --record

boot-stale: ## the cells of boot-all whose newest record did not run the current code, then make matrix-record
	@UC_BOOT_CELLS=stale UC_BOOT_BUDGET=1000000 bash tests/run.sh --only boot; bash ci/matrix.sh --record

matrix: ## the support matrix: kernels/matrix.tsv and this machine's newer boot-test results
	@bash ci/matrix.sh

matrix-record: ## this machine's newest boot-test results into kernels/matrix.tsv and README.md's tables
	@bash ci/matrix.sh --record >/dev/null

bench: ## instructions per stat() and pipe write+read, hardened vs off (QEMU -icount)
	@bash ci/bench.sh '$(KERNEL)' '$(ARCH)' '$(ALLOC)'

check: ## the tests (unit, semantic patch, real trees in the cache, boots)
	@bash tests/run.sh

lint: ## checkpatch on the kernel C, shellcheck on the scripts
	@bash tests/run.sh --only lint
