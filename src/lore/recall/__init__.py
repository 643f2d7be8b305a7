"""Ranked recall: query building (quoting, alias expansion), ranking with boosts, explain."""
