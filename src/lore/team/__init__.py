"""The team loop, composed from the layers below.

`proposals/` (a note, or a change set, as a branch and a pull request), `drafts/` (the
local inbox of checked notes), `imports/` (existing knowledge brought in as proposals);
sync, init and connect; the gardener, drift and review; and the state of every
registered vault.
"""
