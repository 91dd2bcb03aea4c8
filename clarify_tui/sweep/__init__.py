"""`clarify-tui sweep`: a matrix of runs from one file (cells.py), played at once under one
budget (play.py), planned by --dry-run (estimate.py), laid out by `report --sweep` (table.py)."""
