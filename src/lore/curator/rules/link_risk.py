"""Which links deserve a reviewer's look (`injection/link-domain`), and why.

Ordinary prose links to documentation — Wikipedia, a cloud vendor's docs, an RFC — are
knowledge, not a hazard: 118 of 415 real ADRs drew a warning under a github.com-only
allow-list, and a warning on every fourth note teaches reviewers to skip warnings. So
by default a link is flagged only when it can carry data out or hide where it leads:

- a scheme that runs or embeds content (`javascript:`, `data:`, `vbscript:`, `file:`),
  or one that is not https (`http://`, `ftp://`: readable and rewritable on the way);
- a user name before the host (`https://github.com@example.net/`);
- a raw IP address, or an internationalised (punycode or non-ASCII) host name;
- a link shortener (`SHORTENERS`);
- a query value that is long or looks like a secret or an encoded payload;
- a link text that is itself a host or URL while the link goes to another host.

Hosts in `allowed_link_domains` (and this machine) are trusted and never flagged. A
vault that wants every new domain looked at sets `only_allowed_link_domains = true`:
then any link elsewhere is flagged, as before.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Iterator
from urllib.parse import parse_qsl, urlsplit

from lore.curator.rules.text import domain_allowed, quote, url_host, urls
from lore.text.markdown import CodeMap

SHORTENERS = frozenset(
    {
        "bit.ly", "bitly.com", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "v.gd",
        "buff.ly", "rebrand.ly", "cutt.ly", "shorturl.at", "tiny.cc", "rb.gy", "t.ly",
        "lnkd.in", "s.id", "bl.ink", "shorte.st", "adf.ly",
    }
)  # fmt: skip
RUNNING_SCHEMES = frozenset({"javascript", "data", "vbscript", "file"})
SECRET_KEYS = re.compile(
    r"(?:^|[_-])(?:token|secret|password|passwd|pwd|apikey|api[_-]?key|key|auth|"
    r"authorization|credentials?|session|sig|signature|access[_-]?token|private)(?:$|[_-])",
    re.IGNORECASE,
)
LONG_VALUE = 48  # characters of one query value; documentation queries are short
TOKEN_VALUE = 20  # a value this long mixing letters and digits looks like a token
# A link text that is itself a host or URL ("docs.aws.amazon.com", "https://x.dev/a"): a
# reader takes it for the destination. A bare host needs `www.` or a common top-level
# domain, so a file name such as README.md or setup.py is not read as one.
_TEXT_HOST = re.compile(
    r"(?:https?://(?P<any>[a-z0-9.-]+\.[a-z]{2,})"
    r"|(?P<www>www\.[a-z0-9.-]+\.[a-z]{2,})"
    r"|(?P<tld>(?:[a-z0-9-]+\.)+(?:com|org|net|io|dev|app|gov|edu|co|cloud|ai)))"
    r"(?::\d+)?(?:[/?#]\S*)?",
    re.IGNORECASE,
)
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*<?([^)\s>]+)>?")
WARNING_FIX = "Check where it leads; link the page itself over https, on a trusted domain."


def _varied(value: str) -> bool:
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _same_site(one: str, other: str) -> bool:
    """One host is the other or a sub-domain of it (docs.github.com and github.com)."""
    return one == other or one.endswith("." + other) or other.endswith("." + one)


def risk(url: str, text: str | None = None) -> str | None:
    """Why `url` (shown as `text`, for a markdown link) deserves a look, or None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return "the link cannot be read as a URL"
    scheme = parts.scheme.lower()
    host = url_host(url)
    if host is None:
        if scheme in RUNNING_SCHEMES:
            return f"a {scheme}: link runs or embeds content instead of pointing somewhere"
        return None
    if "@" in parts.netloc:
        return f"the text before '@' hides the real host, {quote(host, 60)}"
    if scheme != "https":
        return f"a plain {scheme}:// link can be read or rewritten on the way; use https"
    if _is_ip(host):
        return f"a link to the raw address {quote(host, 60)} hides who runs it"
    if not host.isascii() or any(label.startswith("xn--") for label in host.split(".")):
        return f"the host {quote(host, 60)} is internationalised and can imitate another name"
    if host in SHORTENERS:
        return f"{host} is a link shortener: it hides where the link leads"
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        name = quote(key, 30)
        if len(value) >= LONG_VALUE:
            return f"the query value '{name}' is {len(value)} characters: it can carry data out"
        if value and SECRET_KEYS.search(key):
            return f"the query sends '{name}=…', a secret-looking value"
        if len(value) >= TOKEN_VALUE and _varied(value) and " " not in value:
            return f"the query value '{name}' looks like a token or encoded data"
    shown = None if text is None else host_named_instead(url, text)
    if shown is not None:
        return f"the link text names {quote(shown, 60)} but the link goes to {quote(host, 60)}"
    return None


def host_named_instead(url: str, text: str) -> str | None:
    """The host a link's text names when the link goes to another host, else None.

    `[docs.github.com](https://evil.example/)` names docs.github.com: a reader takes the
    text for the destination. A text that names no host, or the link's own site (a
    sub-domain of it counts), is None. The curator flags such a link; the site shows
    where it really goes.
    """
    host = url_host(url)
    named = _TEXT_HOST.fullmatch(text.strip().strip("`<>"))
    if host is None or named is None:
        return None
    shown = next(group for group in named.groups() if group).lower().rstrip(".")
    if _same_site(shown.removeprefix("www."), host.removeprefix("www.")):
        return None
    return shown


def located_links(text: str, first_line: int) -> Iterator[tuple[int, str, str | None]]:
    """(line, url, link text or None) of each link outside code in `text`."""
    code = CodeMap(text)
    shown: dict[int, str] = {}
    for match in _MD_LINK.finditer(text):
        if match.start(2) not in code:
            shown[match.start(2)] = match[1]
    for offset, url in urls(text, code):
        yield first_line + text.count("\n", 0, offset), url, shown.get(offset)


def link_warnings(
    links: Iterable[tuple[int, str, str | None]],
    allowed: tuple[str, ...],
    *,
    strict: bool,
) -> Iterator[tuple[int, str]]:
    """(line, message) for each link worth a look, once per url and line."""
    seen: set[tuple[int, str]] = set()
    hosts: set[str] = set()
    for line, url, text in links:
        if (line, url) in seen:
            continue
        seen.add((line, url))
        host = url_host(url)
        if host is not None and domain_allowed(host, allowed):
            continue
        reason = risk(url, text)
        if reason is None and strict and host is not None and host not in hosts:
            hosts.add(host)
            reason = f"a link to {quote(host, 80)}, which is not in allowed_link_domains"
        if reason is not None:
            yield line, reason
