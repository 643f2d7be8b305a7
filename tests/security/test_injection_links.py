"""`injection/link-domain` on real prose: documentation links pass, risky links are flagged.

The prose below is written for these tests in the shape real ADRs have (measured on
public ADR repositories: eval/adr_injection.py): links to Wikipedia, cloud vendors'
docs and RFCs. Under the old github.com-only allow-list, every one of them warned.
"""

from __future__ import annotations

import pytest

from tests.security.curator_pr import NOTE, open_pull_request, review
from tests.support import Vault, note_text

ORDINARY = """\
## What
Billing retries use exponential backoff with full jitter, capped at 30 seconds.

## Why
Synchronised retries after an outage overload the provider again (the
[thundering herd problem](https://en.wikipedia.org/wiki/Thundering_herd_problem)).
AWS recommends full jitter in
[Exponential Backoff And Jitter](https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/)
and its [SDK retry behaviour](https://docs.aws.amazon.com/sdkref/latest/guide/feature-retry-behavior.html);
`Retry-After` is defined in [RFC 9110](https://www.rfc-editor.org/rfc/rfc9110#section-10.2.3)
and 429 in <https://datatracker.ietf.org/doc/html/rfc6585#section-4>. The Python
docs cover the clock we use: https://docs.python.org/3/library/time.html#time.monotonic
(see also [PEP 418](https://peps.python.org/pep-0418/)).
"""


def link_warnings(vault: Vault, body: str, **fields: str) -> list[str]:
    open_pull_request(vault, {NOTE: note_text(body=body, **fields)})
    return [f.message for f in review(vault).findings if f.rule == "injection/link-domain"]


def test_ordinary_documentation_links_pass(vault: Vault) -> None:
    assert (
        link_warnings(vault, ORDINARY, source="https://en.wikipedia.org/wiki/Exponential_backoff")
        == []
    )


@pytest.mark.parametrize(
    ("link", "reason"),
    [
        ("[the runbook](http://wiki.acme-corp.example/retries)", "plain http://"),
        ("[the status page](https://203.0.113.7/status)", "raw address"),
        ("[the guide](https://bit.ly/3xYz12)", "link shortener"),
        (
            "[the dashboard](https://grafana.acme-corp.example/d/x?token=9f8e7d6c5b4a)",
            "secret-looking",
        ),
        (
            "[the report](https://collect.example.net/r?d=QmlsbGluZyByZXRyaWVzIHVzZSBiYWNrb2ZmIGFuZCBqaXR0ZXI)",
            "characters: it can carry data out",
        ),
        ("[docs.aws.amazon.com](https://aws-docs.example.net/retries)", "link text names"),
        ("[the docs](https://docs.aws.amazon.com@evil.example.net/retry)", "before '@'"),
        ("[the docs](https://xn--80ak6aa92e.com/retry)", "internationalised"),
        ("[run it](javascript:alert(document.cookie))", "javascript:"),
    ],
)
def test_links_that_can_carry_data_out_or_hide_their_target_warn(
    vault: Vault, link: str, reason: str
) -> None:
    body = f"## What\nBilling retries use backoff with jitter; see {link}.\n"
    (message,) = link_warnings(vault, body)
    assert reason in message


def test_a_risky_link_in_any_frontmatter_value_warns(vault: Vault) -> None:
    body = "## What\nBilling retries use backoff with jitter.\n"
    assert link_warnings(vault, body, services="[billing, 'https://bit.ly/3xYz12']")


def test_trusted_domains_are_never_flagged(vault: Vault) -> None:
    body = "## What\nSee [the search](https://github.com/acme/payments/search?q=retry+jitter&type=code).\n"
    assert link_warnings(vault, body) == []


def test_the_strict_allow_list_is_a_setting(vault: Vault) -> None:
    settings = vault.root / "lore.toml"
    settings.write_text(
        settings.read_text(encoding="utf-8").replace(
            "only_allowed_link_domains = false", "only_allowed_link_domains = true"
        ),
        encoding="utf-8",
    )
    vault.commit("the strict allow-list")
    hosts = link_warnings(vault, ORDINARY)
    assert len(hosts) == 7  # one per host outside allowed_link_domains
    assert all("not in allowed_link_domains" in message for message in hosts)
