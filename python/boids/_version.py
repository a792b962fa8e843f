# SPDX-License-Identifier: MIT
"""The package's version: the C library's (CMakeLists.txt, project VERSION), which the
package checks when it loads the library (python/tests compare the two)."""

__version__ = "0.4.0"
