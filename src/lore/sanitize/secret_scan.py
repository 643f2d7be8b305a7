"""The secret scan: high-confidence token formats plus keyword-gated checks.

`scan_secrets(text)` returns `SecretMatch`es whose `masked` form is the only thing
any output may show: the token's public prefix (`ghp_`, `sk_live_`) and its length,
never the secret part. Placeholders pass: `${VAR}`, `<TOKEN>`, `xxxx`, values with
EXAMPLE in them (AWS's documented `AKIAIOSFODNN7EXAMPLE`), the documented test
tokens listed in `DOCUMENTED_EXAMPLES`, and whatever a vault lists in
`allowed_placeholders`.

It sits on the ground floor, beside the sanitizer, because every view masks with it:
`lore remember` and the drafts inbox before anything is saved or pushed, `lore show`,
the MCP server, `lore review`, `lore capture`, crash logs and the curator's reports.
The curator's `secret/` rule family (`lore.curator.rules.secret`) is built on it.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

_JSON = TypeVar("_JSON")
_S = r"(?<![A-Za-z0-9_])"  # start guard: not inside a longer word
_E = r"(?![A-Za-z0-9_])"  # end guard


@dataclass(frozen=True)
class SecretRule:
    id: str  # "secret/github-token"
    description: str  # "a GitHub token"
    pattern: re.Pattern[str]  # group "value" (or group 1) is the secret
    prefix: int = 0  # how many leading characters of the value are public (ghp_)
    validate: Callable[[str], bool] | None = None
    specific: bool = True  # False for the keyword-gated rules, which yield to specific ones
    # Lower-case strings one of which a match must contain: a cheap test before the regex.
    keywords: tuple[str, ...] = ()


def _jwt_header_ok(value: str) -> bool:
    head = value.split(".", 1)[0]
    try:
        decoded = base64.urlsafe_b64decode(head + "=" * (-len(head) % 4))
        data = json.loads(decoded)
    except (binascii.Error, ValueError):
        return False
    return isinstance(data, dict) and "alg" in data


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for char in value:
        counts[char] = counts.get(char, 0) + 1
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _classes(value: str) -> int:
    return sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )


_PATH = re.compile(r"^(?:[~.]?/)?[a-z0-9._-]+(?:/[a-z0-9._-]+)+/?$")


def _random_looking(value: str) -> bool:
    if _PATH.match(value):
        return False
    return entropy(value) >= 3.5 and _classes(value) >= 2 and any(c.isdigit() for c in value)


_REFERENCE = re.compile(r"^(?:[A-Z][A-Z0-9_]*|[A-Za-z_]+(?:\.[A-Za-z_]+)+|[a-z]+(?:[_-][a-z]+)*)$")


def _password_like(value: str) -> bool:
    """A literal password rather than a variable, path or word."""
    if len(value) < 6 or "/" in value or value.startswith(("~", "$", "%", "@")):
        return False
    if _REFERENCE.match(value):
        return False
    has_letter = any(c.isalpha() for c in value)
    return has_letter and any(not c.isalpha() for c in value)


def _rule(
    rule_id: str,
    description: str,
    pattern: str,
    prefix: int = 0,
    validate: Callable[[str], bool] | None = None,
    *,
    specific: bool = True,
    flags: int = 0,
) -> SecretRule:
    return SecretRule(rule_id, description, re.compile(pattern, flags), prefix, validate, specific)


_KEY_WORDS = (
    r"secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|"
    r"client[_-]?secret|signing[_-]?key|credentials?|passw(?:or)?d|pwd"
)

_RULES: tuple[SecretRule, ...] = (
    _rule(
        "secret/github-token",
        "a GitHub token",
        _S + r"(?P<value>gh[pousr]_[A-Za-z0-9]{36,251})" + _E,
        4,
    ),
    _rule(
        "secret/github-fine-grained-token",
        "a GitHub fine-grained token",
        _S + r"(?P<value>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})" + _E,
        11,
    ),
    _rule(
        "secret/gitlab-token",
        "a GitLab token",
        _S + r"(?P<value>gl(?:pat|dt|ptt|rt)-[A-Za-z0-9_-]{20,})(?![A-Za-z0-9_-])",
        6,
    ),
    _rule(
        "secret/aws-access-key-id",
        "an AWS access key id",
        r"(?<![A-Z0-9])(?P<value>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})"
        r"(?![A-Z0-9])",
        4,
    ),
    _rule(
        "secret/aws-secret-access-key",
        "an AWS secret access key",
        r"(?i:aws)[A-Za-z0-9_ .-]{0,20}?(?i:secret|sk)[A-Za-z0-9_ .-]{0,20}?"
        r"[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?P<value>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        0,
        _random_looking,
    ),
    _rule(
        "secret/gcp-api-key",
        "a Google API key",
        r"(?<![A-Za-z0-9_-])(?P<value>AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])",
        4,
    ),
    _rule(
        "secret/gcp-oauth-client-secret",
        "a Google OAuth client secret",
        r"(?P<value>GOCSPX-[A-Za-z0-9_-]{28})(?![A-Za-z0-9_-])",
        7,
    ),
    _rule(
        "secret/gcp-service-account-key",
        "a Google service-account private key id",
        r"\"private_key_id\"\s*:\s*\"(?P<value>[a-f0-9]{40})\"",
    ),
    _rule(
        "secret/azure-storage-key",
        "an Azure storage account key",
        r"(?i:AccountKey)=(?P<value>[A-Za-z0-9+/]{86}==)",
    ),
    _rule(
        "secret/azure-client-secret",
        "an Azure AD client secret",
        r"(?<![A-Za-z0-9_~.-])(?P<value>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})"
        r"(?![A-Za-z0-9_~.-])",
        0,
        _random_looking,
    ),
    _rule(
        "secret/slack-token",
        "a Slack token",
        r"(?<![A-Za-z0-9-])(?P<value>xox[abposre]-[0-9]{8,}-[A-Za-z0-9-]{8,})",
        5,
    ),
    _rule(
        "secret/slack-webhook",
        "a Slack webhook URL",
        r"(?P<value>https://hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9+/_-]{20,})",
        24,
    ),
    _rule(
        "secret/stripe-key",
        "a Stripe secret key",
        _S + r"(?P<value>(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,247})" + _E,
        8,
    ),
    _rule(
        "secret/stripe-webhook-secret",
        "a Stripe webhook signing secret",
        _S + r"(?P<value>whsec_[A-Za-z0-9]{32,})" + _E,
        6,
    ),
    _rule(
        "secret/openai-api-key",
        "an OpenAI API key",
        r"(?<![A-Za-z0-9_-])(?P<value>sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|"
        r"[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}))(?![A-Za-z0-9_-])",
        3,
    ),
    _rule(
        "secret/anthropic-api-key",
        "an Anthropic API key",
        r"(?P<value>sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{80,})",
        7,
    ),
    _rule("secret/npm-token", "an npm token", _S + r"(?P<value>npm_[A-Za-z0-9]{36})" + _E, 4),
    _rule(
        "secret/npmrc-auth-token",
        "an npm registry auth token",
        r"_authToken[ \t]*=[ \t]*(?P<value>[A-Za-z0-9_.+/=-]{20,})",
        0,
        _random_looking,
    ),
    _rule(
        "secret/pypi-token",
        "a PyPI upload token",
        r"(?P<value>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})",
        5,
    ),
    _rule(
        "secret/private-key",
        "a private key",
        r"-----BEGIN[ A-Z0-9_-]{0,30}PRIVATE KEY(?: BLOCK)?-----[ \t]*\n"
        r"(?:[A-Za-z-]+:[^\n]*\n)*\s*(?P<value>[A-Za-z0-9+/=]{40,}(?:\s*\n[A-Za-z0-9+/=]{8,})*)",
    ),
    _rule(
        "secret/jwt",
        "a JSON Web Token",
        r"(?<![A-Za-z0-9_-])(?P<value>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\."
        r"[A-Za-z0-9_-]{16,})(?![A-Za-z0-9_-])",
        0,
        _jwt_header_ok,
    ),
    _rule(
        "secret/url-credentials",
        "a password in a URL",
        r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@'\"`<>]{1,100}:(?P<value>[^\s@/'\"`<>]{1,200})@"
        r"[A-Za-z0-9.\[-]",
    ),
    _rule(
        "secret/connection-string-password",
        "a password in a connection string",
        r"(?i:\b(?:server|host|data source|user id|uid|database)[ \t]*=[^;\n]{0,200};[^\n]{0,400}?"
        r"\b(?:password|pwd)[ \t]*=[ \t]*)(?P<value>[^;'\"\s]{4,})",
    ),
    _rule(
        "secret/sendgrid-api-key",
        "a SendGrid API key",
        r"(?P<value>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])",
        3,
    ),
    _rule(
        "secret/twilio-api-key",
        "a Twilio API key",
        r"(?<![A-Za-z0-9])(?P<value>SK[0-9a-f]{32})(?![A-Za-z0-9])",
        2,
    ),
    _rule(
        "secret/mailchimp-api-key",
        "a Mailchimp API key",
        r"(?<![A-Za-z0-9])(?P<value>[0-9a-f]{32}-us[0-9]{1,2})(?![A-Za-z0-9])",
    ),
    _rule(
        "secret/digitalocean-token",
        "a DigitalOcean token",
        r"(?P<value>do[por]_v1_[a-f0-9]{64})(?![A-Za-z0-9])",
        7,
    ),
    _rule(
        "secret/shopify-token",
        "a Shopify token",
        r"(?P<value>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})(?![A-Za-z0-9])",
        6,
    ),
    _rule(
        "secret/huggingface-token",
        "a Hugging Face token",
        _S + r"(?P<value>hf_[A-Za-z]{34})" + _E,
        3,
    ),
    _rule(
        "secret/databricks-token",
        "a Databricks token",
        r"(?<![A-Za-z0-9])(?P<value>dapi[a-f0-9]{32}(?:-\d)?)(?![A-Za-z0-9])",
        4,
    ),
    _rule(
        "secret/square-token",
        "a Square token",
        r"(?P<value>sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43})(?![A-Za-z0-9_-])",
        7,
    ),
    _rule(
        "secret/telegram-bot-token",
        "a Telegram bot token",
        r"(?<![0-9])(?P<value>[0-9]{8,10}:AA[0-9A-Za-z_-]{33})(?![A-Za-z0-9_-])",
    ),
    _rule(
        "secret/discord-webhook",
        "a Discord webhook URL",
        r"(?P<value>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/"
        r"[A-Za-z0-9_-]{60,})",
    ),
    _rule(
        "secret/vault-token",
        "a HashiCorp Vault token",
        r"(?<![A-Za-z0-9_.-])(?P<value>hv[sbr]\.[A-Za-z0-9_-]{24,})(?![A-Za-z0-9_.-])",
        4,
    ),
    _rule(
        "secret/linear-api-key",
        "a Linear API key",
        r"(?P<value>lin_api_[A-Za-z0-9]{40})(?![A-Za-z0-9])",
        8,
    ),
    _rule(
        "secret/age-secret-key",
        "an age secret key",
        r"(?P<value>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})",
        15,
    ),
    _rule(
        "secret/grafana-token",
        "a Grafana token",
        r"(?P<value>glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})",
        4,
    ),
    _rule(
        "secret/sentry-token",
        "a Sentry auth token",
        r"(?P<value>sntry[su]_[A-Za-z0-9+/=_-]{40,})",
        7,
    ),
    _rule(
        "secret/postman-api-key",
        "a Postman API key",
        r"(?P<value>PMAK-[a-f0-9]{24}-[a-f0-9]{34})",
        5,
    ),
    _rule(
        "secret/doppler-token",
        "a Doppler token",
        r"(?P<value>dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44})",
        6,
    ),
    _rule(
        "secret/atlassian-api-token",
        "an Atlassian API token",
        r"(?P<value>ATATT3[A-Za-z0-9_=-]{150,})",
        6,
    ),
    _rule(
        "secret/authorization-header",
        "a credential in an Authorization header",
        r"(?i:\bauthorization[ \t]*[:=][ \t]*[\"']?(?:bearer|basic|token)[ \t]+)"
        r"(?P<value>[A-Za-z0-9._~+/=-]{16,})",
        0,
        _random_looking,
    ),
    _rule(
        "secret/password-assignment",
        "a password written out",
        r"(?i:(?:passw(?:or)?d|pwd)[A-Za-z0-9_.-]{0,40}[\"'`]?[ \t]*"
        r"(?::=|=>|=|:)[ \t]*)"
        r"(?:(?P<q>[\"'`])(?P<quoted>[^\"'`\n]{6,200})(?P=q)"
        r"|(?P<value>[^\s\"'`,;(){}\[\]<>]{6,200}))",
        0,
        _password_like,
        specific=False,
    ),
    _rule(
        "secret/generic-high-entropy",
        "a high-entropy value assigned to a secret-like name",
        r"(?i:(?:" + _KEY_WORDS + r")[A-Za-z0-9_.-]{0,40}[\"'`]?[ \t]*"
        r"(?::=|=>|=|:|\bis\b)[ \t]*[\"'`]?)(?P<value>[^\s\"'`,;:(){}\[\]<>]{16,300})",
        0,
        _random_looking,
        specific=False,
    ),
)

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "secret/github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "secret/github-fine-grained-token": ("github_pat_",),
    "secret/gitlab-token": ("glpat-", "gldt-", "glptt-", "glrt-"),
    "secret/aws-access-key-id": ("akia", "asia", "abia", "acca", "a3t"),
    "secret/aws-secret-access-key": ("aws",),
    "secret/gcp-api-key": ("aiza",),
    "secret/gcp-oauth-client-secret": ("gocspx-",),
    "secret/gcp-service-account-key": ("private_key_id",),
    "secret/azure-storage-key": ("accountkey=",),
    "secret/azure-client-secret": ("q~",),
    "secret/slack-token": ("xox",),
    "secret/slack-webhook": ("hooks.slack.com",),
    "secret/stripe-key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    "secret/stripe-webhook-secret": ("whsec_",),
    "secret/openai-api-key": ("sk-",),
    "secret/anthropic-api-key": ("sk-ant-",),
    "secret/npm-token": ("npm_",),
    "secret/npmrc-auth-token": ("_authtoken",),
    "secret/pypi-token": ("pypi-",),
    "secret/private-key": ("private key",),
    "secret/jwt": ("eyj",),
    "secret/url-credentials": ("://",),
    "secret/connection-string-password": ("password", "pwd"),
    "secret/sendgrid-api-key": ("sg.",),
    "secret/twilio-api-key": ("sk",),
    "secret/mailchimp-api-key": ("-us",),
    "secret/digitalocean-token": ("_v1_",),
    "secret/shopify-token": ("shpat_", "shpca_", "shppa_", "shpss_"),
    "secret/huggingface-token": ("hf_",),
    "secret/databricks-token": ("dapi",),
    "secret/square-token": ("sq0",),
    "secret/telegram-bot-token": (":aa",),
    "secret/discord-webhook": ("discord",),
    "secret/vault-token": ("hvs.", "hvb.", "hvr."),
    "secret/linear-api-key": ("lin_api_",),
    "secret/age-secret-key": ("age-secret-key-",),
    "secret/grafana-token": ("glsa_", "glc_"),
    "secret/sentry-token": ("sntrys_", "sntryu_"),
    "secret/postman-api-key": ("pmak-",),
    "secret/doppler-token": ("dp.",),
    "secret/atlassian-api-token": ("atatt3",),
    "secret/authorization-header": ("authorization",),
    "secret/password-assignment": ("passw", "pwd"),
    "secret/generic-high-entropy": (
        "secret", "token", "key", "credential", "passw", "pwd",
    ),
}  # fmt: skip
SECRET_RULES: tuple[SecretRule, ...] = tuple(
    replace(rule, keywords=_KEYWORDS[rule.id]) for rule in _RULES
)

# Documented example credentials that are safe to keep in notes.
DOCUMENTED_EXAMPLES = frozenset(
    {
        "AKIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
        "sk_test_26PHem9AhJZvU623DfE1x4sd",
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwia"
        "WF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    }
)

_PLACEHOLDER_MARKS = re.compile(
    r"\$\{|\$\(|\{\{|\}\}|<[^>]{0,100}>|%\(|%s\b|\.\.\.|…|x{4,}|X{4,}|\*{3,}|#{4,}|0{8,}|"
    r"example|sample|dummy|placeholder|changeme|change[_-]me|redacted|not[_-]a[_-]real|"
    r"your[_-]|fake|1234567|abcdefg|\bfoo\b|\bbar\b",
    re.IGNORECASE,
)
_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "token",
        "apikey",
        "api_key",
        "changeme",
        "admin",
        "root",
        "user",
        "username",
        "test",
        "none",
        "null",
        "empty",
        "redacted",
    }
)
_ENV_REFERENCE = re.compile(
    r"^(?:\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|"
    r"\$env:[A-Za-z_][A-Za-z0-9_]*)$"
)


_WHOLE_TEMPLATE = re.compile(
    r"^(?:\$\{[^}]*\}|\$\([^)]*\)|\{\{[^}]*\}\}|<[^>]{1,100}>|%\([^)]*\)s)$"
)


def is_placeholder(value: str, allowed: Iterable[str] = ()) -> bool:
    """True for values that stand in for a secret rather than being one.

    A placeholder must look like one as a whole: a known example, a template
    (`${TOKEN}`, `<your-token>`), a placeholder word, or a value whose marks
    (`example`, `xxxx`, `1234567`, ...) leave nothing random-looking behind. A real
    token that merely contains such a run (`ghp_1234567R8fK…`) is not a placeholder.
    """
    if value in DOCUMENTED_EXAMPLES or value in allowed:
        return True
    if value.lower() in _PLACEHOLDER_WORDS or _ENV_REFERENCE.match(value):
        return True
    if len(set(value)) <= 3 or _WHOLE_TEMPLATE.match(value):
        return True
    if not _PLACEHOLDER_MARKS.search(value):
        return False
    rest = _PLACEHOLDER_MARKS.sub("", value)
    return len(rest) < 8 or not _random_looking(rest)


def mask(value: str, prefix: int = 0) -> str:
    """The only form of a secret any output shows: its public prefix and its length."""
    shown = value[:prefix] if 0 < prefix < len(value) - 8 else ""
    return f"{shown}…[{len(value)} characters hidden]"


@dataclass(frozen=True)
class SecretMatch:
    rule: str
    description: str
    start: int  # offsets of the secret value in the scanned text
    end: int
    value: str
    masked: str


def scan_secrets(text: str, allowed: Iterable[str] = ()) -> list[SecretMatch]:
    """Every secret in `text`, specific formats first; placeholders are skipped."""
    return _scan(text, SECRET_RULES, frozenset(allowed))


def _scan(text: str, rules: tuple[SecretRule, ...], allowed: frozenset[str]) -> list[SecretMatch]:
    """`scan_secrets` with these of the rules (in `SECRET_RULES`' order)."""
    found: list[SecretMatch] = []
    taken: set[tuple[int, int]] = set()
    covered = bytearray(len(text))  # 1 where a value already found lies: overlaps in C
    lowered = text.lower()
    for rule in rules:
        if not any(keyword in lowered for keyword in rule.keywords):
            continue
        for match in rule.pattern.finditer(text):
            group = "value" if match["value"] is not None else "quoted"
            if group not in rule.pattern.groupindex or match[group] is None:
                continue
            value = match[group]
            start, end = match.span(group)
            if is_placeholder(value, allowed):
                continue
            if rule.validate is not None and not rule.validate(value):
                continue
            if (start, end) in taken or (not rule.specific and 1 in covered[start:end]):
                continue
            taken.add((start, end))
            covered[start:end] = b"\x01" * (end - start)
            found.append(
                SecretMatch(rule.id, rule.description, start, end, value, mask(value, rule.prefix))
            )
    found.sort(key=lambda m: (m.start, m.rule))
    return found


def redact(text: str, values: Iterable[str]) -> str:
    """`text` with each secret value replaced by its mask (longest first)."""
    for value in sorted(set(values), key=len, reverse=True):
        if value and value in text:
            text = text.replace(value, mask(value))
    return text


def mask_secrets(text: str) -> str:
    """`text` with every secret the scan finds replaced by its mask: what each view of a
    note prints (review, show, drafts, the MCP tools), whatever reached the note."""
    return redact(text, {match.value for match in scan_secrets(text)})


def mask_secrets_in(data: _JSON) -> _JSON:
    """A JSON-shaped value (dicts, lists, strings) with every string's secrets masked.

    Rules whose keywords are nowhere in the value's JSON (escaping changes no keyword)
    are not tried: `mask_secrets`' masks, in a fifth of the time on a recall's answer."""
    everything = json.dumps(data, ensure_ascii=False, default=str).lower()
    rules = tuple(rule for rule in SECRET_RULES if any(k in everything for k in rule.keywords))
    return cast("_JSON", _masked_value(data, rules)) if rules else data


def _masked_value(data: Any, rules: tuple[SecretRule, ...]) -> Any:
    if isinstance(data, str):
        return redact(data, {match.value for match in _scan(data, rules, frozenset())})
    if isinstance(data, dict):
        return {key: _masked_value(value, rules) for key, value in data.items()}
    return [_masked_value(value, rules) for value in data] if isinstance(data, list) else data
