"""The relevance_* settings: the table of keys (`keys`), their values read and range-checked once (`settings`), and
the project's ini found from the working directory as pytest finds it (`project`), for the command line.
"""
