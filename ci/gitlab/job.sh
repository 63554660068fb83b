#!/bin/bash
# One job of the GitLab pipeline (.gitlab-ci.yml, ci/gitlab/).
#
#   ci/gitlab/job.sh tree|apply|build|boot|package|soak|bench|report
#
# The job's variables say what: KERNEL, ARCH, ALLOC, HARDENED, FORMAT.
# Output goes under the project directory, for the job's artifacts:
# results/CELL/ (records, logs, KTAP; $RESULTS), export/KERNEL/, lava/CELL/,
# packages/, report/.  The job ends after UC_JOB_TIMEOUT seconds whatever
# runs it (GitLab enforces its own timeout; gitlab-ci-local does not):
# exit 124 and a line saying so.  Exit 77: the cell cannot exist (n/a).
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
step=${1:?STEP}
die() { echo "job.sh: error: $*" >&2; exit 1; }

if [ -z "${JOB_SH_TIMED:-}" ]; then
	limit=${UC_JOB_TIMEOUT:-3600}
	rc=0
	JOB_SH_TIMED=1 timeout -k 30 "$limit" bash "$0" "$@" || rc=$?
	[ "$rc" != 124 ] || echo "job.sh: $step stopped after UC_JOB_TIMEOUT=$limit s" >&2
	exit "$rc"
fi

cd "$top"
export RESULTS=${RESULTS:-$top/results}
mkdir -p "$RESULTS"
uckit() { python3 -m uckit "$@"; }
cell="${KERNEL:-}-${ARCH:-}-${ALLOC:-}-${HARDENED:-}"

case "$step" in
tree)
	uckit resolve --kernel "$KERNEL"
	;;
apply)
	rm -rf "export/$KERNEL"
	uckit export --kernel "$KERNEL" --out "export/$KERNEL"
	# The hardened copy every build of this kernel takes (ci/lib.sh),
	# then the audit of it: every insertion point wired.
	# shellcheck source=ci/lib.sh
	. "$top/ci/lib.sh"
	kernel_info "$KERNEL"
	rc=0
	source_to_build "$tree" "$state" "$key" || rc=$?
	[ "$rc" = 0 ] || die "apply of $KERNEL failed${apply_reason:+: $apply_reason}"
	uckit audit --kernel "$src" | tee "export/$KERNEL/audit.txt"
	;;
build)
	bash ci/boot-test.sh --build-only "$KERNEL" "$ARCH" "$ALLOC" "$HARDENED"
	;;
boot)
	rc=0
	UC_BOOT_ARTIFACTS="$top/lava/$cell" \
		bash ci/boot-test.sh --boot-only "$KERNEL" "$ARCH" "$ALLOC" "$HARDENED" || rc=$?
	uckit junit --results "$RESULTS" --out "$RESULTS/junit.xml"
	if [ -f "lava/$cell/cmdline.txt" ]; then
		# Where a lab fetches the image and initramfs: this job's
		# artifacts (a local run has no server: file:// paths).
		url="file://$top/lava/$cell"
		[ -z "${CI_JOB_ID:-}" ] || [ -z "${CI_PROJECT_URL:-}" ] ||
			url="$CI_PROJECT_URL/-/jobs/$CI_JOB_ID/artifacts/raw/lava/$cell"
		uckit lava --cell "$KERNEL:$ARCH:$ALLOC:$HARDENED" --out "lava/$cell" \
			--url "$url" --cmdline "$(cat "lava/$cell/cmdline.txt")"
	fi
	exit "$rc"
	;;
package)
	mkdir -p packages
	bash tests/package-test.sh --kernel "$KERNEL" --arch "$ARCH" \
		--format "$FORMAT" --dir "$top/packages/$KERNEL-$ARCH-$FORMAT"
	;;
soak)
	bash ci/soak.sh "$KERNEL" "$ARCH" "${HARDENED:-y}"
	;;
bench)
	bash ci/bench.sh "$KERNEL" "$ARCH" "${ALLOC:-bench}"
	;;
report)
	# The newest record per cell of this pipeline's results and the
	# committed records, into kernels/*.tsv and docs/matrix.md.
	mkdir -p report
	uckit matrix --results "$RESULTS" --record >report/matrix.txt
	uckit junit --results "$RESULTS" --out report/junit.xml
	cp docs/matrix.md report/matrix.md
	;;
*)
	die "unknown step $step (tree, apply, build, boot, package, soak, bench, report)"
	;;
esac
