"""The command line: argument parsing and output only; every command calls the library."""
