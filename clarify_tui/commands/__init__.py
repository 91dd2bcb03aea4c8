"""One module per `clarify-tui` subcommand; each exposes `register(subparsers)`."""
