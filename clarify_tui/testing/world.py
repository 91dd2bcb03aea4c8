"""A tiny world independent of the bundled demo: a six-document corpus and one task per
protocol (DiscoBench, InteractComp, CTS), small enough to spell out trajectories exactly.
The tests' fixtures (tests/conftest.py) and benchmarks/bench_tui.py play it."""

from __future__ import annotations

from clarify_tui.models import Answer, Checkpoint, CTSPart, DiscoBenchPart, InteractCompPart, Nugget, Task

DOCS = [
    {
        "id": "portia",
        "title": "My Time at Portia",
        "url": "https://t/portia",
        "content": "My Time at Portia is a popular life simulation game developed by Pathea Games that won an award.",
    },
    {
        "id": "sandrock",
        "title": "My Time at Sandrock",
        "url": "https://t/sandrock",
        "content": "My Time at Sandrock is a life simulation game by Pathea Games; it won the GWB Indie Game Awards Bronze Prize.",
    },
    {
        "id": "focus",
        "title": "Focus Entertainment",
        "url": "https://t/focus",
        "content": "Focus Entertainment is a French publisher that published My Time at Sandrock on consoles.",
    },
    {
        "id": "team17",
        "title": "Team17",
        "url": "https://t/team17",
        "content": "Team17 is a British publisher that published My Time at Portia.",
    },
    {
        "id": "tokyo",
        "title": "Tokyo Tower",
        "url": "https://t/tokyo",
        "content": "Tokyo Tower is a famous red and white lattice tower in Japan, opened in 1958, 333 metres tall.",
    },
    {
        "id": "sapporo",
        "title": "Sapporo TV Tower",
        "url": "https://t/sapporo",
        "content": "Sapporo TV Tower is a red and white lattice tower in Japan, opened in 1957, with a clock on it.",
    },
    {
        "id": "tea-gen",
        "title": "Green tea",
        "url": "https://t/tea",
        "content": "Green tea is a popular drink. Tea is grown in many countries.",
    },
    {
        "id": "tea-uji",
        "title": "Uji matcha harvest 2023",
        "url": "https://t/uji",
        "content": "In 2023 Uji matcha prices rose 20 percent after a poor harvest in Kyoto prefecture.",
    },
    {
        "id": "m1",
        "title": "Matcha prices guide",
        "url": "https://t/m1",
        "content": "Matcha prices depend on grade: ceremonial matcha costs more than culinary matcha.",
    },
    {
        "id": "m2",
        "title": "Matcha prices in cafes",
        "url": "https://t/m2",
        "content": "Cafe matcha latte prices are similar to coffee prices.",
    },
    {
        "id": "m3",
        "title": "Buying matcha online",
        "url": "https://t/m3",
        "content": "Online shops list matcha prices per 30 gram tin.",
    },
] + [
    {
        "id": f"f{i}",
        "title": f"Filler {i}",
        "url": f"https://t/f{i}",
        "content": f"Unrelated filler text number {i} about cooking, rivers and weather patterns.",
    }
    for i in range(40)
]

DISCO = Task(
    id="d1",
    protocol="discobench",
    domain="games",
    question="Which company published the Pathea Games life simulation game that won an award?",
    answer=Answer(text="Focus Entertainment", aliases=["Focus Home Interactive"]),
    discobench=DiscoBenchPart(
        original_question="Which company published the Pathea Games game that won the GWB Bronze Prize?",
        checkpoints=[
            Checkpoint(
                type="ambi",
                ambiguity_type="entity",
                target="My Time at Sandrock",
                distractors=["My Time at Portia"],
                clue="It won the GWB Indie Game Awards Bronze Prize.",
                ambiguity_logic="several Pathea games won awards",
            ),
            Checkpoint(type="unambi", target="Focus Entertainment"),
        ],
    ),
)

IC = Task(
    id="i1",
    protocol="interactcomp",
    domain="places",
    question="Which red and white lattice tower in Japan am I thinking of?",
    answer=Answer(text="Sapporo TV Tower"),
    interactcomp=InteractCompPart(
        context="The tower opened in 1957. It has a large digital clock on its side. It stands in Hokkaido.",
        distractors=["Tokyo Tower"],
    ),
)

CTS = Task(
    id="c1",
    protocol="cts",
    domain="food",
    question="matcha prices",
    cts=CTSPart(
        blurred_query="matcha prices",
        fused_query="Why did Uji matcha prices rise in 2023?",
        intent_slots={"time": "2023", "entity": "Uji matcha"},
        nuggets=[
            Nugget(id="n1", text="Uji matcha prices rose 20 percent in 2023", weight=3, source_ids=["tea-uji"]),
            Nugget(id="n2", text="a poor harvest in Kyoto prefecture", weight=2, source_ids=["tea-uji"]),
        ],
    ),
)
