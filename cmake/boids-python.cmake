# SPDX-License-Identifier: MIT
# The Python package (python/boids) installed with the libraries (included from
# cmake/boids-install.cmake), into BOIDS_INSTALL_PYTHONDIR under the prefix: by default the
# interpreter's own site folder for that prefix (Debian's python3 with the prefix /usr/local:
# lib/python3.11/dist-packages, which is on its sys.path). Beside the package goes
# _libdir.py, the library folder relative to the package's folder, so that the installed
# package loads the installed library with no environment variable, also from a tree moved
# or staged with DESTDIR.
if(NOT Python3_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter)
endif()
set(BOIDS_INSTALL_PYTHONDIR "" CACHE STRING
    "Folder of the installed Python package under the prefix (default: the site folder)")
set(boids_pythondir "${BOIDS_INSTALL_PYTHONDIR}")
if(NOT boids_pythondir AND Python3_EXECUTABLE)
  # purelib of the interpreter's default scheme under a placeholder prefix; Debian's
  # posix_local scheme adds local/ to its base (/usr), which the prefix already names.
  string(CONCAT boids_py "import sysconfig as s\n"
                "p = s.get_path('purelib', vars={'base': '/@', 'platbase': '/@'})[3:]\n"
                "print(p[6:] if p.startswith('local/') else p)")
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "${boids_py}"
    OUTPUT_VARIABLE boids_pythondir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE boids_py_rc)
  if(NOT boids_py_rc EQUAL 0)
    set(boids_pythondir "")
  endif()
endif()
if(boids_pythondir)
  if(IS_ABSOLUTE "${boids_pythondir}" OR IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    # An absolute folder cannot move with the prefix: record the library folder as it is.
    set(boids_libdir_from_package "${CMAKE_INSTALL_FULL_LIBDIR}")
  else()
    file(RELATIVE_PATH boids_libdir_from_package /root/${boids_pythondir}/boids
         /root/${CMAKE_INSTALL_LIBDIR})
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/python/_libdir.py
       "# Written by cmake (cmake/boids-python.cmake) and installed with the package: the\n"
       "# folder of libboids_core.so, relative to this package's folder unless absolute.\n"
       "LIBDIR = \"${boids_libdir_from_package}\"\n")
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/boids DESTINATION ${boids_pythondir}
          COMPONENT python FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
  install(FILES ${PROJECT_BINARY_DIR}/python/_libdir.py DESTINATION ${boids_pythondir}/boids
          COMPONENT python)
  message(STATUS "The Python package installs into <prefix>/${boids_pythondir}")
else()
  message(STATUS "No Python interpreter to place the Python package: it is not installed "
                 "(set BOIDS_INSTALL_PYTHONDIR)")
endif()
