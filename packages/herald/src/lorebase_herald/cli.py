def main() -> None:
    raise SystemExit("lorebase-herald is being built")
