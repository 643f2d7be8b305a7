"""The optional model review: which pairs are asked about, of which provider."""
