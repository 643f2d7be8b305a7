"""`lore site`: a static website of the vault's reviewed notes, for people to read.

What the site shows is what recall serves: the notes of the reviewed branch, read
through the index (`lore.site.content`), never the work tree. Each page is built at
build time — the markdown rendered with raw HTML off (`lore.site.markdown`), the
charts and the map drawn as SVG (`lore.site.chart`, `lore.site.graph`), the search
index written as a script (`lore.site.search`) — and the only script a page runs is
the site's own `assets/search.js`, which the Content-Security-Policy of every page
names as the one script allowed (`lore.site.layout`). Nothing is fetched from
anywhere else, so the site works from `file://` as it does on GitHub Pages.

Nothing below this package imports it: only the CLI does (DESIGN §4).
"""
