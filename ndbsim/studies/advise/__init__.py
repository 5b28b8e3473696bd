"""``ndbsim advise``: what would make this restart faster, and what each change costs.

Entry point and the module to open first: ``study`` (the levers tried, paired runs, the best
combination); ``report`` draws its table and tornado chart.
"""
