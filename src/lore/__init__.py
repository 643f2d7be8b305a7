"""lore: shared, reviewed memory for a team's AI coding agents."""

__version__ = "0.1.0"
