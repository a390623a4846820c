"""One module per `tableside` subcommand; each exposes `register(subparsers)`."""
