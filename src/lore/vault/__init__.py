"""The vault on disk and the plumbing under it: files, git (and later gh)."""
