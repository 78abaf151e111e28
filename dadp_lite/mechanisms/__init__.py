"""Traditional and DP disclosure-avoidance mechanisms.

Every mechanism is a pure function of (input, parameters, rng, reps) returning all
repetitions at once (first axis = repetitions). Mechanisms sample; they do not summarise
(:mod:`dadp_lite.metrics`), plot (:mod:`dadp_lite.plotting`) or compute exact answers
(:mod:`dadp_lite.theory`). :mod:`dadp_lite.registry` lists them with their exact bias and
delta.

Every name of a submodule's ``__all__`` is re-exported here (and by :mod:`dadp_lite`): a
new sampler is listed once, in its own module. A submodule is reached through this
package's ``_<module>`` alias (the sampler ``swapping`` hides the submodule of that name).
"""

from dadp_lite.mechanisms import cell_suppression as _cell_suppression
from dadp_lite.mechanisms import discrete_gaussian as _discrete_gaussian
from dadp_lite.mechanisms import k_anonymity as _k_anonymity
from dadp_lite.mechanisms import laplace as _laplace
from dadp_lite.mechanisms import mondrian as _mondrian
from dadp_lite.mechanisms import swapping as _swapping
from dadp_lite.mechanisms.cell_suppression import *  # noqa: F403
from dadp_lite.mechanisms.discrete_gaussian import *  # noqa: F403
from dadp_lite.mechanisms.k_anonymity import *  # noqa: F403
from dadp_lite.mechanisms.laplace import *  # noqa: F403
from dadp_lite.mechanisms.mondrian import *  # noqa: F403
from dadp_lite.mechanisms.swapping import *  # noqa: F403

__all__: list[str] = []
__all__ += _cell_suppression.__all__
__all__ += _discrete_gaussian.__all__
__all__ += _k_anonymity.__all__
__all__ += _laplace.__all__
__all__ += _mondrian.__all__
__all__ += _swapping.__all__
