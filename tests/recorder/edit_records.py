"""edit_records.py - edits record files of the recorder in place for tests/cli/cli_pytorch.sh:
adds DELTA to field FIELD of every KIND record (whose batch number, field 2, is below
BELOW, and whose field FIELD is not -1, when --below is given) in the files FILE...

    /usr/bin/python3 tests/recorder/edit_records.py KIND FIELD DELTA [--below N] FILE...
"""
import sys


def main(argv):
    kind, field, delta, files, below = argv[0], int(argv[1]), int(argv[2]), argv[3:], None
    if files and files[0] == "--below":
        below, files = int(files[1]), files[2:]
    for path in files:
        out = []
        for line in open(path):
            f = line.rstrip("\n").split(",")
            if f[0] == kind and (below is None or (int(f[2]) < below and int(f[field]) >= 0)):
                f[field] = str(int(f[field]) + delta)
            out.append(",".join(f) + "\n")
        open(path, "w").writelines(out)


if __name__ == "__main__":
    main(sys.argv[1:])
