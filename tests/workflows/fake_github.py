"""A small stand-in for GitHub's REST API, as the `gh api` calls of the vault's workflows see it.

GitHub's API cannot be reached from a test, so `FakeGitHub` installs a `gh` that serves
the calls lore-curator.yml makes from a JSON state file, acting as the workflow token's
user, github-actions[bot], and running the real jq for `--jq` as gh does. Each endpoint
stands in for one documented behaviour:

- `GET repos/O/R/collaborators/LOGIN/permission`: the person's role. `role_name` is the
  full role (admin, maintain, write, triage, read); `permission` the legacy one, where
  maintain reads as write and triage as read
  (https://docs.github.com/en/rest/collaborators/collaborators#get-repository-permissions-for-a-user).
- `GET repos/O/R/pulls/N`: the pull request as it is now: state, head (sha, ref, repo),
  base, labels (https://docs.github.com/en/rest/pulls/pulls#get-a-pull-request).
- `DELETE repos/O/R/issues/N/labels/NAME`: removes one label; 404 when the pull request
  does not have it (https://docs.github.com/en/rest/issues/labels#remove-a-label-from-an-issue).
- `GET/POST repos/O/R/issues/N/comments`, `PATCH repos/O/R/issues/comments/ID`: list
  (paginated), create and update comments; a token updates only its own user's comments
  here (https://docs.github.com/en/rest/issues/comments).
- The job's token permissions (the runner hands them over in
  LORE_TEST_TOKEN_PERMISSIONS): a call the `permissions:` of the job do not allow gets
  GitHub's 403 "Resource not accessible by integration"; a read needs `pull-requests:
  read` (or write), a change `pull-requests: write`
  (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#permissions).

Any other call fails loudly, so a workflow that starts calling something new fails here
until the fake learns it (with the page it follows).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

BOT = "github-actions[bot]"
LEGACY = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read"}

FAKE_GH = """\
#!{python}
import json, os, re, subprocess, sys
state_path = os.environ["FAKE_GITHUB_STATE"]
with open(state_path, encoding="utf-8") as handle:
    state = json.load(handle)
args = sys.argv[1:]
permissions = json.loads(os.environ.get("LORE_TEST_TOKEN_PERMISSIONS") or "null") or {{}}
state["calls"].append({{"args": args, "permissions": permissions}})

def save():
    with open(state_path, "w", encoding="utf-8") as handle:
        json.dump(state, handle)

def fail(message, code=1):
    save()
    sys.stderr.write(message + "\\n")
    sys.exit(code)

def option(name, default=None):
    return args[args.index(name) + 1] if name in args else default

def emit(value):
    query = option("--jq")
    if query is None:
        print(json.dumps(value))
        return
    done = subprocess.run(["jq", "-r", query], input=json.dumps(value), text=True,
                          capture_output=True)
    if done.returncode:
        fail(done.stderr.strip())
    sys.stdout.write(done.stdout)

def allowed(write):
    level = permissions.get("pull-requests") or permissions.get("issues")
    if level != "write" and (write or level != "read"):
        fail("gh: Resource not accessible by integration (HTTP 403)")

if args[:1] != ["api"]:
    fail("fake gh: unexpected command " + " ".join(args))
method = option("--method", "GET")
skip = {{"--method", "--jq", "--input"}}
path = next(a for i, a in enumerate(args[1:], 1) if not a.startswith("-") and args[i - 1] not in skip)
repo = state["repository"]
match = re.fullmatch(r"repos/([^/]+/[^/]+)/(.*)", path)
if not match or match[1] != repo:
    fail("fake gh: not this repository: " + path)
rest = match[2]
comments = state["comments"]
if m := re.fullmatch(r"collaborators/([^/]+)/permission", rest):
    role = state["roles"].get(m[1], "read")
    emit({{"permission": {legacy}[role], "role_name": role, "user": {{"login": m[1]}}}})
elif m := re.fullmatch(r"pulls/(\\d+)", rest):
    allowed(write=False)
    pull = state["pulls"].get(m[1])
    if pull is None:
        fail("gh: Not Found (HTTP 404)")
    emit(pull)
elif (m := re.fullmatch(r"issues/(\\d+)/labels/([^/]+)", rest)) and method == "DELETE":
    allowed(write=True)
    labels = state["pulls"][m[1]]["labels"]
    if not any(label["name"] == m[2] for label in labels):
        fail("gh: Label does not exist (HTTP 404)")
    labels[:] = [label for label in labels if label["name"] != m[2]]
    emit(labels)
elif re.fullmatch(r"issues/\\d+/comments", rest) and method == "GET":
    allowed(write=False)
    pages = [comments[i:i + 2] for i in range(0, len(comments), 2)] or [[]]
    for page in pages if "--paginate" in args else pages[:1]:
        emit(page)
elif re.fullmatch(r"issues/\\d+/comments", rest) and method == "POST":
    allowed(write=True)
    with open(option("--input"), encoding="utf-8") as handle:
        body = json.load(handle)["body"]
    comment = {{"id": 100 + len(comments), "user": {{"login": "{bot}"}}, "body": body}}
    comments.append(comment)
    emit(comment)
elif (m := re.fullmatch(r"issues/comments/(\\d+)", rest)) and method == "PATCH":
    allowed(write=True)
    (comment,) = [c for c in comments if c["id"] == int(m[1])]
    if comment["user"]["login"] != "{bot}":
        fail("gh: Resource not accessible by integration (HTTP 403)")
    with open(option("--input"), encoding="utf-8") as handle:
        comment["body"] = json.load(handle)["body"]
    emit(comment)
else:
    fail("fake gh: unexpected API call " + method + " " + path)
save()
"""


class FakeGitHub:
    """The state behind the fake `gh`: one repository, its pull requests, roles, comments."""

    def __init__(self, folder: Path, repository: str) -> None:
        self.bin = folder / "fake-github-bin"
        self.bin.mkdir(parents=True, exist_ok=True)
        script = self.bin / "gh"
        script.write_text(
            FAKE_GH.format(python=sys.executable, legacy=repr(LEGACY), bot=BOT), encoding="utf-8"
        )
        script.chmod(0o755)
        self.path = folder / "fake-github-state.json"
        self.save({"repository": repository, "pulls": {}, "roles": {}, "comments": [], "calls": []})

    @property
    def env(self) -> dict[str, str]:
        return {"FAKE_GITHUB_STATE": str(self.path)}

    def load(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(self.path.read_text(encoding="utf-8"))
        return state

    def save(self, state: dict[str, Any]) -> None:
        self.path.write_text(json.dumps(state), encoding="utf-8")

    def update(self, **changes: Any) -> None:
        state = self.load()
        state.update(changes)
        self.save(state)

    def add_pull(self, event: dict[str, Any]) -> None:
        """The pull request of `event` as the API would show it now."""
        pull = json.loads(json.dumps(event["pull_request"]))
        pull.setdefault("state", "open")
        state = self.load()
        state["pulls"][str(pull["number"])] = pull
        self.save(state)

    def calls(self) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = self.load()["calls"]
        return calls
