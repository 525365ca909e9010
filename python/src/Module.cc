// The extension module fastmu._fastmu; the pure-Python package `fastmu`
// re-exports it with Pythonic wrappers (python/fastmu/*.py).
#include <Python.h>

#include <pybind11/pybind11.h>

#include <cctype>
#include <string>

#include "Bindings.hh"
#include "fastmu/core/Error.hh"
#include "fastmu/core/Version.hh"
#include "fastmu/io/Hdf5.hh"

namespace py = pybind11;

namespace {
PyObject* g_error_type = nullptr;  // fastmu.Error; lives as long as the interpreter

// The checks shared with the command line name its options ("--p-kill"); in
// Python the same value is the argument p_kill. An option is "--" and a
// lower-case word after the start, a space or an opening bracket or quote.
std::string python_names(const std::string& message) {
  std::string out;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const bool starts = message.compare(i, 2, "--") == 0 && i + 2 < message.size() &&
                        message[i + 2] >= 'a' && message[i + 2] <= 'z' &&
                        (i == 0 || std::string(" ('`\"").find(message[i - 1]) != std::string::npos);
    if (!starts) {
      out += message[i];
      continue;
    }
    for (i += 2; i < message.size() &&
                 (std::isalnum(static_cast<unsigned char>(message[i])) || message[i] == '-');
         ++i) {
      out += message[i] == '-' ? '_' : message[i];
    }
    --i;
  }
  return out;
}
}  // namespace

PYBIND11_MODULE(_fastmu, m) {
  // No close of HDF5 files at exit (Hdf5.hh says why); a no-op where h5py
  // started the library first.
  fastmu::io::h5::no_close_at_exit();
  // pybind11 before 2.12 does not know NumPy 2's array descriptors: arrays
  // would cross the boundary with wrong sizes and contents, silently. Refuse
  // to load instead (Debian 12 ships pybind11 2.10 with NumPy 1.24).
#if PYBIND11_VERSION_MAJOR == 2 && PYBIND11_VERSION_MINOR < 12
  {
    const std::string numpy = py::str(py::module_::import("numpy").attr("__version__"));
    if (!numpy.empty() && numpy[0] != '0' && numpy[0] != '1') {
      throw py::import_error("fastmu: this extension was built with pybind11 " +
                             std::string(PYBIND11_VERSION_MAJOR == 2 ? "2." : "") +
                             std::to_string(PYBIND11_VERSION_MINOR) +
                             ", which does not support NumPy " + numpy +
                             ": use NumPy < 2 or build fastmu with pybind11 >= 2.12");
    }
  }
#endif
  m.doc() =
      "fastmu: muon transport through matter and magnetic fields by histogram sampling "
      "(units: metres, GeV/c, tesla)";
  m.attr("__version__") = FASTMU_VERSION;
#ifdef FASTMU_PYTHON_HAVE_CUDA
  m.attr("have_cuda") = true;
#else
  m.attr("have_cuda") = false;
#endif

  // fastmu::Error is bad input, as on the command line: raise fastmu.Error, a
  // subclass of both ValueError and RuntimeError, with the same one-line message.
  PyObject* bases = PyTuple_Pack(2, PyExc_ValueError, PyExc_RuntimeError);
  g_error_type = PyErr_NewExceptionWithDoc(
      "fastmu.Error",
      "Bad input to fastmu (a file, a field, an option): the message is one line naming "
      "what and where, as on the command line.",
      bases, nullptr);
  Py_XDECREF(bases);
  if (g_error_type == nullptr) throw py::error_already_set();
  m.attr("Error") = py::handle(g_error_type);  // the module takes its own reference
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const fastmu::Error& e) {
      PyErr_SetString(g_error_type, python_names(e.what()).c_str());
    }
  });

  fastmu::python::bind_materials(m);
  fastmu::python::bind_physics(m);
  fastmu::python::bind_tables(m);
  fastmu::python::bind_geometry(m);
  fastmu::python::bind_field(m);
  fastmu::python::bind_transport(m);
  fastmu::python::bind_ship(m);
  fastmu::python::bind_flux(m);
  fastmu::python::bind_underground(m);
}
