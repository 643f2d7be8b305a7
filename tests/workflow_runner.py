"""Run a GitHub Actions workflow's own steps here, against real local git repositories.

GitHub's runner cannot run in a test, so `WorkflowRunner` stands in for it as far as
lore's workflows need, and fails loudly wherever it cannot (an unknown `uses:`, context
or function), so a workflow that calls a command, flag or package that does not exist
fails here first:

- A job's steps run in order. A `run:` step runs in bash as GitHub runs it (`bash
  --noprofile --norc -eo pipefail FILE` for `shell: bash`, `bash -e FILE` when no shell
  is named), with GitHub's environment variables (`GITHUB_*`, `RUNNER_TEMP`, `CI`) and
  the files `GITHUB_ENV`, `GITHUB_OUTPUT`, `GITHUB_PATH` and `GITHUB_STEP_SUMMARY`,
  read back after each step as the runner does. `if:`, `continue-on-error`,
  `working-directory`, `defaults.run` and step outputs work as documented.
- `${{ … }}` in `if:`, `env:`, `with:`, `run:` and job names is evaluated from a small
  fake context (`github`, `env`, `inputs`, `secrets`, `steps`, `matrix`, `runner`,
  `vars`) by `tests.workflow_expressions` (GitHub's expression syntax).
- `uses:` is replaced: `actions/checkout` by a git fetch of a local repository standing
  for the GitHub one (its `origin` is the github.com URL, which the runner's own
  `~/.gitconfig` maps to the local repository with `url.<path>.insteadOf`);
  `actions/setup-python` by the test's base Python (never its virtual environment, so
  nothing the test installed leaks in); `actions/upload-artifact` by a copy; a
  composite action (lore's `action.yml`, as `OWNER/gh-lore@SHA` or `./`) by its own
  steps, with `GITHUB_ACTION_PATH` set to a copy of the action's repository.
- GitHub Pages cannot exist here. `actions/upload-pages-artifact` is replaced by what
  its README and action.yml document: one `artifact.tar` of the folder named by `path`,
  without `.git`, `.github` and hidden files, uploaded as the artifact `github-pages`
  (or `name`). `actions/deploy-pages` by what its README documents it needs and does:
  the job's token must grant `pages: write` and `id-token: write` and the artifact
  must exist (else the step fails); the "deployment" unpacks it into the runner's
  `pages/` folder, the site GitHub would serve, and sets the output `page_url`.
- PATH holds the system's folders and what steps add, never the test's virtual
  environment: `lore` exists in a step only if the workflow set it up.
- `run_workflow` runs every job of a file in the order of their `needs:`, each on a
  fresh runner (its own workspace, home and RUNNER_TEMP) as GitHub does, with the
  `needs` context (each needed job's `result` and `outputs`), job-level `outputs:`, and
  a job-level `if:` whose status functions look at the needed jobs. Artifacts are shared
  by the jobs of one run: `actions/upload-artifact` copies into a folder named after the
  artifact, `actions/download-artifact` copies it back (and fails, as GitHub does, when
  no artifact of that name exists).
- `pull_request_target` runs as GitHub documents it: GITHUB_SHA is the base branch's
  tip and GITHUB_REF the base branch, so a checkout without `ref:` gets the base
  (`GitHubContext.pull_request_target` builds that context from a pull request's event).
- Each step sees the job's token permissions (its `permissions:`, else the workflow's) as
  JSON in `LORE_TEST_TOKEN_PERMISSIONS`, so a fake of GitHub's API can refuse what the
  token could not do (a write with `pull-requests: read`).

`step_scripts` replaces the script of a step by id, for a step that cannot run here; a
test that uses it says why. `actions/checkout` here insists on `persist-credentials:
false`, as lore's workflows all set it.

What it follows, in GitHub's documentation: the default shells and `defaults.run`
(https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_iddefaultsrunshell),
the environment files (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#environment-files),
the default variables (https://docs.github.com/en/actions/reference/workflows-and-actions/variables#default-environment-variables),
a step's implicit `success() &&` in `if:`
(https://docs.github.com/en/actions/reference/workflows-and-actions/expressions#status-check-functions),
jobs' `needs` and `outputs` (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds),
what `pull_request_target` sets (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#pull_request_target),
and composite actions, whose `run:` steps name their shell and see
`github.action_path` (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#runs-for-composite-actions).
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.workflow_expressions import evaluate, interpolate, is_truthy, to_text

SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
STEP_TIMEOUT = 300.0
STATUS_FUNCTIONS = ("success()", "failure()", "always()", "cancelled()")


@dataclass
class GitHubContext:
    """The `github` context of one run: the event and the repository it happened in."""

    event_name: str
    event: dict[str, Any]
    repository: str  # OWNER/NAME
    sha: str
    ref: str = "refs/heads/main"
    actor: str = "octocat"
    token: str = "ghs_fake-token-for-tests"
    run_id: str = "4242"
    server_url: str = "https://github.com"

    @classmethod
    def pull_request_target(
        cls, event: dict[str, Any], repository: str, base_tip: str, base_branch: str = "main"
    ) -> GitHubContext:
        """The context GitHub gives a `pull_request_target` run: the base branch's tip and
        ref, never the pull request's; the event payload names the pull request."""
        return cls("pull_request_target", event, repository, base_tip, f"refs/heads/{base_branch}")

    def as_context(self, workspace: Path, job: str, action_path: str | None) -> dict[str, Any]:
        owner = self.repository.split("/")[0]
        context = {
            "event_name": self.event_name,
            "event": self.event,
            "repository": self.repository,
            "repository_owner": owner,
            "sha": self.sha,
            "ref": self.ref,
            "ref_name": self.ref.rsplit("/", 1)[-1],
            "actor": self.actor,
            "token": self.token,
            "run_id": self.run_id,
            "run_number": "1",
            "run_attempt": "1",
            "server_url": self.server_url,
            "api_url": "https://api.github.com",
            "workspace": str(workspace),
            "job": job,
            "head_ref": self.event.get("pull_request", {}).get("head", {}).get("ref", ""),
            "base_ref": self.event.get("pull_request", {}).get("base", {}).get("ref", ""),
        }
        if action_path is not None:
            context["action_path"] = action_path
        return context


@dataclass
class StepResult:
    name: str
    id: str | None
    outcome: str  # success, failure or skipped
    output: str = ""
    outputs: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None
    seconds: float = 0.0  # wall time of a `run:` step
    env: dict[str, str] = field(default_factory=dict)  # a `run:` step's own `env:`, evaluated


@dataclass
class JobResult:
    job: str
    conclusion: str  # success or failure (or skipped, when the job's `if:` was false)
    steps: list[StepResult]
    summary: str
    artifacts: Path
    workspace: Path

    @property
    def log(self) -> str:
        return "\n".join(f"== {step.name} [{step.outcome}]\n{step.output}" for step in self.steps)

    def step(self, name_or_id: str) -> StepResult:
        for step in self.steps:
            if name_or_id in (step.id, step.name):
                return step
        raise KeyError(f"no step {name_or_id!r}; steps: {[s.name for s in self.steps]}")


@dataclass
class WorkflowRun:
    """Every job of one run of a workflow, by job id (a job whose `if:` was false: skipped)."""

    jobs: dict[str, JobResult]

    def __getitem__(self, job_id: str) -> JobResult:
        return self.jobs[job_id]

    @property
    def log(self) -> str:
        return "\n".join(f"=== job {job_id}\n{job.log}" for job_id, job in self.jobs.items())


@dataclass
class _Scope:
    """What a list of steps sees: the job's, or a composite action's."""

    env: dict[str, str]
    inputs: dict[str, Any]
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    action_path: str | None = None
    failed: bool = False


class WorkflowRunner:
    """Runs one job of a workflow file at a time; see the module docstring."""

    def __init__(
        self,
        scratch: Path,
        github: GitHubContext,
        *,
        repositories: dict[str, Path],
        actions: dict[str, Path] | None = None,
        secrets: dict[str, str] | None = None,
        inputs: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        extra_path: list[Path] | None = None,
        step_scripts: dict[str, str] | None = None,
        variables: dict[str, str] | None = None,
    ) -> None:
        self.scratch = scratch
        self.variables = variables or {}  # the `vars` context: repository variables
        self.github = github
        self.repositories = repositories  # OWNER/NAME -> a local git repository
        self.actions = actions or {}  # fnmatch pattern of OWNER/NAME -> the action's folder
        self.secrets = secrets or {}
        self.inputs = inputs or {}
        self.extra_env = env or {}
        self.extra_path = [str(p) for p in extra_path or []]
        self.step_scripts = step_scripts or {}
        self.added_path: list[str] = []
        self.job_env_file: dict[str, str] = {}
        self.home = scratch / "home"
        self.temp = scratch / "runner-temp"
        self.workspace = scratch / "workspace"
        self.artifacts = scratch / "artifacts"
        self.pages = scratch / "pages"  # what actions/deploy-pages "deployed"
        self.files = scratch / "runner-files"
        for folder in (self.home, self.temp, self.workspace, self.artifacts, self.files):
            folder.mkdir(parents=True, exist_ok=True)
        self._map_repositories()
        self.summary = ""
        self.counter = itertools.count()
        self.needs: dict[str, dict[str, Any]] = {}  # the `needs` context of the job running
        self.permissions: Any = None  # the running job's token permissions
        self.job_outputs: dict[str, str] = {}

    def _map_repositories(self) -> None:
        lines = []
        for name, path in self.repositories.items():
            url = f"{self.github.server_url}/{name}"
            lines += [f'[url "{path}"]', f"\tinsteadOf = {url}", f"\tinsteadOf = {url}.git"]
        (self.home / ".gitconfig").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def definition(self, path: str) -> Path:
        """The workflow file GitHub runs for this event: the one at GITHUB_SHA in the
        repository — the merge commit's for `pull_request` (the pull request's own copy),
        the base branch tip's for `pull_request_target` and `workflow_run`, the pushed
        commit's for `push`
        (https://docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows)."""
        source = self.repositories[self.github.repository]
        text = subprocess.run(
            ["git", "show", f"{self.github.sha}:{path}"],
            cwd=source, capture_output=True, check=True,
        ).stdout  # fmt: skip
        target = self.scratch / "definitions" / self.github.sha / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text)
        return target

    # ---- jobs ----

    def run_workflow(self, workflow: Path) -> WorkflowRun:
        """Every job, in the order of `needs:`, each on a fresh runner sharing the artifacts."""
        document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
        jobs: dict[str, Any] = document["jobs"]
        done: dict[str, JobResult] = {}
        outputs: dict[str, dict[str, str]] = {}
        while len(done) < len(jobs):
            ready = [
                job_id
                for job_id, job in jobs.items()
                if job_id not in done and all(need in done for need in _needs(job))
            ]
            if not ready:
                raise ValueError(f"{workflow}: the jobs' needs: form a cycle or name no job")
            for job_id in ready:
                runner = self._fresh(job_id)
                runner.needs = {
                    need: {"result": done[need].conclusion, "outputs": outputs[need]}
                    for need in _needs(jobs[job_id])
                }
                done[job_id] = runner.run_job(workflow, job_id)
                outputs[job_id] = runner.job_outputs
        return WorkflowRun(done)

    def _fresh(self, job_id: str) -> WorkflowRunner:
        runner = WorkflowRunner(
            self.scratch / "jobs" / job_id,
            self.github,
            repositories=self.repositories,
            actions=self.actions,
            secrets=self.secrets,
            inputs=self.inputs,
            env=self.extra_env,
            extra_path=[Path(p) for p in self.extra_path],
            step_scripts=self.step_scripts,
            variables=self.variables,
        )
        runner.artifacts = self.artifacts
        runner.pages = self.pages
        return runner

    def run_job(
        self, workflow: Path, job_id: str | None = None, *, matrix: dict[str, Any] | None = None
    ) -> JobResult:
        document = yaml.safe_load(workflow.read_text(encoding="utf-8"))
        jobs = document["jobs"]
        job_id = job_id or next(iter(jobs))
        job = jobs[job_id]
        if "uses" in job:
            raise NotImplementedError(f"{workflow}: job {job_id} calls a reusable workflow")
        matrix = matrix if matrix is not None else self._first_combination(job)
        scope = _Scope(env={}, inputs=self.inputs)
        context = self._context(scope, job_id, matrix)
        env: dict[str, str] = {}
        for source in (document.get("env") or {}, job.get("env") or {}):
            for key, value in source.items():
                context["env"] = env
                env[key] = interpolate(str(value), context)
        scope.env = env
        defaults = {
            **((document.get("defaults") or {}).get("run") or {}),
            **((job.get("defaults") or {}).get("run") or {}),
        }
        name = interpolate(str(job.get("name", job_id)), context)
        self.permissions = job.get("permissions", document.get("permissions"))
        condition = job.get("if", "success()" if self.needs else None)
        if condition is not None and not self._job_condition(condition, context):
            return JobResult(name, "skipped", [], "", self.artifacts, self.workspace)
        results: list[StepResult] = []
        timeout = float(job.get("timeout-minutes", 5)) * 60
        for step in job.get("steps", []):
            results += self._step(step, scope, job_id, matrix, defaults, timeout)
        conclusion = "failure" if scope.failed else "success"
        context = self._context(scope, job_id, matrix)
        self.job_outputs = {
            key: interpolate(to_text(value), context)
            for key, value in (job.get("outputs") or {}).items()
        }
        return JobResult(name, conclusion, results, self.summary, self.artifacts, self.workspace)

    def _job_condition(self, condition: Any, context: dict[str, Any]) -> bool:
        """A job's `if:`: its status functions look at the jobs it needs."""
        text = str(condition).strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = text[3:-2].strip()
        if not any(function in text.replace(" ", "") for function in STATUS_FUNCTIONS):
            text = f"success() && ({text})"
        failed = any(need["result"] != "success" for need in self.needs.values())
        return is_truthy(evaluate(text, context, {"failed": failed}))

    def run_action(self, action_dir: Path, with_: dict[str, Any] | None = None) -> JobResult:
        """Run a composite action on its own, as the only step of a job."""
        scope = _Scope(env={}, inputs=self.inputs)
        step = {"name": "action", "id": "action", "uses": str(action_dir), "with": with_ or {}}
        results = self._composite(step, action_dir, scope, "action", {}, STEP_TIMEOUT)
        conclusion = results[-1].outcome
        return JobResult(
            "action", conclusion, results, self.summary, self.artifacts, self.workspace
        )

    @staticmethod
    def _first_combination(job: dict[str, Any]) -> dict[str, Any]:
        matrix = ((job.get("strategy") or {}).get("matrix")) or {}
        return {key: values[0] for key, values in matrix.items() if isinstance(values, list)}

    def _context(self, scope: _Scope, job_id: str, matrix: dict[str, Any]) -> dict[str, Any]:
        return {
            "github": self.github.as_context(self.workspace, job_id, scope.action_path),
            "env": scope.env,
            "inputs": scope.inputs,
            "secrets": {"GITHUB_TOKEN": self.github.token, **self.secrets},
            "steps": scope.steps,
            "matrix": matrix,
            "vars": dict(self.variables),
            "runner": {"os": "Linux", "arch": "X64", "temp": str(self.temp)},
            "job": {"status": "failure" if scope.failed else "success"},
            "strategy": {},
            "needs": self.needs,
        }

    def _condition(self, condition: Any, context: dict[str, Any], scope: _Scope) -> bool:
        text = str(condition).strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = text[3:-2].strip()
        if not any(function in text.replace(" ", "") for function in STATUS_FUNCTIONS):
            text = f"success() && ({text})"
        status = {"failed": scope.failed}
        return is_truthy(evaluate(text, context, status))

    # ---- steps ----

    def _step(
        self,
        step: dict[str, Any],
        scope: _Scope,
        job_id: str,
        matrix: dict[str, Any],
        defaults: dict[str, Any],
        timeout: float,
    ) -> list[StepResult]:
        context = self._context(scope, job_id, matrix)
        name = interpolate(
            str(step.get("name") or step.get("uses") or step.get("run", "")), context
        )
        step_id = step.get("id")
        if not self._condition(step.get("if", "success()"), context, scope):
            if step_id:
                scope.steps[step_id] = {
                    "outputs": {},
                    "outcome": "skipped",
                    "conclusion": "skipped",
                }
            return [StepResult(name, step_id, "skipped")]
        env = dict(scope.env)
        env.update(self.job_env_file)
        context["env"] = env
        for key, value in (step.get("env") or {}).items():
            env[key] = interpolate(to_text(value), context)
        if "uses" in step:
            results = self._uses(step, name, env, context, scope, job_id, matrix, timeout)
            outcome = results[-1].outcome if results else "success"
            outputs = results[-1].outputs if results else {}
        else:
            script = self.step_scripts.get(step_id or "", step["run"])
            script = interpolate(script, context)
            shell = step.get("shell", defaults.get("shell"))
            folder = step.get("working-directory", defaults.get("working-directory"))
            cwd = self.workspace / interpolate(folder, context) if folder else self.workspace
            result = self._run(name, step_id, script, shell, env, cwd, scope, timeout)
            result.env = {key: env[key] for key in step.get("env") or {}}
            results, outcome, outputs = [result], result.outcome, result.outputs
        if outcome == "failure" and to_text(step.get("continue-on-error", False)) != "true":
            scope.failed = True
        if step_id:
            scope.steps[step_id] = {"outputs": outputs, "outcome": outcome, "conclusion": outcome}
        return results

    def _environment(
        self, env: dict[str, str], scope: _Scope, step_id: str | None
    ) -> dict[str, str]:
        github = self.github
        event_path = self.files / "event.json"
        event_path.write_text(json.dumps(github.event), encoding="utf-8")
        base = {
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "PATH": os.pathsep.join([*reversed(self.added_path), *self.extra_path, *SYSTEM_PATH]),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_REPOSITORY": github.repository,
            "GITHUB_REPOSITORY_OWNER": github.repository.split("/")[0],
            "GITHUB_EVENT_NAME": github.event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_SHA": github.sha,
            "GITHUB_REF": github.ref,
            "GITHUB_RUN_ID": github.run_id,
            "GITHUB_ACTOR": github.actor,
            "GITHUB_SERVER_URL": github.server_url,
            "GITHUB_API_URL": "https://api.github.com",
            "GITHUB_ACTION": step_id or "__run",
            "RUNNER_TEMP": str(self.temp),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "LORE_TEST_TOKEN_PERMISSIONS": json.dumps(self.permissions),
        }
        if scope.action_path is not None:
            base["GITHUB_ACTION_PATH"] = scope.action_path
        return {**base, **self.extra_env, **env}

    def _run(
        self,
        name: str,
        step_id: str | None,
        script: str,
        shell: str | None,
        env: dict[str, str],
        cwd: Path,
        scope: _Scope,
        timeout: float,
    ) -> StepResult:
        number = next(self.counter)
        files = {key: self.files / f"{key.lower()}-{number}" for key in
                 ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}  # fmt: skip
        for path in files.values():
            path.write_text("", encoding="utf-8")
        script_file = self.files / f"step-{number}.sh"
        script_file.write_text(script, encoding="utf-8")
        if shell in (None, "bash"):
            flags = ["--noprofile", "--norc", "-eo", "pipefail"] if shell == "bash" else ["-e"]
            command = ["bash", *flags, str(script_file)]
        elif shell == "sh":
            command = ["sh", "-e", str(script_file)]
        else:
            raise NotImplementedError(f"step {name!r}: shell {shell!r}")
        environment = self._environment(env, scope, step_id)
        environment.update({key: str(path) for key, path in files.items()})
        started = time.monotonic()
        try:
            completed = subprocess.run(
                command,
                cwd=cwd,
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                timeout=min(timeout, STEP_TIMEOUT),
                check=False,
            )
            output, code = completed.stdout.decode("utf-8", "replace"), completed.returncode
        except subprocess.TimeoutExpired as exc:
            output, code = f"{exc.output or b''!r}\n(timed out)", 124
        self.job_env_file.update(_key_values(files["GITHUB_ENV"].read_text("utf-8")))
        self.added_path += [
            line.strip()
            for line in files["GITHUB_PATH"].read_text("utf-8").splitlines()
            if line.strip()
        ]
        self.summary += files["GITHUB_STEP_SUMMARY"].read_text("utf-8")
        outputs = _key_values(files["GITHUB_OUTPUT"].read_text("utf-8"))
        outcome = "success" if code == 0 else "failure"
        seconds = time.monotonic() - started
        return StepResult(name, step_id, outcome, output, outputs, code, seconds)

    # ---- uses: ----

    def _uses(
        self,
        step: dict[str, Any],
        name: str,
        env: dict[str, str],
        context: dict[str, Any],
        scope: _Scope,
        job_id: str,
        matrix: dict[str, Any],
        timeout: float,
    ) -> list[StepResult]:
        uses = str(step["uses"])
        with_ = {
            key: interpolate(to_text(value), context)
            for key, value in (step.get("with") or {}).items()
        }
        step_id = step.get("id")
        if uses.startswith("./"):
            action_dir = self.workspace / uses[2:]
            return self._composite(
                {**step, "with": with_}, action_dir, scope, job_id, matrix, timeout
            )
        repo = uses.split("@", 1)[0]
        if repo == "actions/checkout":
            return [self._checkout(name, step_id, with_)]
        if repo == "actions/setup-python":
            return [self._setup_python(name, step_id)]
        if repo == "actions/upload-artifact":
            return [self._upload(name, step_id, with_)]
        if repo == "actions/download-artifact":
            return [self._download(name, step_id, with_)]
        if repo == "actions/upload-pages-artifact":
            return [self._upload_pages(name, step_id, with_)]
        if repo == "actions/deploy-pages":
            return [self._deploy_pages(name, step_id, with_)]
        for pattern, action_dir in self.actions.items():
            if fnmatch.fnmatchcase(repo, pattern):
                return self._composite(
                    {**step, "with": with_}, action_dir, scope, job_id, matrix, timeout
                )
        raise NotImplementedError(
            f"step {name!r} uses {uses}, which this runner cannot stand in for"
        )

    def _composite(
        self,
        step: dict[str, Any],
        action_dir: Path,
        outer: _Scope,
        job_id: str,
        matrix: dict[str, Any],
        timeout: float,
    ) -> list[StepResult]:
        action = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
        runs = action["runs"]
        if runs.get("using") != "composite":
            raise NotImplementedError(f"{action_dir}: only composite actions run here")
        scope = _Scope(env=dict(outer.env), inputs={}, action_path=str(action_dir))
        context = self._context(scope, job_id, matrix)
        given = step.get("with") or {}
        for key, spec in (action.get("inputs") or {}).items():
            default = interpolate(to_text((spec or {}).get("default", "")), context)
            scope.inputs[key] = given.get(key, default)
        unknown = set(given) - set(action.get("inputs") or {})
        if unknown:
            raise ValueError(f"{action_dir}/action.yml has no input {sorted(unknown)}")
        results: list[StepResult] = []
        for inner in runs["steps"]:
            if "run" in inner and "shell" not in inner:
                raise ValueError(f"{action_dir}/action.yml: a composite run step needs `shell:`")
            results += self._step(inner, scope, job_id, matrix, {}, timeout)
        context = self._context(scope, job_id, matrix)
        outputs = {
            key: interpolate(to_text(spec.get("value", "")), context)
            for key, spec in (action.get("outputs") or {}).items()
        }
        outcome = "failure" if scope.failed else "success"
        name = str(step.get("name") or step.get("uses"))
        results.append(
            StepResult(name, step.get("id"), outcome, "", outputs, 0 if outcome == "success" else 1)
        )
        return results

    def _git(self, cwd: Path, *args: str) -> None:
        env = {"HOME": str(self.home), "PATH": os.pathsep.join(SYSTEM_PATH), "LANG": "C.UTF-8",
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_TEMPLATE_DIR": ""}  # fmt: skip
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    def _checkout(self, name: str, step_id: str | None, with_: dict[str, str]) -> StepResult:
        repository = with_.get("repository") or self.github.repository
        source = self.repositories.get(repository)
        if source is None:
            raise KeyError(f"step {name!r} checks out {repository}, which the test did not provide")
        dest = self.workspace / with_.get("path", "")
        dest.mkdir(parents=True, exist_ok=True)
        own = repository == self.github.repository
        ref = with_.get("ref") or (self.github.sha if own else "")
        depth = int(with_.get("fetch-depth", "1") or 1)
        url = f"file://{source}"
        upload_pack = "--upload-pack=git -c uploadpack.allowAnySHA1InWant=true upload-pack"
        self._git(dest, "init", "-q")
        self._git(dest, "remote", "add", "origin", f"{self.github.server_url}/{repository}")
        if depth == 0:
            self._git(dest, "fetch", "-q", "--prune", url,
                      "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*")  # fmt: skip
        target = ref or "HEAD"
        shallow = [] if depth == 0 else [f"--depth={depth}"]
        self._git(
            dest, "fetch", "-q", *shallow, upload_pack, url, f"+{target}:refs/lore-test/checkout"
        )
        self._git(dest, "checkout", "-q", "--detach", "refs/lore-test/checkout")
        self._git(dest, "update-ref", "-d", "refs/lore-test/checkout")
        if with_.get("persist-credentials", "true") != "false":
            raise ValueError(f"step {name!r}: lore's workflows never keep checkout credentials")
        return StepResult(name, step_id, "success", f"checked out {repository} at {target}")

    def _setup_python(self, name: str, step_id: str | None) -> StepResult:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        base = Path(sys.base_prefix) / "bin" / f"python{version}"
        folder = self.scratch / "setup-python" / "bin"
        folder.mkdir(parents=True, exist_ok=True)
        for link in ("python", "python3", f"python{version}"):
            if not (folder / link).exists():
                (folder / link).symlink_to(base)
        self.added_path.append(str(folder))
        outputs = {"python-version": version, "python-path": str(folder / "python")}
        return StepResult(name, step_id, "success", f"Python {version} from {base}", outputs)

    def _upload(self, name: str, step_id: str | None, with_: dict[str, str]) -> StepResult:
        target = self.artifacts / with_.get("name", "artifact")
        found = [
            self.workspace / line.strip()
            for line in with_.get("path", "").splitlines()
            if line.strip()
        ]
        present = [path for path in found if path.exists()]
        if not present:
            return StepResult(name, step_id, "success", "Warning: no files were found to upload")
        target.mkdir(parents=True, exist_ok=True)
        for path in present:
            if path.is_dir():
                shutil.copytree(path, target / path.name, dirs_exist_ok=True)
            else:
                shutil.copy2(path, target / path.name)
        return StepResult(name, step_id, "success", f"uploaded {len(present)} path(s) to {target}")

    def _download(self, name: str, step_id: str | None, with_: dict[str, str]) -> StepResult:
        artifact = with_.get("name", "")
        source = self.artifacts / artifact
        if not artifact or not source.is_dir():
            return StepResult(
                name, step_id, "failure", f"Unable to download artifact(s): {artifact} not found"
            )
        target = self.workspace / with_.get("path", "")
        shutil.copytree(source, target, dirs_exist_ok=True)
        return StepResult(name, step_id, "success", f"downloaded {artifact} to {target}")

    def _upload_pages(self, name: str, step_id: str | None, with_: dict[str, str]) -> StepResult:
        folder = self.workspace / with_.get("path", "_site/")
        if not folder.is_dir():
            return StepResult(name, step_id, "failure", f"tar: {folder}: Cannot open")
        target = self.artifacts / with_.get("name", "github-pages")
        target.mkdir(parents=True, exist_ok=True)
        hidden = [] if with_.get("include-hidden-files") == "true" else ["--exclude=.[^/]*"]
        subprocess.run(
            ["tar", "--dereference", "--hard-dereference", "--directory", str(folder),
             "-cf", str(target / "artifact.tar"), "--exclude=.git", "--exclude=.github",
             *hidden, "."],
            check=True, capture_output=True,
        )  # fmt: skip
        return StepResult(name, step_id, "success", f"uploaded {folder} as {target.name}")

    def _deploy_pages(self, name: str, step_id: str | None, with_: dict[str, str]) -> StepResult:
        granted = self.permissions if isinstance(self.permissions, dict) else {}
        if granted.get("pages") != "write" or granted.get("id-token") != "write":
            return StepResult(
                name, step_id, "failure", 'Ensure GITHUB_TOKEN has permission "id-token: write".'
            )
        archive = self.artifacts / with_.get("artifact_name", "github-pages") / "artifact.tar"
        if not archive.is_file():
            return StepResult(name, step_id, "failure", "No artifacts named github-pages found")
        self.pages.mkdir(parents=True, exist_ok=True)
        subprocess.run(["tar", "-xf", str(archive), "-C", str(self.pages)], check=True)
        owner, repo = self.github.repository.split("/")
        url = f"https://{owner.lower()}.github.io/{repo}/"
        return StepResult(name, step_id, "success", f"deployed to {url}", {"page_url": url})


def _needs(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def _key_values(text: str) -> dict[str, str]:
    """`NAME=value` lines and `NAME<<DELIMITER` blocks, as in GITHUB_ENV and GITHUB_OUTPUT."""
    values: dict[str, str] = {}
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block: list[str] = []
            while index < len(lines) and lines[index] != delimiter:
                block.append(lines[index])
                index += 1
            index += 1
            values[key] = "\n".join(block)
        elif "=" in line:
            key, value = line.split("=", 1)
            values[key] = value
    return values
