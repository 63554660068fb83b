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

UCKIT := python3 -m uckit

.PHONY: help deps deps-package apply export audit boot-test soak boot-all boot-stale run package package-test matrix matrix-record bench check lint pipeline pipeline-file lava

help: ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

deps: ## install what the toolkit needs from Debian's archive (root)
	apt-get update -qq
	command -v python3 >/dev/null || apt-get install -y -qq python3 >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$($(UCKIT) deps) >/dev/null

apply: ## hardened copy of KERNEL in OUT (atomic, audited, idempotent)
	@$(UCKIT) apply --kernel '$(KERNEL)' --out '$(OUT)' --arch '$(ARCH)'

export: ## quilt series for KERNEL in OUT (patches with headers + series)
	@$(UCKIT) export --kernel '$(KERNEL)' --out '$(OUT)'

audit: ## wiring audit of KERNEL (a tree): every insertion point, wired or not
	@$(UCKIT) audit --kernel '$(KERNEL)'

boot-test: ## build KERNEL for ARCH/ALLOC/HARDENED, boot it in QEMU, run the suite
	@bash ci/boot-test.sh '$(KERNEL)' '$(ARCH)' '$(ALLOC)' '$(HARDENED)'

run: ## the main job on KERNEL (default: debian): apply, build, boot, summary
	@$(UCKIT) run --kernel '$(KERNEL)' --arch '$(ARCH)'

package: ## distro packages of KERNEL: ARCH= FORMAT=deb|rpm OUT=DIR [CONFIG=.config]
	@bash ci/package.sh '$(KERNEL)' '$(ARCH)' '$(FORMAT)' '$(OUT)' '$(CONFIG)'

package-test: ## build, lint, install (apt/dnf), upgrade, boot and remove the packages
	@bash tests/package-test.sh --kernel '$(KERNEL)' --arch '$(ARCH)' --format '$(FORMAT)'

deps-package: ## the packaging tools as well (rpm, dnf, lintian, mmdebstrap...)
	apt-get update -qq
	command -v python3 >/dev/null || apt-get install -y -qq python3 >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$($(UCKIT) deps --packaging) >/dev/null
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
	command -v gitlab-ci-local >/dev/null || npm install -g --silent gitlab-ci-local@4.73.0 >/dev/null || \
		echo "deps: npm install -g gitlab-ci-local@4.73.0 failed: make pipeline cannot run"

soak: ## distro-class KERNEL (defconfig or CONFIG=.config) on Debian 12 under stress-ng and real programs
	@bash ci/soak.sh $(if $(CONFIG),--config '$(CONFIG)') '$(KERNEL)' '$(ARCH)' '$(HARDENED)'

boot-all: ## every feasible kernel x arch cell of the cache (hours when cold; JOBS=N at a time), then make matrix-record
	@$(UCKIT) boot --cells all --jobs '$(or $(JOBS),1)'

boot-stale: ## the cells of boot-all whose newest record did not run the current code, then make matrix-record
	@$(UCKIT) boot --cells stale --jobs '$(or $(JOBS),1)'

matrix: ## the support matrix: kernels/matrix.tsv and this machine's newer boot-test results
	@python3 -m uckit matrix

matrix-record: ## this machine's newest boot-test results into kernels/matrix.tsv and docs/matrix.md
	@python3 -m uckit matrix --record >/dev/null

bench: ## instructions per system call, pipe, UDP and getdents op, hardened vs off (QEMU -icount)
	@bash ci/bench.sh '$(KERNEL)' '$(ARCH)' '$(if $(filter file,$(origin ALLOC)),bench,$(ALLOC))'

bench-work: ## whole workloads (git status/diff, hackbench, a C build) on the soak's kernel and image, hardened vs off (QEMU -icount)
	@bash ci/soak.sh --bench $(if $(CONFIG),--config '$(CONFIG)') '$(KERNEL)' '$(ARCH)' '$(HARDENED)'

pipeline: ## the GitLab pipeline's jobs for CELLS (KERNEL:ARCH:ALLOC:H ...) here, with gitlab-ci-local; JOBS=N at a time
	@bash ci/pipeline.sh -j '$(or $(JOBS),1)' $(CELLS)

pipeline-file: ## regenerate ci/gitlab/cells.yml (the pipeline's jobs) from kernels/ and uckit/arches/
	@$(UCKIT) pipeline --write

lava: ## LAVA job definitions (QEMU device type) of every boot cell, in OUT
	@$(UCKIT) lava --out '$(OUT)'

check: ## the tests (unit, semantic patch, real trees in the cache, boots)
	@bash tests/check.sh

lint: ## checkpatch on the kernel C, shellcheck on the scripts, pyflakes on the Python
	@bash tests/check.sh --only lint
