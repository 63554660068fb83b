"""The GitLab pipeline (uckit/pipeline.py, ci/gitlab/): generated from the
data and never stale, jobs that need what they use, JUnit reports, LAVA
job definitions that lava-dispatcher accepts."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

from helpers import TOP
from uckit import UserError, arch, pipeline, plan, source

try:
    import yaml
except ImportError:  # python3-yaml: lava-dispatcher depends on it
    yaml = None

LAVA_PYTHON = "/usr/bin/python3"


def load_pipeline():
    """.gitlab-ci.yml with its includes, as one dict."""
    with open(os.path.join(TOP, ".gitlab-ci.yml")) as f:
        top = yaml.safe_load(f)
    out = {}
    for inc in top["include"]:
        with open(os.path.join(TOP, inc["local"])) as f:
            out.update(yaml.safe_load(f))
    return out


class Generated(unittest.TestCase):
    def test_cells_yml_is_current(self):
        with open(pipeline.CELLS_YML) as f:
            self.assertEqual(f.read(), pipeline.render(),
                             "ci/gitlab/cells.yml is stale: run make "
                             "pipeline-file")

    def test_cells_come_from_the_data(self):
        mans = source.manifests()
        ks = pipeline.kernels(mans)
        # Every manifest's kernel.org default, then Debian's 6.1.
        self.assertEqual(ks[-1], "debian")
        for b, m in mans.items():
            if m.get("default", "").count(".") == 2 and \
                    os.path.isfile(os.path.join(TOP, "series", b)):
                self.assertIn(m["default"], ks)
        cells = pipeline.cells(mans)
        host = plan.host_arch()
        newest = plan.newest_backport(mans)
        for cell in (("debian", host, "slub", "y"),
                     ("debian", host, "slub", "n"),
                     (newest, host, "slab", "y")):
            self.assertIn(plan.Cell(*cell), cells)
        # Every arch, and a profile cell, on the newest backport.
        for name in arch.names():
            self.assertIn(plan.Cell(newest, name, "slub", "y"), cells)
        self.assertTrue(any(c.alloc == "realbugs" for c in cells))

    def test_names(self):
        self.assertEqual(pipeline.jobs_of(["4.4.220:x86_64:slub:y"]),
                         ["boot:4.4.220:x86_64:slub:y"])
        with self.assertRaisesRegex(UserError, "KERNEL:ARCH:ALLOC:HARDENED"):
            pipeline.jobs_of(["4.4.220:x86_64"])
        with self.assertRaisesRegex(UserError, "no job of the pipeline"):
            pipeline.jobs_of(["4.4.999:x86_64:slub:y"])


@unittest.skipIf(yaml is None, "python3-yaml is not installed")
class Structure(unittest.TestCase):
    def setUp(self):
        self.p = load_pipeline()
        self.stages = self.p["stages"]
        self.jobs = {k: v for k, v in self.p.items()
                     if not k.startswith(".") and isinstance(v, dict)
                     and k not in ("variables", "default")}

    def template(self, job):
        """JOB's keys with its extends chain resolved (hashes merged
        deeply, as GitLab does)."""
        def merge(a, b):
            out = dict(a)
            for k, v in b.items():
                out[k] = merge(out[k], v) if isinstance(v, dict) and \
                    isinstance(out.get(k), dict) else v
            return out
        chain = [job]
        while "extends" in chain[-1]:
            chain.append(self.p[chain[-1]["extends"]])
        out = {}
        for part in reversed(chain):
            out = merge(out, part)
        return out

    def test_every_job_runs_job_sh_in_a_stage(self):
        for name, job in self.jobs.items():
            t = self.template(job)
            self.assertIn(t["stage"], self.stages, name)
            self.assertRegex(t["script"][0], r"^bash ci/gitlab/job\.sh \w+$",
                             name)
            self.assertIn("UC_JOB_TIMEOUT", t["variables"], name)

    def test_needs_point_back(self):
        for name, job in self.jobs.items():
            mine = self.stages.index(self.template(job)["stage"])
            for need in job.get("needs", []):
                self.assertIn(need, self.jobs, name)
                theirs = self.stages.index(
                    self.template(self.jobs[need])["stage"])
                self.assertLess(theirs, mine, "%s needs %s" % (name, need))

    def test_values_are_strings(self):
        # HARDENED: y is a boolean to YAML 1.1 unless quoted.
        for name, job in self.jobs.items():
            for k, v in job.get("variables", {}).items():
                self.assertIsInstance(v, str, "%s %s" % (name, k))

    def test_boot_needs_its_build(self):
        for name, job in self.jobs.items():
            if name.startswith("boot:"):
                self.assertEqual(job["needs"],
                                 ["build:" + name[len("boot:"):]])

    def test_report_is_last(self):
        self.assertEqual(self.stages[-1], "report")
        self.assertEqual(self.jobs["report"]["stage"], "report")

    def test_job_sh_knows_every_step(self):
        with open(os.path.join(TOP, "ci", "gitlab", "job.sh")) as f:
            text = f.read()
        for job in self.jobs.values():
            step = self.template(job)["script"][0].split()[-1]
            self.assertIn("\n%s)\n" % step, text)

    @unittest.skipIf(shutil.which("gitlab-ci-local") is None,
                     "gitlab-ci-local is not installed "
                     "(npm install -g gitlab-ci-local@4.73.0)")
    def test_gitlab_ci_local_accepts_it(self):
        r = subprocess.run(["gitlab-ci-local", "--list"], cwd=TOP,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        self.assertIn("boot:4.4.220:x86_64:slub:y", r.stdout)


class Junit(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def cell(self, name, result, verdicts=None, reason=""):
        d = os.path.join(self.dir, name)
        os.makedirs(d)
        with open(os.path.join(d, "cell.txt"), "w") as f:
            f.write("kernel=4.4.999\nstate=backport\narch=x86_64 alloc=%s "
                    "hardened=y\nbuild_s=1 boot_s=2\napplied=yes built=yes "
                    "booted=yes suite=1/1\ndate=2026-12-07 code=?\n"
                    "result=%s\n%s" % (name, result,
                                       "reason: %s\n" % reason if reason
                                       else ""))
        if verdicts is not None:
            with open(os.path.join(d, "verdicts.ktap"), "w") as f:
                f.write(verdicts)

    def test_cells_and_verdicts(self):
        self.cell("slub", "FAIL", "KTAP version 1\n1..2\nok 1 a\n"
                  "not ok 2 b # want x, got <y>\n")
        self.cell("slab", "build-failed", reason="ld: oops")
        self.cell("pagespan", "n/a", reason="no arch")
        root = ET.fromstring(pipeline.junit(self.dir))
        self.assertEqual((root.get("tests"), root.get("failures"),
                          root.get("skipped")), ("4", "2", "1"))
        suites = {s.get("name"): s for s in root}
        fail = suites["4.4.999 x86_64 slub hardened=y"]
        self.assertEqual(fail.find("testcase[@name='b']/failure")
                         .get("message"), "want x, got <y>")
        self.assertIn("ld: oops", suites["4.4.999 x86_64 slab hardened=y"]
                      .find("testcase/failure").get("message"))


class Lava(unittest.TestCase):
    def test_job_of_a_cell(self):
        cell = plan.Cell("4.4.220", "arm64", "realbugs", "y")
        text = pipeline.lava_job(cell, "https://x/{cell}".replace(
            "{cell}", "c"))
        self.assertIn("device_type: qemu", text)
        self.assertIn("url: https://x/c/Image", text)
        self.assertIn('-append "console=ttyAMA0 panic=-1 video=vfb:"', text)
        if yaml is not None:
            job = yaml.safe_load(text)
            self.assertEqual(job["context"]["arch"], "arm64")

    @unittest.skipIf(shutil.which("lava-run") is None or os.getuid() != 0,
                     "lava-run (apt-get install lava-dispatcher) as root")
    def test_lava_run_validates_a_cell_of_every_arch(self):
        # lava-run --validate checks more than the schema: the device
        # configuration uckit writes, the arch, QEMU, the files behind
        # the URLs (empty stand-ins here).
        d = tempfile.mkdtemp()
        try:
            for name in arch.names():
                facts = arch.get(name)
                if facts.unbuildable or shutil.which(facts.qemu) is None:
                    continue
                cell = "4.4.220:%s:slub:y" % name
                files = os.path.join(d, name)
                os.makedirs(files)
                for f in (os.path.basename(facts.image),
                          "initramfs.cpio.gz"):
                    open(os.path.join(files, f), "w").close()
                subprocess.run([sys.executable, "-m", "uckit", "lava",
                                "--cell", cell, "--device", "--out", files,
                                "--url", "file://" + files],
                               cwd=TOP, check=True, capture_output=True)
                base = os.path.join(files, "4.4.220-%s-slub-y" % name)
                r = subprocess.run(
                    ["lava-run", "--validate", "--job-id", "uc-validate",
                     "--output-dir", os.path.join(files, "out"),
                     "--device", base + ".device.yaml", base + ".yaml"],
                    capture_output=True, text=True, timeout=120)
                self.assertIn('"case": "validate", "definition": "lava", '
                              '"result": "pass"', r.stderr,
                              "%s: %s" % (name, r.stderr[-1500:]))
        finally:
            shutil.rmtree(d)
            shutil.rmtree("/var/lib/lava/dispatcher/tmp/uc-validate",
                          ignore_errors=True)

    @unittest.skipIf(not os.path.exists(LAVA_PYTHON) or subprocess.run(
        [LAVA_PYTHON, "-c", "import lava_common.schemas"],
        capture_output=True).returncode != 0,
        "lava-dispatcher is not installed (apt-get install lava-dispatcher)")
    def test_every_cell_validates(self):
        d = tempfile.mkdtemp()
        try:
            subprocess.run([sys.executable, "-m", "uckit", "lava", "--out", d],
                           cwd=TOP, check=True, capture_output=True)
            files = sorted(os.listdir(d))
            self.assertEqual(len(files), len(pipeline.cells()))
            code = ("import sys, yaml\n"
                    "from lava_common.schemas import validate\n"
                    "for p in sys.argv[1:]:\n"
                    "    validate(yaml.safe_load(open(p)))\n")
            r = subprocess.run([LAVA_PYTHON, "-c", code] +
                               [os.path.join(d, f) for f in files],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-2000:])
        finally:
            shutil.rmtree(d)
