"""The command line: the parser (`main.py`) and one module per group of commands.

May import every stage; no stage imports it.
"""
