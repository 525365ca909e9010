// fastmu's error type: a one-line message naming what and where.
#pragma once

#include <stdexcept>
#include <string>

namespace fastmu {

// Thrown for bad input (files, JSON, options). The message is a single line
// that names the file, the line or field, and what is wrong; the command line
// prints it as "fastmu: error: <message>" and exits non-zero.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace fastmu
