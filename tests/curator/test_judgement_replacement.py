"""Replacement as a judgement: the cues a note gives, the notes they name, and the verdict.

Pure functions first (`lore.curator.judgement.replacement`, `similarity.whole_note`,
`verdict.judge`), then the whole curator on a real git vault: the warning's rule, line,
quoted sentence and suggested `supersedes:` line, one warning per pair, and the
similar notes `lore review` and the pull-request comment show.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial

from lore.curator.judgement.claims import conflicts
from lore.curator.judgement.notes import profile
from lore.curator.judgement.replacement import replacement
from lore.curator.judgement.similarity import whole_note
from lore.curator.judgement.verdict import CONTRADICTION_FLOOR, REPLACEMENT, judge
from lore.curator.report.formats import to_json, to_markdown
from lore.curator.run import curate
from lore.curator.target import Drafts
from lore.note.records import number_of
from lore.text.clauses import claims
from lore.text.cue_sentences import Cue
from lore.text.cue_sentences import cues as read_cues
from lore.text.cues import HISTORY, REFERENCE, REPLACE, SUPERSEDE, SWITCH
from tests.curator.conftest import TODAY
from tests.curator.judged import Note, flat
from tests.support import Vault, note_text

OLD_ID = "forms--adr-0002-use-govuk-notify--2022-03-01"
OLD = Note(
    OLD_ID,
    "Use GOV.UK Notify for sending emails",
    "## What\nWe send confirmation emails through GOV.UK Notify.\n\n"
    "## Why\nNotify is free for government services and handles bounces.\n",
)


def cues(note: Note) -> tuple[Cue, ...]:
    """The sentences that say something is replaced (the notes named anywhere left out)."""
    return tuple(cue for cue in read_cues(note) if cue.kind != REFERENCE)


def new_note(body: str, title: str = "Use Amazon SES for submission emails") -> Note:
    return Note("forms--adr-0019-use-amazon-ses--2023-05-10", title, body)


# ---- cues ----


def test_each_kind_of_replacement_wording_is_a_cue() -> None:
    body = (
        "## What\nThis decision supersedes ADR 12.\n\nIt replaces the nightly export.\n\n"
        "We send mail with SES instead of Notify.\n\nPreviously the jobs ran on cron.\n\n"
        "The service answers in 200 ms.\n"
    )
    found = cues(Note("a--b--2026-01-01", "Faster mail", body))
    assert [cue.kind for cue in found] == [SUPERSEDE, REPLACE, SWITCH, HISTORY]
    assert found[0].numbers == (12,)
    assert found[2].text == "We send mail with SES instead of Notify."
    assert "notifi" in found[2].objects  # what it replaces: the words right after the cue


def test_a_cue_names_what_is_near_its_cue_word_only() -> None:
    long = (
        "## What\nIf a board is no longer supported it gets no updates of the system, "
        "the kernel or the add-ons that the installation described in ADR 15 ships.\n"
    )
    (cue,) = cues(Note("a--b--2026-01-01", "Boards", long))
    assert cue.numbers == ()  # "ADR 15" is far from "no longer"
    near = "## What\nThe decision moved from ADR 8 to this record.\n"
    (cue,) = cues(Note("a--b--2026-01-01", "Boards", near))
    assert cue.numbers == (8,)


def test_supersedes_takes_the_links_of_its_paragraph_and_numbers_in_lists() -> None:
    body = (
        "## Why\nThe original context is in [[web--adr-0018-workflows--2020-02-10]]. "
        "This record partially supersedes that decision.\n\n"
        "This ADR supersedes the decisions made in ADRs 60 and 61, but builds on them.\n"
    )
    first, second = cues(Note("a--b--2026-01-01", "Workflows", body))
    assert first.links == ("web--adr-0018-workflows--2020-02-10",)
    assert second.numbers == (60, 61)


def test_code_quotes_and_related_sections_give_no_cues() -> None:
    body = (
        "## What\nThe client retries three times.\n\n```\n# replaces the old client\n```\n\n"
        "## Related\n[[x--y--2020-01-01]] replaced by nothing\n"
    )
    assert cues(Note("a--b--2026-01-01", "Retries", body)) == ()


def test_the_number_of_an_imported_decision() -> None:
    assert number_of("tm--adr-060-go-api--2021-01-01") == 60
    assert number_of("forms--0002-use-notify--2022-01-01") == 2
    assert number_of("forms--adr015-idp--2022-01-01") == 15
    assert number_of("billing--2fa-codes--2022-01-01") is None
    assert number_of("not-an-id") is None


# ---- the verdict ----


def test_instead_of_the_old_subject_is_a_replacement() -> None:
    new = new_note("## What\nWe send submission emails with SES directly instead of Notify.\n")
    mine, theirs = profile(new), profile(OLD)
    found = replacement(cues(new), theirs, 0.3, flat, mine)
    assert found is not None and found.how == "subject"
    assert found.cue is not None and "instead of Notify" in found.cue.text
    too_far = replacement(cues(new), theirs, 0.05, flat, mine)  # not alike as whole notes
    assert too_far is None
    config = Note("a--adr-002-configuration--2016-05-16", "Configuration", "## What\nA.\n")
    example = Note(
        "a--adr-005-user-config--2016-06-01",
        "User-facing configuration",
        "## What\nAs an example, instead of writing the verbose configuration data, "
        "users call a short function.\n",
    )
    mentions = replacement(cues(example), profile(config), 0.3, flat, profile(example))
    assert mentions is None  # what it replaces ("writing the verbose data") is no note


def test_a_link_or_a_number_names_the_note_whatever_its_words() -> None:
    linked = new_note(f"## What\nMail goes through SES; this replaces [[{OLD_ID}]].\n")
    found = replacement(cues(linked), profile(OLD), 0.0, flat, profile(linked))
    assert found is not None and found.how == "links"
    numbered = new_note("## What\nMail goes through SES. This supersedes ADR 2.\n")
    found = replacement(cues(numbered), profile(OLD), 0.0, flat, profile(numbered))
    assert found is not None and found.how == "number"


def test_recalling_the_old_notes_own_replacement_replaces_nothing() -> None:
    old = Note(
        "infra--adr-0014-replace-terraform-cloud--2025-06-10",
        "Replace Terraform Cloud with an S3 state backend",
        "## What\nTerraform state moves from Terraform Cloud to S3.\n",
    )
    new = Note(
        "infra--adr-0019-pipelines--2025-10-16",
        "Restructure the pipelines",
        "## Why\nAfter our decision to replace Terraform Cloud "
        f"([[{old.id}]]) the old pipelines had nothing to run.\n",
    )
    assert replacement(cues(new), profile(old), 0.3, flat, profile(new), cues(old)) is None
    assert replacement(cues(new), profile(old), 0.3, flat, profile(new)) is not None


def test_the_same_title_taken_again_is_a_replacement_a_sibling_title_is_not() -> None:
    old = Note(
        "c--adr-0002-python--2019-01-01", "Minimum supported Python version", "## What\nA.\n"
    )
    again = Note(
        "c--adr-0020-python--2024-01-01", "Minimum supported Python version", "## What\nB.\n"
    )
    found = replacement((), profile(old), 0.4, flat, profile(again))
    assert found is not None and found.how == "retaken" and found.cue is None
    os_note = Note("h--adr-0015-os--2020-01-01", "Installation method: Home Assistant OS", "x")
    core = Note("h--adr-0016-core--2020-01-01", "Installation method: Home Assistant Core", "y")
    assert replacement((), profile(os_note), 0.4, flat, profile(core)) is None


def test_whole_note_likeness_is_a_weighted_cosine() -> None:
    one = profile(Note("a", "Kafka offsets", "## What\nCommit Kafka offsets after processing.\n"))
    same = profile(Note("b", "Kafka offsets", "## What\nCommit Kafka offsets after processing.\n"))
    other = profile(Note("c", "Invoices", "## What\nInvoices are emailed monthly.\n"))
    assert whole_note(one, same, flat) == 1.0
    assert whole_note(one, other, flat) == 0.0


def test_notes_alike_only_in_a_clause_never_contradict() -> None:
    """Two notes on different things that share a few words in two clauses (the real-ADR
    false alarm: a scanning decision against "we can't scan images yet")."""
    scanning = Note(
        "cp--scan-images--2022-01-05",
        "Image vulnerability scanning",
        "## What\nEvery image is scanned for vulnerabilities by a nightly Trivy job that "
        "posts critical findings to the owning team's Slack channel.\n",
        repo=("cloud-platform",),
    )
    registry = Note(
        "cp--ecr-for-user-images--2023-01-01",
        "User images live in ECR",
        "## What\nDevelopers push application containers to ECR, Amazon's container "
        "store, through the deployment pipeline. We can't scan images for vulnerabilities "
        "until they are deployed.\n\n## Why\nDocker Hub rate limits anonymous pulls, which "
        "broke three releases in March, and ECR sits close to the cluster, so new nodes "
        "start faster.\n",
        repo=("cloud-platform",),
    )
    mine, theirs = profile(registry), profile(scanning)
    assert conflicts(claims(registry), claims(scanning), flat)  # the clauses alone clash
    assert whole_note(mine, theirs, flat) < CONTRADICTION_FLOOR
    verdict = judge(mine, partial(claims, registry), theirs, partial(claims, scanning), flat, 0.42)
    assert verdict.conflict is None


# ---- through the curator ----

ACTIVE = note_text(
    title="Confirmation emails go through GOV.UK Notify",
    tags="[service/billing]",
    repo="payments-api",
    date="2025-03-01",
    body=(
        "## What\nConfirmation emails are sent through GOV.UK Notify.\n\n"
        "## Why\nNotify is free for government services and handles bounces.\n"
    ),
)
REPLACING = note_text(
    title="Confirmation emails go through Amazon SES",
    tags="[service/billing]",
    repo="payments-api",
    body=(
        "## What\nConfirmation emails are sent with Amazon SES.\n\n"
        "## Why\nWe call SES directly instead of GOV.UK Notify, because Notify strips the "
        "reply-to address processors rely on.\n"
    ),
)
ACTIVE_ID = "billing--emails-via-notify--2025-03-01"
NEW_PATH = "notes/billing--emails-via-ses--2026-11-02.md"


def test_a_replacing_note_gets_one_warning_with_its_sentence_and_supersedes_line(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault({ACTIVE_ID: ACTIVE})
    result = curate(vault.root, Drafts({NEW_PATH: REPLACING.encode()}), today=TODAY, similar=3)
    judged = [f for f in result.findings if f.rule.split("/")[0] in ("duplicate", "contradiction")]
    (found,) = [f for f in result.findings if f.rule == "lifecycle/may-supersede"]
    assert judged == []  # one warning for the pair: the replacement says it best
    assert found.severity == "warning"
    assert ACTIVE_ID in found.message and "instead of GOV.UK Notify" in found.message
    assert found.suggestion is not None
    assert f"`supersedes: [{ACTIVE_ID}]`" in found.suggestion
    lines = REPLACING.split("\n")
    assert "instead of GOV.UK Notify" in lines[found.line - 1]  # the sentence's own line
    (similar,) = [s for s in result.similar[NEW_PATH] if s.id == ACTIVE_ID]
    assert similar.verdict == REPLACEMENT and similar.suggestion == f"supersedes: [{ACTIVE_ID}]"
    data = to_json(result)
    assert data["similar"][NEW_PATH][0]["replacement"]["suggestion"] == similar.suggestion
    assert "replace one of these?" not in to_markdown(result)  # the warning says it


def test_with_no_replacement_flagged_the_comment_asks_about_the_nearest_notes(
    make_vault: Callable[..., Vault],
) -> None:
    related = note_text(
        title="Processors get a plain-text copy of each message",
        tags="[service/billing]",
        repo="payments-api",
        body=(
            "## What\nEach message sent through GOV.UK Notify carries a plain-text part next "
            "to the HTML.\n\n## Why\nSome processors read their mail in terminal clients.\n"
        ),
    )
    vault = make_vault({ACTIVE_ID: ACTIVE})
    path = "notes/billing--emails-plain-text--2026-11-02.md"
    result = curate(vault.root, Drafts({path: related.encode()}), today=TODAY, similar=3)
    assert not [f for f in result.findings if f.rule == "lifecycle/may-supersede"]
    assert [s.id for s in result.similar[path]] == [ACTIVE_ID]
    comment = to_markdown(result)
    assert "replace one of these?" in comment and ACTIVE_ID in comment, result.findings
    assert json.dumps(to_json(result))  # the similar notes are JSON too


def test_messages_show_words_not_stems_and_point_at_lines(
    make_vault: Callable[..., Vault],
) -> None:
    deploy = note_text(
        title="Deploys are frozen on Fridays",
        tags="[service/billing]",
        repo="payments-api",
        date="2025-04-01",
        body="## What\nProduction deploys are frozen on Fridays after noon.\n",
    )
    again = note_text(
        title="No deploys on Friday afternoons",
        tags="[service/billing]",
        repo="payments-api",
        body="## What\nProduction deploys are frozen on Friday afternoons.\n",
    )
    vault = make_vault({"billing--deploy-freeze--2025-04-01": deploy})
    path = "notes/billing--friday-deploys--2026-11-02.md"
    result = curate(vault.root, Drafts({path: again.encode()}), today=TODAY)
    (near,) = [f for f in result.findings if f.rule == "duplicate/near"]
    assert "deploys" in near.message and "deploi" not in near.message
    assert (
        near.line
        == again.split("\n").index("Production deploys are frozen on Friday afternoons.") + 1
    )


def test_a_contradiction_inside_one_change_says_so_and_points_at_its_clause(
    make_vault: Callable[..., Vault],
) -> None:
    vault = make_vault({})
    first = note_text(
        title="The billing dead-letter alert fires at 10 messages",
        tags="[service/billing]",
        repo="payments-api",
        date="2026-11-01",
        body="## What\nThe billing dead-letter topic alerts once 10 messages are waiting.\n",
    )
    second = note_text(
        title="The billing dead-letter alert threshold",
        tags="[service/billing]",
        repo="payments-api",
        date="2026-11-02",
        body="## What\nThe billing dead-letter alert fires once 100 messages are waiting.\n",
    )
    drafts = {
        "notes/billing--dlq-alert-10--2026-11-01.md": first.encode(),
        "notes/billing--dlq-alert-100--2026-11-02.md": second.encode(),
    }
    result = curate(vault.root, Drafts(drafts), today=TODAY)
    (found,) = [f for f in result.findings if f.rule.startswith("contradiction/")]
    assert "another note of this change" in found.message and "active" not in found.message
    text = (first if found.path.endswith("10--2026-11-01.md") else second).split("\n")
    assert "messages are waiting" in text[found.line - 1]
