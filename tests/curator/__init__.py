"""Tests of the curator: rules, sanitizer, `lore curate` and its output formats."""
