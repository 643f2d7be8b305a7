"""The secret scan, rule by rule. Tokens are assembled at run time (see conftest)."""

from __future__ import annotations

import random
import string

import pytest

from lore.sanitize.secret_scan import SECRET_RULES, is_placeholder, mask, redact, scan_secrets

RNG = random.Random(7)


def r(size: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(size))


HEX = "0123456789abcdef"
B64 = string.ascii_letters + string.digits + "+/"
SAMPLES: dict[str, str] = {
    "secret/github-token": "token ghp_" + r(36),
    "secret/github-fine-grained-token": "github_pat_" + r(22) + "_" + r(59),
    "secret/gitlab-token": "glpat-" + r(20),
    "secret/aws-access-key-id": "AKIA" + r(16, string.ascii_uppercase + "234567"),
    "secret/aws-secret-access-key": "aws_secret_access_key = " + r(38, B64) + "9Q",
    "secret/gcp-api-key": "key=AIza" + r(35),
    "secret/gcp-oauth-client-secret": "GOCSPX-" + r(28),
    "secret/gcp-service-account-key": '"private_key_id": "' + r(40, HEX) + '"',
    "secret/azure-storage-key": "AccountKey=" + r(86, B64) + "==",
    "secret/azure-client-secret": "secret " + r(3) + "8Q~" + r(33) + " here",
    "secret/slack-token": "xoxb-" + r(12, string.digits) + "-" + r(24),
    "secret/slack-webhook": "https://hooks.slack.com/services/T" + r(8) + "/B" + r(8) + "/" + r(24),
    "secret/stripe-key": "sk_live_" + r(30),
    "secret/stripe-webhook-secret": "whsec_" + r(32),
    "secret/openai-api-key": "sk-proj-" + r(60),
    "secret/anthropic-api-key": "sk-ant-api03-" + r(90),
    "secret/npm-token": "npm_" + r(36),
    "secret/npmrc-auth-token": "//registry.example.org/:_authToken=" + r(30) + "9",
    "secret/pypi-token": "pypi-AgEIcHlwaS5vcmc" + r(60),
    "secret/private-key": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + r(70, B64) + "\n" + r(70, B64),
    "secret/jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyJ9." + r(43),
    "secret/url-credentials": "mysql://app:" + r(16) + "@db.internal/app",
    "secret/connection-string-password": "Server=db;Database=app;User Id=app;Password=" + r(14),
    "secret/sendgrid-api-key": "SG." + r(22) + "." + r(43),
    "secret/twilio-api-key": "SK" + r(32, HEX),
    "secret/mailchimp-api-key": r(32, HEX) + "-us14",
    "secret/digitalocean-token": "dop_v1_" + r(64, HEX),
    "secret/shopify-token": "shpat_" + r(32, HEX),
    "secret/huggingface-token": "hf_" + r(34, string.ascii_letters),
    "secret/databricks-token": "dapi" + r(32, HEX),
    "secret/square-token": "sq0atp-" + r(22),
    "secret/telegram-bot-token": "bot " + r(9, string.digits) + ":AA" + r(33),
    "secret/discord-webhook": "https://discord.com/api/webhooks/"
    + r(18, string.digits)
    + "/"
    + r(68),
    "secret/vault-token": "hvs." + r(90),
    "secret/linear-api-key": "lin_api_" + r(40),
    "secret/age-secret-key": "AGE-SECRET-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    "secret/grafana-token": "glsa_" + r(32) + "_" + r(8, HEX),
    "secret/sentry-token": "sntrys_" + r(60),
    "secret/postman-api-key": "PMAK-" + r(24, HEX) + "-" + r(34, HEX),
    "secret/doppler-token": "dp.pt." + r(43),
    "secret/atlassian-api-token": "ATATT3" + r(180),
    "secret/authorization-header": "Authorization: Bearer " + r(30) + "7",
    "secret/password-assignment": 'db_password = "Tr0ub4dor&3x"',
    "secret/generic-high-entropy": "client_secret: " + r(30) + "5",
}


def test_there_are_at_least_25_high_confidence_rules_and_a_sample_for_each() -> None:
    specific = [rule for rule in SECRET_RULES if rule.specific]
    assert len(specific) >= 25
    assert set(SAMPLES) == {rule.id for rule in SECRET_RULES}


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_rule_finds_its_secret(rule: str) -> None:
    text = f"Some prose.\n{SAMPLES[rule]}\nMore prose."
    matches = scan_secrets(text)
    assert rule in {m.rule for m in matches}
    for match in matches:
        assert match.value not in match.masked
        assert text[match.start : match.end] == match.value


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it",
        "request 123e4567-e89b-42d3-a456-426614174000 failed",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "Authorization: Bearer <TOKEN>",
        "api_key: YOUR_API_KEY_HERE",
        "token: xxxxxxxxxxxxxxxxxxxxxxxx",
        "password: ********",
        "password = os.environ.get('DB_PASSWORD')",
        "PGPASSWORD=$DB_PASSWORD psql",
        "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
        "secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:payments/stripe-AbCdEf",
        "the token bucket refills 500 tokens per second",
        "Passwords: at least 16 characters, rotated each quarter",
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "git@github.com:acme/repo.git",
        "https://user:password@proxy.local:3128",
        "secret_file: /etc/app/secrets/db-password-2024",
        "image@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ],
)
def test_look_alikes_are_not_secrets(text: str) -> None:
    assert scan_secrets(text) == []


def test_vault_placeholders_are_allowed() -> None:
    value = "ghp_" + "Q" * 4 + r(32)
    assert scan_secrets(f"token {value}")
    assert scan_secrets(f"token {value}", allowed=[value]) == []


def test_mask_shows_only_the_public_prefix_and_the_length() -> None:
    value = "sk_live_" + r(30)
    assert mask(value, 8) == "sk_live_…[38 characters hidden]"
    assert mask(value) == "…[38 characters hidden]"
    assert redact(f"x {value} y", [value]) == "x …[38 characters hidden] y"


def test_placeholders() -> None:
    assert is_placeholder("${TOKEN}")
    assert is_placeholder("<your-token>")
    assert is_placeholder("changeme")
    assert is_placeholder("$DB_PASSWORD")
    assert not is_placeholder(r(30))


def test_masking_a_json_answer_masks_each_string_as_alone() -> None:
    """`mask_secrets_in` tries on each string only the rules whose keywords appear in
    some string of the answer: the masks are those of `mask_secrets` string by string,
    for every rule's sample, alone and mixed with prose and look-alikes."""
    from lore.sanitize.secret_scan import mask_secrets, mask_secrets_in

    prose = ["The export job runs nightly.", "the token bucket refills", "", "ask the desk"]
    pieces = [*SAMPLES.values(), *prose]
    answers: list[object] = [{"results": [{"title": text, "tags": [text]}]} for text in pieces]
    mixed = RNG.sample(pieces, len(pieces))
    answers.append(
        {"results": [{"snippet": a, "title": b} for a, b in zip(mixed, pieces, strict=True)]}
    )
    answers.append({"query": prose[0], "count": 3, "ok": True, "none": None})

    def one_by_one(data: object) -> object:
        if isinstance(data, str):
            return mask_secrets(data)
        if isinstance(data, dict):
            return {key: one_by_one(value) for key, value in data.items()}
        if isinstance(data, list):
            return [one_by_one(value) for value in data]
        return data

    for answer in answers:
        assert mask_secrets_in(answer) == one_by_one(answer)
    masked = mask_secrets_in({"a": SAMPLES["secret/github-token"]})
    assert SAMPLES["secret/github-token"].split()[1] not in str(masked)
