"""Each free constant's prior is its own physical range (issue 49), not one factor for all: every
fitted constant, NDB's and InnoDB's, has one with what it rests on, lies inside it, and the
packaged covariance records each range and never exceeds it."""

from __future__ import annotations

from ndbsim.innodb.constants import FREE_CONSTANTS, load_constants
from ndbsim.input.profiles.calibrated import calibrated_constants
from ndbsim.input.profiles.priors import PRIORS, prior_sd
from ndbsim.studies.calibration.calibrate import FITTED
from ndbsim.studies.uncertainty import covariance


def test_every_fitted_constant_has_a_range_and_lies_inside_it():
    ndb = calibrated_constants("")
    innodb = load_constants()
    for name in FITTED:
        p = PRIORS[name]
        assert p.lo < getattr(ndb, name) < p.hi, (name, p, getattr(ndb, name))
        assert p.rests_on
    for name in FREE_CONSTANTS:
        p = PRIORS[name]
        assert p.lo < getattr(innodb, name) < p.hi, (name, p, getattr(innodb, name))


def test_the_ranges_differ_by_constant():
    assert len({round(prior_sd(n), 3) for n in FITTED}) >= 4


def test_the_packaged_covariance_records_each_prior_and_stays_inside_it():
    data = covariance.packaged()
    for name, c in data["constants"].items():
        assert c["prior_sd_log"] == round(prior_sd(name), 4)
        assert c["sd_log"] <= c["prior_sd_log"] + 1e-9, name
