"""CTS: when the deep-search budget runs out, the last round's output is scored (issue 31,
item 7): paper 001 extracts the candidate answer from the deep-search agent's final output
"by parsing the <answer> tag when present, with robust fallbacks" (§4.3, §5.2), so a final
output in words without an answer action is judged, not scored 0 unseen. A tool call there
is no answer and still scores 0."""

from __future__ import annotations

import pytest
from servers import FakeOpenAI, chat

from clarify_tui.cli import main
from clarify_tui.store import Store

SEARCH = '```json\n{"action": "search", "params": {"query": "James Webb first images"}}\n```'
PROSE = (
    "I ran out of searches, but here is what I found: the initial full-color pictures were published on "
    "12 July 2022 and included Webb's deep field of galaxy cluster SMACS 0723."
)


@pytest.mark.parametrize("last, scored", [(PROSE, True), (SEARCH, False)])
def test_the_last_rounds_output_is_scored_when_it_holds_words(tmp_path, monkeypatch, capsys, last, scored):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    calls = []

    def deep_search(request):
        calls.append(request)
        return chat(SEARCH if len(calls) == 1 else last)

    with FakeOpenAI(deep_search) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        db = tmp_path / "c.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "cts",
                    "--agent",
                    "scripted:ask-first",
                    "--deep-search",
                    "openai:ds-m",
                    "--max-rounds",
                    "2",
                    "--task-ids",
                    "cts-01",
                    "--config",
                    str(config),
                    "--db",
                    str(db),
                ]
            )
            == 0
        )
    capsys.readouterr()
    assert len(calls) == 2  # the budget: one search, then the last round
    [session] = Store(db).sessions()
    steps = Store(db).steps(session.id)
    judged = [s for s in steps if s.actor == "judge"]
    if scored:
        # n1 and n2 of cts-01 (weights 3 + 3 of 11) are in the words: scored, not 0
        assert session.result.answer == PROSE and session.result.restore_score == pytest.approx(600 / 11)
        answer = [s for s in steps if s.actor == "agent" and s.action.kind == "answer"][-1]
        assert answer.observation.data["fallback"] == "final output"
        assert "its text is scored" in answer.observation.text and judged
    else:
        assert session.result.restore_score == 0.0 and session.result.answer is None and not judged


def test_the_fallback_reads_an_unclosed_tag_drops_reasoning_and_refuses_json():
    from clarify_tui.llm.actions import final_output_answer

    assert final_output_answer("<think>hmm</think>Notes.\n<answer>Paris, 1889") == "Paris, 1889"
    assert final_output_answer("<think>hmm</think>It is Paris.") == "It is Paris."
    assert final_output_answer('{"action": "visit", "params": {"url": "https://x"}}') is None
    assert final_output_answer('{"note": "no action"}') is None
    assert final_output_answer("   ") is None
