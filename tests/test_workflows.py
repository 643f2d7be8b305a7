"""The GitHub workflows and the Action pass zizmor and GitHub's schemas; lore comes from the lock.

zizmor runs offline (its online audits need GitHub's API, which cannot be reached here).
The Action (action.yml) installs lore from its own checkout with every dependency pinned
by hash in requirements/action.txt; these tests keep that lock complete and honest, and
keep every workflow off package indexes. tests/workflows/ runs the steps.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted(
    [
        *(ROOT / ".github" / "workflows").glob("*.yml"),
        *(ROOT / "vault-template" / ".github" / "workflows").glob("*.yml"),
        *(ROOT / "docs" / "workflows").glob("*.yml"),
    ]
)
ACTION = ROOT / "action.yml"
TRUSTED_CURATOR = ROOT / "vault-template" / ".github" / "workflows" / "lore-curator.yml"
LOCK = ROOT / "requirements" / "action.txt"
SHIM_LOCK = ROOT / "requirements" / "gh-lore.txt"  # the gh-lore shim's: the mcp extra too
BAD = ROOT / "tests" / "fixtures" / "workflows" / "insecure.yml"
# The Pythons the workflows and pyproject.toml allow (requires-python >= 3.10).
PYTHONS = ("3.10", "3.11", "3.12", "3.13")


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed; `pip install -e '.[test]'` installs it")
    return found


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def test_there_are_workflows() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"lore-curator.yml", "lore-garden.yml", "lore-drift.yml"} <= names
    assert "lore-comment.yml" not in names  # the trusted curator comments itself
    assert ACTION.is_file()


@pytest.mark.parametrize("persona", ["regular", "auditor"])
def test_workflows_pass_zizmor(persona: str) -> None:
    """Every finding is fixed, or ignored on its line with the reason next to it; the
    auditor persona reports what the regular one leaves out (concurrency, secrets outside
    an environment), and each of those is explained in the workflow too."""
    files = [*map(str, WORKFLOWS), str(ACTION)]
    result = run(tool("zizmor"), "--offline", "--persona", persona, *files)
    assert result.returncode == 0, result.stdout + result.stderr
    for path in [*WORKFLOWS, ACTION]:
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if "zizmor: ignore[" in line:
                before = "\n".join(lines[max(0, number - 8) : number + 1])
                assert before.count("#") >= 2, f"{path}:{number + 1}: an ignore needs its reason"


def test_workflows_match_the_schema() -> None:
    result = run(
        tool("check-jsonschema"),
        "--builtin-schema",
        "vendor.github-workflows",
        *map(str, WORKFLOWS),
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_action_matches_the_schema() -> None:
    result = run(tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", str(ACTION))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_bad_workflow_fails_the_lint() -> None:
    result = run(tool("zizmor"), "--offline", str(BAD))
    assert result.returncode != 0
    for audit in ("dangerous-triggers", "template-injection", "unpinned-uses", "artipacked"):
        assert audit in result.stdout, audit


def _uses(text: str) -> list[str]:
    return [line.split("uses:", 1)[1].split("#")[0].strip() for line in text.splitlines()
            if re.match(r"^\s*(-\s+)?uses:", line)]  # fmt: skip


def test_hardening_rules_hold() -> None:
    for path in [*WORKFLOWS, ACTION]:
        text = path.read_text(encoding="utf-8")
        if path != TRUSTED_CURATOR:
            assert "pull_request_target" not in text, path
        if path != ACTION:
            assert "permissions: {}" in text, path
        for uses in _uses(text):
            if uses.startswith("./"):
                continue  # this repository's own action, at the running commit
            ref = uses.split("@", 1)[1]
            assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{path}: {uses} is not pinned to a commit"
        if "actions/checkout" in text:
            assert "persist-credentials: false" in text, path


def test_the_trusted_curator_keeps_its_discipline() -> None:
    """pull_request_target runs the base's file with a token and secrets while the pull
    request's content is the attacker's (zizmor's dangerous-triggers): so no checkout of
    the pull request, no credentials kept, no pull-request text in a script except through
    env, and each job with its own least permissions."""
    text = TRUSTED_CURATOR.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    assert workflow["permissions"] == {}
    for job_id, job in workflow["jobs"].items():
        assert job.get("permissions"), f"{job_id} names its permissions"
        for step in job["steps"]:
            if "run" in step:
                assert "${{" not in step["run"], f"{job_id}: {step.get('name')}: use env:"
            if str(step.get("uses", "")).startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False
                assert step["with"].get("ref") == "${{ github.sha }}"  # the base, never the PR
    assert workflow["jobs"]["curate"]["permissions"] == {
        "contents": "read",
        "pull-requests": "read",
    }
    assert "secrets." not in yaml.safe_dump(workflow["jobs"]["comment"])
    assert "secrets." not in yaml.safe_dump(workflow["jobs"]["reset-approval"])


def test_no_workflow_installs_lore_from_a_package_index() -> None:
    """lore comes from the pinned commit through the action, never `pip install gh-lore`."""
    for path in [*WORKFLOWS, ACTION]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"pip\S*\s+install[^\n]*gh-lore", text), path
        assert "gh-lore==" not in text, path
    own_ci = ROOT / ".github" / "workflows"
    for path in WORKFLOWS:
        text = path.read_text(encoding="utf-8")
        if path.parent != own_ci and re.search(r"^\s+lore ", text, re.MULTILINE):
            assert [uses for uses in _uses(text) if uses.split("@")[0].endswith("/gh-lore")], (
                f"{path} runs lore without setting it up with the action"
            )


def test_the_vault_curator_runs_on_every_pull_request() -> None:
    """A required check skipped by a path filter stays pending and blocks the merge:
    https://docs.github.com/en/pull-requests/collaborating-with-pull-requests/collaborating-on-repositories-with-code-quality-features/troubleshooting-required-status-checks#handling-skipped-but-required-checks
    — and a job skipped by its `if:` reports success, so the check has no `if:` at all.
    """
    workflow = yaml.safe_load(TRUSTED_CURATOR.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"pull_request_target"}
    trigger = triggers["pull_request_target"]
    assert not trigger.get("paths") and not trigger.get("paths-ignore")
    assert not trigger.get("branches")
    assert {"opened", "synchronize", "reopened", "labeled", "unlabeled"} <= set(trigger["types"])
    job = workflow["jobs"]["curate"]
    assert job["name"] == "curate" and "if" not in job and "needs" not in job
    assert all("if" not in step for step in job["steps"][:-1])  # only the upload may skip


# ---- the lock the action installs from ----


def _lock() -> dict[str, tuple[str, str | None, list[str]]]:
    """name -> (pinned version, marker, hashes), from requirements/action.txt."""
    text = LOCK.read_text(encoding="utf-8").replace("\\\n", " ")
    entries: dict[str, tuple[str, str | None, list[str]]] = {}
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        spec, *options = line.split(" --hash=")
        requirement = Requirement(spec.strip())
        (specifier,) = list(requirement.specifier)
        assert specifier.operator == "==", line
        entries[requirement.name.lower()] = (
            specifier.version,
            str(requirement.marker) if requirement.marker else None,
            [option.strip() for option in options],
        )
    return entries


def test_every_locked_package_is_pinned_by_hash() -> None:
    lock = _lock()
    assert lock
    for name, (_, _, hashes) in lock.items():
        assert hashes, f"{name} has no hash"
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", value) for value in hashes), name


def test_the_lock_covers_lore_and_its_build_backend_on_every_python() -> None:
    """Each of pyproject's dependencies and build requirements is locked at a version it
    accepts, on each Python the workflows may use (the action installs with --no-deps
    only for lore itself, so a gap here fails the install)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [
        *map(Requirement, pyproject["project"]["dependencies"]),
        *map(Requirement, pyproject["build-system"]["requires"]),
    ]
    lock = _lock()
    for python in PYTHONS:
        environment = {"python_version": python, "python_full_version": f"{python}.0"}
        for requirement in wanted:
            if requirement.marker and not requirement.marker.evaluate(environment):
                continue
            name = requirement.name.lower()
            assert name in lock, f"{requirement} is not in {LOCK.name}"
            version, marker, _ = lock[name]
            assert marker is None or Marker(marker).evaluate(environment), (name, python)
            assert requirement.specifier.contains(Version(version)), (requirement, version)


def test_the_action_installs_from_the_lock_and_its_own_files() -> None:
    action = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    steps = {step.get("id"): step for step in action["runs"]["steps"]}
    install = steps["install"]
    assert install["env"]["LORE_SOURCE"] == "${{ github.action_path }}"
    script = install["run"]
    assert "--require-hashes" in script and "requirements/action.txt" in script
    assert "--no-deps --no-build-isolation --no-index" in script


def test_the_drift_workflow_in_the_docs_is_the_file() -> None:
    doc = (ROOT / "docs" / "keeping-the-vault-true.md").read_text(encoding="utf-8")
    marker = "keeps this copy equal to docs/workflows/lore-drift.yml -->\n```yaml\n"
    shown = doc[doc.index(marker) + len(marker) :].split("```\n", 1)[0]
    assert shown == (ROOT / "docs" / "workflows" / "lore-drift.yml").read_text(encoding="utf-8")


# ---- the gh-lore shim's lock (the developer's install, locked like the action's) ----


def _entries(path: Path) -> list[tuple[str, str, str | None, list[str]]]:
    """(name, pinned version, marker, hashes) of each requirement line; a name may repeat
    under different Python-version markers."""
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    entries = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        spec, *options = line.split(" --hash=")
        requirement = Requirement(spec.strip())
        (specifier,) = list(requirement.specifier)
        assert specifier.operator == "==", line
        marker = str(requirement.marker) if requirement.marker else None
        entries.append((requirement.name.lower(), specifier.version, marker, options))
    return entries


def test_the_shims_lock_is_pinned_by_hash_and_covers_the_mcp_extra_on_every_python() -> None:
    """What gh-lore's first run installs with `pip --require-hashes`: lore's dependencies,
    its `mcp` extra and its build backend, each at a version it accepts on every Python
    pyproject allows; compiled like the action's lock (docs/cli.md, "gh lore")."""
    entries = _entries(SHIM_LOCK)
    assert entries
    for name, _, _, hashes in entries:
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h.strip()) for h in hashes), name
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    wanted = [
        *map(Requirement, pyproject["project"]["dependencies"]),
        *map(Requirement, pyproject["project"]["optional-dependencies"]["mcp"]),
        *map(Requirement, pyproject["build-system"]["requires"]),
    ]
    for python in PYTHONS:
        environment = {"python_version": python, "python_full_version": f"{python}.0",
                       "sys_platform": "linux", "platform_system": "Linux"}  # fmt: skip
        chosen: dict[str, str] = {}
        for name, version, marker, _ in entries:
            if marker is None or Marker(marker).evaluate(environment):
                assert name not in chosen, f"{name} is pinned twice for Python {python}"
                chosen[name] = version
        for requirement in wanted:
            if requirement.marker and not requirement.marker.evaluate(environment):
                continue
            name = requirement.name.lower()
            assert name in chosen, f"{requirement} is not in {SHIM_LOCK.name} for {python}"
            assert requirement.specifier.contains(Version(chosen[name])), (requirement, python)
    header = SHIM_LOCK.read_text(encoding="utf-8").splitlines()[1]
    assert "--universal --generate-hashes" in header and "--extra mcp" in header


def test_the_shim_installs_from_its_lock_and_lore_without_dependencies() -> None:
    shim = (ROOT / "gh-lore").read_text(encoding="utf-8")
    assert 'lock="$here/requirements/gh-lore.txt"' in shim
    assert '--require-hashes --only-binary=:all: -r "$lock"' in shim
    assert '--no-deps --no-build-isolation --no-index "$here"' in shim
    assert '"$here[mcp]"' not in shim  # the old, unlocked install
