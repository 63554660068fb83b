#!/bin/bash
# The GitLab pipeline on this machine, with gitlab-ci-local (shell
# executor): the chosen cells' jobs and the jobs they need, then the
# report job over their artifacts.
#
#   ci/pipeline.sh [-j N] [CELL|JOB ...]
#
# CELL is KERNEL:ARCH:ALLOC:HARDENED (its boot job, e.g.
# 4.4.220:x86_64:slub:y), JOB a job name (package:4.4.220:x86_64:deb;
# python3 -m uckit pipeline --list names them all).  Default: the newest
# backport on x86_64, hardened and control.  -j: jobs at a time (default 1).
# The checkout is never written: every job runs in a copy of the committed
# files (gitlab-ci-local --shell-isolation) and its artifacts stay under
# .gitlab-ci-local/artifacts/JOB/; the report's are the pipeline's matrix
# (docs/matrix.md, kernels/*.tsv) and report/junit.xml.
# Exit 0 only if every job passed (n/a cells, exit 77, are allowed).
set -eu
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
die() { echo "pipeline: error: $*" >&2; exit 1; }

jobs=1
if [ "${1:-}" = -j ]; then
	jobs=${2:?-j N}
	shift 2
fi
command -v gitlab-ci-local >/dev/null ||
	die "gitlab-ci-local is not installed (npm install -g gitlab-ci-local@4.73.0; make deps-package does it)"
git rev-parse --git-dir >/dev/null 2>&1 ||
	die "$top is not a git checkout (gitlab-ci-local runs the committed files)"
python3 -m uckit pipeline --check >/dev/null

if [ $# = 0 ]; then
	newest=$(python3 -c 'from uckit import plan, source; print(plan.newest_backport(source.manifests()))')
	set -- "$newest:x86_64:slub:y" "$newest:x86_64:slub:n"
fi
# A name that is no job is an error here, never "no names": gitlab-ci-local
# given none would run the whole pipeline.
list=$(python3 -m uckit pipeline --jobs "$@") || exit 1
mapfile -t names <<<"$list"
[ -n "${names[0]:-}" ] || die "no job to run"

# A run's report is of that run's jobs only: no artifacts of an earlier one.
rm -rf .gitlab-ci-local/artifacts .gitlab-ci-local/builds
glc=(gitlab-ci-local --shell-isolation --no-artifacts-to-source --concurrency "$jobs")
echo "pipeline: ${names[*]} and the jobs they need, $jobs at a time"
rc=0
"${glc[@]}" --needs "${names[@]}" || rc=$?
echo "pipeline: report"
"${glc[@]}" report || rc=1
art=.gitlab-ci-local/artifacts/report
if [ -f "$art/report/junit.xml" ]; then
	echo "pipeline: the matrix of this run: $art/docs/matrix.md; JUnit: $art/report/junit.xml"
	echo "pipeline: JUnit: $(grep -m1 -o 'tests="[0-9]*" failures="[0-9]*" skipped="[0-9]*"' "$art/report/junit.xml")"
fi
exit "$rc"
