"""lore: shared, reviewed memory for a team's AI coding agents."""

__version__ = "0.1.0"

# Where lore is published: the GitHub repository of the gh extension and of the Action
# (action.yml), as OWNER/NAME. Its owner is not decided yet, so OWNER stands for it here
# and in pyproject.toml's [project.urls] (a test keeps the two equal); every doc that
# shows OWNER says what to put there: the account that hosts your copy of gh-lore.
HOME_REPOSITORY = "OWNER/gh-lore"
