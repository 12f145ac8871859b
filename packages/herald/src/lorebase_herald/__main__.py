"""`python -m lorebase_herald`: the same as `lorebase-herald`."""

from lorebase_herald.cli import main

if __name__ == "__main__":
    main()
