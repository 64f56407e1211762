"""points.py - what the prediction phases of validate_pytorch.sh share: one prediction
appended to the CSV file that VALIDATION_POINTS names (tables.py collects them)."""
import csv
import os


def log_point(*v):
    """One prediction: dataset, base, target, scenario, kind, predicted, real (nothing when
    VALIDATION_POINTS is not set)."""
    path = os.environ.get("VALIDATION_POINTS")
    if path:
        with open(path, "a", newline="") as f:
            csv.writer(f).writerow(v)
