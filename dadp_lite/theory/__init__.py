"""Exact answers: closed forms, exact enumeration and tight privacy curves.

Nothing here samples: every function computes a number the simulations of
:mod:`dadp_lite.experiments` are compared with. Printed formulas of the paper are named
``*_as_printed``; corrected forms get their own names (see each submodule). The answers a
registry record names take the histogram first (``exact_bias_<record>``,
``exact_delta_<record>``, ``reference_delta_<record>``, ``worst_pair_<record>``,
``pair_delta_<record>``, ...; :mod:`dadp_lite.theory._contract`).

Every name of a submodule's ``__all__`` is re-exported here: a new public name is listed
once, in its own module.
"""

from dadp_lite.theory import accounting as _accounting
from dadp_lite.theory import baselines as _baselines
from dadp_lite.theory import cell_suppression as _cell_suppression
from dadp_lite.theory import fairness as _fairness
from dadp_lite.theory import k_anonymity as _k_anonymity
from dadp_lite.theory import lemma as _lemma
from dadp_lite.theory import mean_deviation as _mean_deviation
from dadp_lite.theory import privacy as _privacy
from dadp_lite.theory import swapping as _swapping
from dadp_lite.theory.accounting import *  # noqa: F403
from dadp_lite.theory.baselines import *  # noqa: F403
from dadp_lite.theory.cell_suppression import *  # noqa: F403
from dadp_lite.theory.fairness import *  # noqa: F403
from dadp_lite.theory.k_anonymity import *  # noqa: F403
from dadp_lite.theory.lemma import *  # noqa: F403
from dadp_lite.theory.mean_deviation import *  # noqa: F403
from dadp_lite.theory.privacy import *  # noqa: F403
from dadp_lite.theory.swapping import *  # noqa: F403

__all__: list[str] = []
__all__ += _accounting.__all__
__all__ += _baselines.__all__
__all__ += _cell_suppression.__all__
__all__ += _fairness.__all__
__all__ += _k_anonymity.__all__
__all__ += _lemma.__all__
__all__ += _mean_deviation.__all__
__all__ += _privacy.__all__
__all__ += _swapping.__all__
