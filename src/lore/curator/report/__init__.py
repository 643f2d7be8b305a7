"""Findings for people and machines: JSON, GitHub annotations, the PR comment."""
