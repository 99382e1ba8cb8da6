"""setuptools' hook for this project's build; the metadata is in pyproject.toml.

``pip install .`` builds inside the checkout (``.build/``, setup.cfg), and setuptools only
ever adds to that folder: after a module moves or is deleted, an upgrade in the same checkout
would still install the old file beside the new one. Each build therefore starts empty.
"""

import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class FreshBuildPy(build_py):
    """Copies the packages into an emptied build folder."""

    def run(self) -> None:
        """Empty the build folder, then copy as setuptools does."""
        shutil.rmtree(self.build_lib, ignore_errors=True)
        super().run()


setup(cmdclass={"build_py": FreshBuildPy})
