"""DiscoBench's `answer` action as the agent is told it (issue 31, item 6): under the paper's
`--checkpoints answer` a wrong intermediate answer fails that checkpoint and the run moves on,
unannounced, so the description must not say "a wrong one ends the task"; under `--checkpoints
strict` it does end the task, and the description says so."""

from __future__ import annotations

import pytest
from servers import FakeOpenAI, chat

from clarify_tui.cli import main

PAPER = "right or wrong, you then move on to the next checkpoint, and you are not told whether it was right"
STRICT = "A correct intermediate answer moves you to the next checkpoint; a wrong one ends the task."


@pytest.mark.parametrize("mode, said, unsaid", [(None, PAPER, STRICT), ("strict", STRICT, PAPER)])
def test_the_answer_description_says_what_a_wrong_intermediate_answer_does(
    tmp_path, monkeypatch, capsys, mode, said, unsaid
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(lambda _req: chat("I am not sure what to do.")) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "discobench",
                    "--agent",
                    "openai:agent-m",
                    "--limit",
                    "1",
                    "--config",
                    str(config),
                    "--db",
                    str(tmp_path / "d.db"),
                    *(["--checkpoints", mode] if mode else []),
                ]
            )
            == 0
        )
        prompts = [r.prompt for r in models.chat_requests("agent-m")]
    capsys.readouterr()
    assert prompts and all(said in p for p in prompts) and not any(unsaid in p for p in prompts)


def test_an_own_agent_is_told_the_checkpoint_mode(tmp_path, capsys):
    (tmp_path / "a.py").write_text(
        "from clarify_tui import Action\n"
        "class Probe:\n"
        "    def act(self, view):\n"
        "        return Action.answer(str(view.checkpoint_mode))\n",
        encoding="utf-8",
    )
    from clarify_tui.store import Store

    for mode in ("answer", "strict"):
        db = tmp_path / f"{mode}.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "discobench",
                    "--agent",
                    f"py:{tmp_path / 'a.py'}:Probe",
                    "--limit",
                    "1",
                    "--checkpoints",
                    mode,
                    "--db",
                    str(db),
                ]
            )
            == 0
        )
        [session] = Store(db).sessions()
        answers = [s.action.text for s in Store(db).steps(session.id) if s.actor == "agent"]
        assert answers and set(answers) == {mode}
    capsys.readouterr()
