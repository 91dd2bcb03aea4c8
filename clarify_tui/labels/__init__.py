"""Should-it-have-asked labels (issue 33, docs/labels.md): people label each decision point
of a run (a step where the agent searched or answered instead of asking) `ask`, `act` or
`unsure`, blind to the session's outcome.

- points.py: the decision points and the item a person is shown (store/work.py's contract);
- transfer.py: `labels import` / `labels export` (JSON Lines, one label a line);
- summary.py: what `labels --run RUN` and `report --labels` print (agreement, kappa, the
  share that needed an ask, auc_vs_flips against the run's `whatif` ask forks).

Labels live in the work-queue tables, never in sessions or steps: no score reads them.
"""
