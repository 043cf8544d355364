"""ratingsim: a research simulator for chess rating systems.

The folders are the layers. Data flows one way: config -> world -> systems ->
evaluation, driven by the engine; the tasks a user runs sit on top, the CLI
above them. A module imports only from its own package and the layers its
package's docstring names (``tests/test_layers.py`` reads every import and
holds the code to this table):

=====================  ==================================================
layer                  may import
=====================  ==================================================
base (``_jit``,        nothing of ``simulator``
``_types``,
``_validate``,
``_calendar``,
``_atomic``)
``systems/``           base
``world/``             base
``evaluation/``        base
``data/``              base, systems
``config``             base, systems, world, evaluation
``config_reference``   base, systems, world, evaluation, config
``engine``             base, systems, world, evaluation, config
``tasks/``             base, systems, world, evaluation, data, config, engine
``cli``, ``__main__``  everything above
``api``                as ``tasks/``, and tasks (the notebook API)
=====================  ==================================================
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ratingsim")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = ["__version__"]
