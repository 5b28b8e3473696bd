"""The data behind the predictive interval that only the studies can compute: the fitted constants'
covariance (``covariance``: ``python -m ndbsim.studies.uncertainty.covariance --write``)."""
