"""The terminal's move prompt, shared by both games' terminal play: the person names a legal
move by number or by a unique part of its name; ``q`` or the end of input quits (:class:`Quit`).
"""

from __future__ import annotations

from collections.abc import Callable

from hanafuda_env.koikoi.core import action_name


class Quit(Exception):
    """The person asked to leave (``at_end``: the input ended, as Ctrl-D or a pipe's end)."""

    def __init__(self, at_end: bool = False):
        super().__init__("input ended" if at_end else "quit")
        self.at_end = at_end


def goodbye(stdin: object, quit_: Quit) -> str:
    """The parting line, on a line of its own where no Enter the terminal echoed ended the
    prompt's line (input from a pipe or a file, or Ctrl-D)."""
    echoed = bool(getattr(stdin, "isatty", lambda: False)()) and not quit_.at_end
    return "bye." if echoed else "\nbye."


def ask_action(legal: list[int], read: Callable[[], str], write: Callable[[str], None]) -> int:
    """Prompt until the person names one legal action."""
    names = [action_name(a) for a in legal]
    while True:
        write("your move:\n" + "\n".join(f"  [{i + 1}] {n}" for i, n in enumerate(names)))
        write("> ")
        line = read()
        if line == "":
            raise Quit(at_end=True)
        text = line.strip().lower()
        if text in ("q", "quit", "exit"):
            raise Quit
        number = int(text) if text.isdecimal() and len(text) <= 6 else 0  # not "²", not 10**5000
        if 1 <= number <= len(legal):
            return legal[number - 1]
        matches = [i for i, n in enumerate(names) if text and text in n.lower()]
        if len(matches) == 1:
            return legal[matches[0]]
        if matches:  # e.g. "cherry chaff" with both cherry chaff cards in hand
            which = ", ".join(f"[{i + 1}] {names[i]}" for i in matches)
            write(f"'{line.strip()}' matches several moves ({which}); type the number of "
                  f"the one you mean (or q to quit).\n")
            continue
        write(f"'{line.strip()}' is not one of the moves above; type a number "
              f"1-{len(legal)} (or q to quit).\n")
