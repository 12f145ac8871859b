"""The write routes: executing Operations and the life of Proposals."""
