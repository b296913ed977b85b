"""Write the policy of a training checkpoint as a policy-only checkpoint (the weights and the
network's shape, no optimizer or pool): what ``agents/bots/pretrained/`` ships.

    python scripts/export_policy.py runs/<run>/checkpoints/latest.pt OUT.pt

The copy loads through the same safe loader and plays the same moves.
"""

from __future__ import annotations

import argparse
import sys

from agents.bots.policy import (
    CheckpointError,
    load_checkpoint,
    network_from_payload,
    save_checkpoint,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint the trainer wrote")
    parser.add_argument("out", help="the policy checkpoint to write")
    args = parser.parse_args(argv)
    try:
        payload = load_checkpoint(args.checkpoint)
        network_from_payload(payload)  # it must play before it is copied
    except CheckpointError as error:
        print(f"export_policy.py: error: {error}", file=sys.stderr)
        return 2
    kept = {key: payload[key] for key in ("model", "network", "update", "global_step",
                                          "iteration", "trainer") if key in payload}
    save_checkpoint(args.out, kept)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
