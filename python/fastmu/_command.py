"""The `fastmu` console script of a pip installation: runs the C++ program
that setup.py put into the package (fastmu/_bin/fastmu)."""

import os
import sys


def main():
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "fastmu")
    if not os.access(program, os.X_OK):
        sys.stderr.write(f"fastmu: error: {program} is missing or not executable "
                         "(this installation of the package has no command-line program)\n")
        return 1
    os.execv(program, [program] + sys.argv[1:])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main())
