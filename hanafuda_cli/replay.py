"""Replay Koi-Koi game records (KoiKoi-AI JSON) in the engine and report what disagrees.

    python replay.py RECORDS_DIR [more files or folders ...] [--rules koikoi-japan] [-q]

Every move is checked: the card played is in hand, the captures and draws are the ones the
rules make, a koi-koi decision stands exactly where the rules offer one, and each round's
winner and points and the match's result are as recorded. A record is replayed by the rules
it names (``info["ruleSet"]``, as ``evaluate.py --records`` writes them), else by
``--rules`` (default ``koikoi-japan``, the rules the KoiKoi-AI program plays). Prints a line
per record and a summary; a record that cannot be read or replayed is reported and the rest
go on. The exit status is 1 when any record disagrees or fails.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hanafuda_cli.arguments import HelpFormatter
from hanafuda_env.koikoi.records import (
    RECORD_RULES,
    RecordError,
    read_record,
    record_files,
    record_rules,
    replay,
)
from hanafuda_env.koikoi.rules import RuleError, resolve_rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="record files, or folders of *.json records")
    parser.add_argument("--rules", default=None,
                        help=f"rules for records that name none (default: {RECORD_RULES}); "
                        "given, they override the records' own")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the records that disagree, and the summary")
    args = parser.parse_args(argv)
    try:
        rules = None if args.rules is None else resolve_rules(args.rules)
    except RuleError as error:
        parser.error(f"--rules: {error}")
    files: list[Path] = []
    for name in args.paths:
        path = Path(name)
        if path.is_dir():
            found = list(record_files(path))
            if not found:
                parser.error(f"{name}: a folder with no *.json record")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            parser.error(f"{name}: no such file or folder")
    rounds = turns = bad = 0
    for path in files:
        try:
            match = read_record(path)
            summary = replay(match, rules, source=str(path))
        except RecordError as error:
            bad += 1
            print(f"DISAGREES  {error}")
            continue
        except Exception as error:  # a fault of this program: the other records still replay
            bad += 1
            print(f"FAILED  {path}: the replay stopped on {type(error).__name__}: {error}")
            continue
        rounds += summary.rounds
        turns += summary.turns
        if not args.quiet:
            rule_name = record_rules(match, rules).name
            print(f"ok  {path}: {summary.rounds} rounds, {summary.turns} turns, "
                  f"{summary.koikoi_calls} koi-koi calls ({rule_name})")
    print(f"{len(files)} records: {len(files) - bad} replayed exactly ({rounds} rounds, "
          f"{turns} turns), {bad} disagree")
    return 1 if bad else 0


def run() -> None:
    """The ``hanafuda-replay`` command (and ``python replay.py``): :func:`main` with the exits a
    terminal expects."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:  # `replay.py ... | head` closed the pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    run()
