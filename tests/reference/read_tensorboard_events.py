#!/usr/bin/env python3
"""Reads Strata's TensorBoard event files back with the real TensorBoard reader.

The C++ test TensorBoard.WritesScalarEventFilesForTrainAndValidation writes them; keep
them in a directory and read them here:

    python3 -m venv /tmp/venv_training && /tmp/venv_training/bin/pip install tensorboard
    STRATA_TENSORBOARD_DIR=/tmp/strata_tb build/tests/models_tests \
        --gtest_filter='TensorBoard.WritesScalarEventFilesForTrainAndValidation'
    /tmp/venv_training/bin/python tests/reference/read_tensorboard_events.py /tmp/strata_tb

TensorBoard's loader checks both masked CRC32Cs of every record (it raises on a bad
one), parses the Event protos, and converts the legacy simple_value scalars. The script
exits non-zero unless every expected tag is there with one value per epoch.
"""
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

EXPECTED = {
    "train": {"epoch_loss": 3, "epoch_accuracy": 3, "epoch_learning_rate": 3, "batch_loss": 4},
    "validation": {"epoch_loss": 3, "epoch_accuracy": 3},
}


def main(log_dir):
    ok = True
    for run, tags in EXPECTED.items():
        acc = EventAccumulator(f"{log_dir}/{run}", size_guidance={"scalars": 0})
        acc.Reload()
        scalars = acc.Tags()["scalars"]
        print(run, sorted(scalars))
        for tag, count in tags.items():
            events = acc.Scalars(tag) if tag in scalars else []
            print(f"  {tag}: " + ", ".join(f"step {e.step} = {e.value:.6g}" for e in events))
            if len(events) != count:
                print(f"  expected {count} values for {tag}, got {len(events)}")
                ok = False
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/strata_tb"))
