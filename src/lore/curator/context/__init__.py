"""The change under review and the vault it joins, as the rules read them."""
